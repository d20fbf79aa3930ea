import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readResultFile } from '../src/files.js';
import { renderRuns } from '../src/render/runs.js';

/** A saved run of two databases (SQLite and PostgreSQL, both index profiles): see fixtures/results/README.md. */
const FILE = fileURLToPath(new URL('../../../fixtures/results/two-databases.json', import.meta.url));
const result = readResultFile(FILE);
const lines = (text: string) => text.trimEnd().split('\n');
const widest = (text: string) => Math.max(...lines(text).map((l) => l.length));

describe('the default report', () => {
  // 80 and 120: terminals; undefined: a file or a pipe, kept to 100 columns
  for (const width of [80, 120, undefined]) {
    it(`fits ${width ?? 'a pipe'}: no line wider, a screen long`, () => {
      const text = renderRuns([{ label: 'run', result }], 'table', width);
      expect(widest(text)).toBeLessThanOrEqual(width ?? 100);
      expect(lines(text).length).toBeLessThanOrEqual(width === 80 ? 75 : 40);
      // the summary's numbers and the verdicts are there
      expect(text).toMatch(/Summary \(optimized indexes/);
      expect(text).toMatch(/index speed-up on sqlite/);
      expect(text).toMatch(/answers agree|answered/);
    });
  }

  it('keeps every table behind --full', () => {
    const full = renderRuns([{ label: 'run', result }], 'table', 120, true);
    expect(full).toMatch(/Latency and throughput per workload/);
    expect(lines(full).length).toBeGreaterThan(lines(renderRuns([{ label: 'run', result }], 'table', 120)).length);
  });
});
