import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { prometheusText, summarize } from '@mcp-db-bench/report';
import { result, stats, step } from '@mcp-db-bench/report/testing';
import { type Family, havePrometheusParser, parsePrometheus as parse } from '@mcp-db-bench/testing';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

/**
 * run --prometheus and report --format prometheus: what they write is read by the Prometheus
 * Python client's own text-format parser (prometheus_client, installed by .ci/run into .tools/py
 * from packages/server/test/clients/requirements.txt), and its numbers checked against the
 * result file.
 */

const haveVenv = havePrometheusParser('prometheus.test.ts');

/** The one sample named `name` whose labels are exactly `labels`. */
function value(families: readonly Family[], name: string, labels: Record<string, string>): number | undefined {
  const matches = families
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name && JSON.stringify(sorted(s.labels)) === JSON.stringify(sorted(labels)));
  expect(matches.length, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return matches[0]?.value;
}
const sorted = (labels: Record<string, string>) => Object.fromEntries(Object.entries(labels).sort());

describe.skipIf(!haveVenv)('prometheusText', () => {
  it('writes families a Prometheus parser reads, with help, type, escaped labels and the numbers of each step', async () => {
    // 1,000 calls: 990 at 1 ms and 10 at 20 ms, so p99 is 1 ms and p99.9 20 ms.
    const latencies = [...Array(990).fill(1000), ...Array(10).fill(20_000)];
    const odd = 'my "db" \\ one\nline';
    const text = prometheusText(
      result([
        step({ workload: 'point-read', agents: 1, calls: 1000, all: stats(latencies), errors: { http_503: 10 } }),
        step({ workload: 'point-read', agents: 1, calls: 3000, iteration: 2, durationMs: 2000 }),
        step({ target: odd, indexes: null, workload: 'filtered', agents: 4, calls: 500, errors: { timeout: 2 } }),
      ]),
    );
    const families = await parse(text);
    expect(families.map((f) => [f.name, f.type])).toEqual([
      ['mcp_db_bench_run_finished_timestamp_seconds', 'gauge'],
      ['mcp_db_bench_calls_per_second', 'gauge'],
      ['mcp_db_bench_calls', 'counter'],
      ['mcp_db_bench_errors', 'counter'],
      ['mcp_db_bench_errors_by_kind', 'counter'],
      ['mcp_db_bench_measured_seconds', 'gauge'],
      ['mcp_db_bench_latency_seconds', 'summary'],
      ['mcp_db_bench_run_partial', 'gauge'],
    ]);
    expect(families.every((f) => f.documentation.length > 0)).toBe(true);
    expect(value(families, 'mcp_db_bench_run_finished_timestamp_seconds', {})).toBe(1767225660);

    const read = { target: 'sqlite', indexes: 'optimized', workload: 'point-read', agents: '1' };
    // two iterations: 1,000 calls/s and 1,500 calls/s, median 1,250; calls and errors added up
    expect(value(families, 'mcp_db_bench_calls_per_second', read)).toBe(1250);
    expect(value(families, 'mcp_db_bench_calls_total', read)).toBe(4000);
    expect(value(families, 'mcp_db_bench_errors_total', read)).toBe(10);
    expect(value(families, 'mcp_db_bench_errors_by_kind_total', { ...read, kind: 'http_503' })).toBe(10);
    expect(value(families, 'mcp_db_bench_measured_seconds', read)).toBe(3);
    // 3,990 calls at 1 ms and 10 at 20 ms, merged: p99 1 ms, p99.9 20 ms (HdrHistogram's equivalent values)
    expect(value(families, 'mcp_db_bench_latency_seconds', { ...read, quantile: '0.99' })).toBeCloseTo(0.001, 5);
    expect(value(families, 'mcp_db_bench_latency_seconds', { ...read, quantile: '0.999' })).toBeCloseTo(0.02, 4);
    expect(value(families, 'mcp_db_bench_latency_seconds_count', read)).toBe(4000);
    expect(value(families, 'mcp_db_bench_latency_seconds_sum', read)).toBeCloseTo(3.99 + 0.2, 1);

    // a label value with quotes, a backslash and a newline comes back as it was; no index set is ""
    const other = { target: odd, indexes: '', workload: 'filtered', agents: '4' };
    expect(value(families, 'mcp_db_bench_errors_total', other)).toBe(2);
    expect(value(families, 'mcp_db_bench_errors_by_kind_total', { ...other, kind: 'timeout' })).toBe(2);
    // no step without errors has a by-kind sample; every step has its total
    expect(families.find((f) => f.name === 'mcp_db_bench_errors_by_kind')!.samples).toHaveLength(2);
  });
});

