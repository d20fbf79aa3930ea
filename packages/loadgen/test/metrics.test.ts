import { summarize } from '@mcp-db-bench/report';
import { describe, expect, it } from 'vitest';
import { StepRecorder } from '../src/metrics/recorder.js';

/** Within HdrHistogram's 3-significant-digit precision. */
function near(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected / 1000 + 1);
}

describe('StepRecorder', () => {
  it('files latencies per operation, merges them into all, and counts errors by kind only', () => {
    const r = new StepRecorder(0);
    r.success('get', 2, 10);
    r.success('get', 4, 20);
    r.success('list', 8, 30);
    r.failure('timeout', 40);
    r.failure('timeout', 50);
    r.failure('http_503', 60);
    const out = r.finish(1000);
    expect(out.calls).toBe(3);
    expect(out.errors).toEqual({ http_503: 1, timeout: 2 });
    expect(Object.keys(out.operations)).toEqual(['get', 'list']);
    expect(out.operations.get!.count).toBe(2);
    expect(out.all.count).toBe(3);
    near(summarize(out.all.histogram).max, 8000);
    expect(out.intervals).toHaveLength(1);
    expect(out.intervals[0]).toMatchObject({ atMs: 0, calls: 3, errors: 3 });
  });

  it('attributes by completion second relative to the window and folds the drain into the last', () => {
    const r = new StepRecorder(500); // window starts at clock time 500
    r.success('get', 1, 1499); // second 0
    r.success('get', 1, 1500); // second 1
    r.failure('timeout', 2499); // second 1
    r.success('get', 1, 2600); // second 2: partial (window is 2.5 s)
    r.success('get', 1, 3200); // finished after the window: folds into second 2
    const out = r.finish(2500);
    expect(out.intervals.map(({ atMs, calls, errors }) => ({ atMs, calls, errors }))).toEqual([
      { atMs: 0, calls: 1, errors: 0 },
      { atMs: 1000, calls: 1, errors: 1 },
      { atMs: 2000, calls: 2, errors: 0 },
    ]);
    expect(summarize(out.intervals[2]!.histogram).count).toBe(2);
  });
});
