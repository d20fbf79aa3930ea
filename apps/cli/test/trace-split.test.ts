import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultFile } from '@mcp-db-bench/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-split-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runCli(args, { cwd: dir, timeoutMs: 240_000 });

describe('run --trace-split', () => {
  it("splits each step's calls by the spans our server exported to the run's receiver", async () => {
    const out = join(dir, 'split.json');
    const html = join(dir, 'split.html');
    const r = await run([
      'run',
      '--full',
      '--trace-split',
      '--scale',
      '0.002',
      '--workloads',
      'point-read,filtered',
      '--agents',
      '1',
      '--duration',
      '1s',
      '--warmup',
      '200ms',
      '--indexes',
      'optimized',
      '--check-calls',
      '0',
      '--out',
      out,
      '--html',
      html,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.steps.map((s) => s.workload)).toEqual(['point-read', 'filtered']);
    for (const step of result.steps) {
      const split = step.traceSplit;
      const what = `${step.workload}: ${JSON.stringify(split)}`;
      expect(split, what).toBeDefined();
      // one traced call per call the client timed in the window, but for one an agent had in flight
      // at either edge, and those begun within the millisecond of each edge: the SDK stamps a
      // span's start with Date.now(), whole milliseconds (2,600 calls a second here is 3 a millisecond)
      const perMs = step.calls / step.durationMs;
      expect(Math.abs(split!.calls - step.calls), what).toBeLessThanOrEqual(step.agents + 1 + Math.ceil(2 * perMs));
      for (const at of [split!.p50, split!.p99]) {
        for (const part of [at.clientUs, at.serverUs, at.databaseUs, at.waitUs, at.protocolUs])
          expect(part, what).toBeGreaterThanOrEqual(0);
        // the parts are the server's time, split (rounding aside)
        expect(Math.abs(at.databaseUs + at.waitUs + at.protocolUs - at.serverUs), what).toBeLessThanOrEqual(0.2);
        expect(at.serverUs, what).toBeGreaterThan(0);
      }
      // the server's span lies within the client's call
      expect(split!.p50.serverUs, what).toBeLessThanOrEqual(split!.p50.clientUs);
      expect(split!.p50.networkUs, what).toBeCloseTo(split!.p50.clientUs - split!.p50.serverUs, 0);
      // every call reads the database: its statements' spans were found inside the requests
      expect(split!.p50.databaseUs, what).toBeGreaterThan(0);
    }
    expect(r.stdout).toContain("Where each call's time went, from the server's own spans");
    expect(readFileSync(html, 'utf8')).toContain('id="trace-split"');
  });

  it('refuses a --target: that server exports its spans elsewhere, if at all', async () => {
    const r = await run(['run', '--trace-split', '--target', 'http://127.0.0.1:9/mcp']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--trace-split cannot be used with --target: it reads the spans of the servers the run/);
  });
});
