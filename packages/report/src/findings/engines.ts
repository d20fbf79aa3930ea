import type { Comparison, ResultFile } from '@mcp-db-bench/contract';
import { comparisonsOf } from '../comparisons.js';
import { shade } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import { lastIndexSet } from '../render/ratios.js';
import { OURS, servedBy } from '../served.js';
import type { Judged } from '../verdicts.js';
import {
  barChart,
  type Claim,
  colorOf,
  commandsOf,
  type Finding,
  ratioCell,
  targetsOf,
  verdictBars,
} from './common.js';

interface Pair {
  base: string;
  other: string;
}

interface PairRatio extends Pair {
  workload: string;
  agents: number;
  comparison: Comparison;
}

/** Every pair of databases, each later one against each earlier one (three give three pairs). */
const pairsOf = (labels: readonly string[]): Pair[] =>
  labels.flatMap((base, i) => labels.slice(i + 1).map((other) => ({ base, other })));

/** How a pair reads in a header: the engines' names where they tell the databases apart. */
function pairName(pair: Pair, targets: readonly { label: string; engine: string }[]): string {
  const engines = new Set(targets.map((t) => t.engine));
  const name = (label: string) =>
    engines.size === targets.length ? targets.find((t) => t.label === label)!.engine : label;
  return `${name(pair.other)} / ${name(pair.base)}`;
}

/** Our server's targets: the peers a run started (run --peer) are compared in "Servers compared". */
const oursOf = (files: readonly ResultFile[]) =>
  new Set(files.flatMap((f) => servedBy(f).filter((s) => s.server === OURS)).map((s) => s.label));

/** The databases compared: our server's targets, in the order the files list them. */
const databasesOf = (files: readonly ResultFile[]) => {
  const ours = oursOf(files);
  return targetsOf(files).filter((t) => ours.has(t.label));
};

/**
 * Every database against every other through our server, per workload and agent count, under the file's last index
 * set (or the first a workload without a database ran under): the run's comparisons of its
 * targets, which alternate within each iteration, so each pair ran close in time.
 */
function pairRatios(files: readonly ResultFile[]): PairRatio[] {
  return files.flatMap((f) => {
    const ours = oursOf([f]);
    const paired = comparisonsOf(f).filter(
      (c) => c.kind === 'targets' && ours.has(c.base.target) && ours.has(c.other.target),
    );
    const loads = [...new Set(paired.map((c) => `${c.workload}\u0000${c.agents}`))];
    return loads.flatMap((load) => {
      const mine = paired.filter((c) => `${c.workload}\u0000${c.agents}` === load);
      const indexes = [lastIndexSet(f), ...f.config.indexes, null].find((p) => mine.some((c) => c.other.indexes === p));
      return mine
        .filter((c) => c.other.indexes === indexes)
        .map((c) => ({
          base: c.base.target,
          other: c.other.target,
          workload: c.workload,
          agents: c.agents,
          comparison: c,
        }));
    });
  });
}

export function engineClaims(files: readonly ResultFile[], j: Judged): Claim[] {
  const targets = databasesOf(files);
  return pairRatios(files).flatMap((r) => {
    const verdict = j.of(r.comparison);
    return verdict
      ? [{ finding: 'engines compared', what: `${pairName(r, targets)} ${r.workload} × ${r.agents}`, verdict }]
      : [];
  });
}

export function enginesCompared(files: readonly ResultFile[], j: Judged): Finding | undefined {
  const ratioOf = (r: PairRatio | undefined) => j.of(r?.comparison);
  const ratios = pairRatios(files);
  const targets = databasesOf(files);
  const pairs = pairsOf(targets.map((t) => t.label));
  if (!pairs.length || !ratios.some((r) => ratioOf(r))) return undefined;
  const keyOf = (p: Pair) => `${p.other}\u0000${p.base}`;
  const cells = [...new Set(ratios.map((r) => `${r.workload}\u0000${r.agents}`))];
  const pairOf = (workload: string, agents: number, p: Pair) =>
    ratios.find((r) => r.workload === workload && r.agents === agents && keyOf(r) === keyOf(p));
  const find = (workload: string, agents: number, p: Pair) => ratioOf(pairOf(workload, agents, p));
  const rows: Cell[][] = cells.map((cell) => {
    const [workload, agents] = cell.split('\u0000') as [string, string];
    return [
      workload,
      agents,
      ...pairs.map((p) => {
        const r = pairOf(workload, Number(agents), p);
        return r ? ratioCell(j.of(r.comparison)) : '–';
      }),
    ];
  });
  const workloads = [...new Set(ratios.map((r) => r.workload))];
  const agentCounts = [...new Set(ratios.map((r) => r.agents))].sort((a, b) => a - b);
  // a bar per pair and agent count, grouped by workload: a colour per pair, paler for fewer agents
  const pairKeys = pairs.map((p) => ({ label: keyOf(p) }));
  const bars = pairs.flatMap((p) =>
    agentCounts.map((agents, i) => ({
      label: `${pairName(p, targets)} × ${agents}`,
      color: shade(colorOf(pairKeys, keyOf(p)), i, agentCounts.length),
      at: (workload: string) => find(workload, agents, p),
    })),
  );
  return {
    id: 'engines',
    title: 'Engines compared',
    note:
      'Each database against each other one through our server (through the other servers the study started: ' +
      '"Servers compared"): calls/s (transfers: committed/s) over calls/s, paired per iteration ' +
      '(the databases alternate within each iteration), median and interval; above 1 the first-named is faster. ' +
      'Optimized indexes (the handshake reads no table). Each judged by the ' +
      'claims rules (the legend above). The chart: medians on a log axis with their intervals.',
    head: ['workload', 'agents', ...pairs.map((p) => pairName(p, targets))],
    rows,
    chart: barChart(
      'engines',
      'Engine against engine (calls/s ratio, median)',
      workloads,
      { label: 'ratio ×', log: 10 },
      bars
        .filter((b) => workloads.some((w) => b.at(w)))
        .map((b) => ({
          label: b.label,
          color: b.color,
          ...verdictBars(workloads.map((w) => b.at(w))),
        })),
    ),
    commands: commandsOf(files.filter((f) => f.config.targets.length > 1)),
  };
}
