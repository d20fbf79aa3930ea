import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../src/heap.js';

describe('boundHeapGrowth', () => {
  it('leaves a growth factor chosen on the node command line alone', () => {
    expect(boundHeapGrowth(['--max-semi-space-size=2', '--heap-growing-percent=80'])).toBe(false);
    expect(boundHeapGrowth(['--heap_growing_percent=80'])).toBe(false);
  });

  it('sets its own otherwise', () => {
    expect(boundHeapGrowth(['--max-semi-space-size=2'])).toBe(true);
  });
});
