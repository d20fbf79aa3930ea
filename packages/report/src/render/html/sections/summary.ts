import { failedCalls, type ResultFile } from '@mcp-db-bench/contract';
import { int } from '../../../format.js';
import { judged, machineLines, withheldLines } from '../../../verdicts.js';
import { namesLegend } from '../../legend.js';
import { skippedLines } from '../../report.js';
import { formatStages } from '../../stages.js';
import type { Run, RunSummary } from '../types.js';

export function runSummary(run: Run): RunSummary {
  const r = run.result;
  const e = r.environment;
  const c = r.config;
  const calls = r.steps.reduce((n, s) => n + s.calls, 0);
  const errors = r.steps.reduce((n, s) => n + failedCalls(s), 0);
  const measuredMs = r.steps.reduce((n, s) => n + s.durationMs, 0);
  const stages = loadStages(r);
  return {
    label: run.label,
    facts: [
      { key: 'tool', label: 'tool', text: `${r.tool.name} ${r.tool.version}` },
      { key: 'started', label: 'started', text: r.startedAt },
      {
        key: 'targets',
        label: 'targets',
        text: c.targets
          .map((t) => (t.engine ? `${t.label} (${t.url ?? t.engine})` : `${t.label}${t.url ? ` (${t.url})` : ''}`))
          .join(', '),
      },
      {
        key: 'environment',
        label: 'environment',
        text:
          `${e.cpuModel} × ${e.cpus}, ${int(e.memoryMb)} MB, Node ${e.node}, ${e.platform}/${e.arch}, load ` +
          `${e.loadAverage.map((l) => l.toFixed(2)).join(' ')}`,
      },
      { key: 'workloads', label: 'workloads', text: c.workloads.join(', ') },
      { key: 'agents', label: 'agents', text: c.agents.map(int).join(', ') },
      ...(stages ? [{ key: 'stages', label: 'load stages', text: stages }] : []),
      {
        key: 'configuration',
        label: 'configuration',
        text: [
          `${c.durationMs / 1000} s per step after ${c.warmupMs / 1000} s warm-up`,
          `${int(c.iterations)} iteration(s)`,
          `${c.client} client, ${c.protocol} protocol`,
          c.rate ? `open loop at ${int(c.rate)} calls/s` : 'closed loop',
          ...(c.scale !== null ? [`scale ${c.scale}`] : []),
          ...(c.indexes.length ? [`indexes ${c.indexes.join(', ')}`] : []),
          `seed ${c.seed}`,
        ].join(' · '),
      },
      { key: 'steps', label: 'steps measured', text: int(r.steps.length), value: r.steps.length },
      { key: 'calls', label: 'successful calls', text: calls.toLocaleString('en-US'), value: calls },
      { key: 'errors', label: 'failed calls', text: errors.toLocaleString('en-US'), value: errors },
      {
        key: 'measured-seconds',
        label: 'measured time',
        text: `${(measuredMs / 1000).toFixed(1)} s`,
        value: measuredMs / 1000,
      },
    ],
    warnings: [
      ...(r.partial ? [`partial: the run was interrupted; these are the ${r.steps.length} step(s) it finished`] : []),
      ...machineLines([r], judged(r)),
      ...withheldLines(judged(r)),
      ...r.warnings,
    ],
    // what the rows' names mean (the era, the echo rows), then what was skipped
    notes: [...namesLegend(r), ...skippedLines(r.skipped ?? [])],
  };
}

/** A staged run's stages as typed: `agents 5s:1,2s:16` or `calls/s 10s:100,30s:1000`. */
export function loadStages(result: ResultFile): string | undefined {
  const stages = result.config.stages;
  return stages ? `${stages.kind === 'rate' ? 'calls/s' : 'agents'} ${formatStages(stages.stages)}` : undefined;
}
