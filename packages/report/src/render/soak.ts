import { failedCalls, goodput, type ResultFile, type ServerMemory } from '@mcp-db-bench/contract';
import { int, median } from '../format.js';
import { summarize } from '../histogram.js';
import { REFUSED } from './groups.js';
import type { Section } from './table.js';

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Growth: the median of the last tenth of the samples against the median of the first tenth. */
export function memoryGrowth(samples: ServerMemory['samples']): { start: number; end: number; ratio: number } {
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  // memory moves with every collection, so the ends are compared as medians
  const start = median(samples.slice(0, tenth).map((s) => s.rss));
  const end = median(samples.slice(-tenth).map((s) => s.rss));
  return { start, end, ratio: start ? end / start - 1 : 0 };
}

/**
 * The tables of a `soak` result file: the load held and the server's memory, peak and growth,
 * then over time. None for a file without memory samples.
 */
export function soakSections(result: ResultFile): Section[] {
  const c = result.config;
  return (result.memory ?? []).flatMap((memory): Section[] => {
    const step = result.steps.find((s) => s.target === memory.target);
    if (!step || memory.samples.length === 0) return [];
    const g = memoryGrowth(memory.samples);
    const peak = Math.max(...memory.samples.map((s) => s.rss));
    const latency = summarize(step.all.histogram);
    const minute = Math.max(1, Math.round(60_000 / memory.everyMs));
    return [
      {
        title:
          `Server memory under ${c.agents[0] ?? step.agents} agents (${step.workload}, ${c.protocol} protocol), ` +
          `${c.workers ?? 1} worker process(es)`,
        note:
          `\`${c.command ?? 'mcp-db-bench soak'}\`: ${(step.durationMs / 1000).toFixed(0)} s measured ` +
          `after ${(c.warmupMs / 1000).toFixed(0)} s of warm-up; ` +
          "memory of the server and its workers (each process's anonymous pages, plus the shared file pages once)",
        head: [
          'operations',
          'calls/s',
          'errors',
          'refused',
          're-initialized',
          'p50 ms',
          'p99 ms',
          'start MB',
          'end MB',
          'peak MB',
          'growth',
        ],
        rows: [
          [
            int(step.calls),
            int(goodput(step)),
            int(failedCalls(step)),
            int(step.errors[REFUSED] ?? 0),
            int(step.reinitialized ?? 0),
            (latency.p50 / 1000).toFixed(2),
            (latency.p99 / 1000).toFixed(2),
            mb(g.start),
            mb(g.end),
            mb(peak),
            `${(g.ratio * 100).toFixed(1)}%`,
          ],
        ],
      },
      {
        title: 'Memory over time (one sample a minute)',
        head: ['at', 'MB'],
        rows: memory.samples
          .filter((_, i) => i % minute === 0 || i === memory.samples.length - 1)
          .map((s) => [`${(s.atMs / 1000).toFixed(0)} s`, mb(s.rss)]),
      },
    ];
  });
}

/** What `soak` prints: its warnings (report shows them in its header), then its tables. */
export function soakReport(result: ResultFile): Section[] {
  const warnings = result.warnings.length
    ? [{ title: 'Warnings', head: ['warning'], rows: result.warnings.map((w) => [w]) }]
    : [];
  return [...warnings, ...soakSections(result)];
}