describe.skipIf(!haveVenv)('run --prometheus', () => {
  it('writes a real run whose numbers are the result file’s, and report --format prometheus writes the same', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-prom-'));
    try {
      const [out, prom] = [join(dir, 'result.json'), join(dir, 'run.prom')];
      const r = await runCli(
        [
          'run',
          '--scale',
          '0.002',
          '--workloads',
          'point-read',
          '--agents',
          '1',
          '--duration',
          '1s',
          '--warmup',
          '200ms',
          '--indexes',
          'optimized',
          '--out',
          out,
          '--prometheus',
          prom,
        ],
        { timeoutMs: 120_000 },
      );
      expect(r.code, r.stderr).toBe(0);
      const json: ResultFile = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
      const text = readFileSync(prom, 'utf8');
      const families = await parse(text);
      const [s] = json.steps;
      expect(json.steps).toHaveLength(1);
      const labels = { target: s!.target, indexes: s!.indexes ?? '', workload: 'point-read', agents: '1' };
      expect(s!.calls).toBeGreaterThan(0);
      expect(value(families, 'mcp_db_bench_calls_total', labels)).toBe(s!.calls);
      expect(value(families, 'mcp_db_bench_calls_per_second', labels)).toBeCloseTo(
        s!.calls / (s!.durationMs / 1000),
        6,
      );
      const errors = Object.values(s!.errors).reduce((a, b) => a + b, 0);
      expect(value(families, 'mcp_db_bench_errors_total', labels)).toBe(errors);
      const latency = summarize(s!.all.histogram);
      for (const [quantile, us] of [
        ['0.5', latency.p50],
        ['0.9', latency.p90],
        ['0.99', latency.p99],
        ['0.999', latency.p999],
      ] as const) {
        expect(value(families, 'mcp_db_bench_latency_seconds', { ...labels, quantile })).toBeCloseTo(us / 1e6, 9);
      }
      expect(value(families, 'mcp_db_bench_latency_seconds_count', labels)).toBe(s!.all.count);
      // session init, cold and warm, per target
      expect(json.sessionInit.length).toBeGreaterThan(0);
      const init = json.sessionInit[0]!;
      const initLabels = { target: init.target, indexes: init.indexes ?? '' };
      for (const start of ['cold', 'warm'] as const) {
        const h = summarize(init[start].histogram);
        expect(h.count).toBeGreaterThan(0);
        expect(value(families, 'mcp_db_bench_session_init_seconds_count', { ...initLabels, start })).toBe(h.count);
        expect(
          value(families, 'mcp_db_bench_session_init_seconds', { ...initLabels, start, quantile: '0.5' }),
        ).toBeCloseTo(h.p50 / 1e6, 9);
      }

      const report = await runCli(['report', out, '--format', 'prometheus'], { timeoutMs: 30_000 });
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout).toBe(text);
      const two = await runCli(['report', out, out, '--format', 'prometheus'], { timeoutMs: 30_000 });
      expect(two.code).toBe(2);
      expect(two.stderr).toMatch(/--format prometheus writes one run: give one result file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});

describe('run --prometheus, checked first', () => {
  it('refuses a file in a missing directory before any work', async () => {
    const missing = await runCli(['run', '--prometheus', join('no-such-dir', 'x.prom')], { timeoutMs: 30_000 });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--prometheus no-such-dir\/x\.prom: there is no directory/);
  });
});
