/**
 * What a run compared, as the terminal, Markdown and HTML reports show it: index sets, servers
 * (or engines) side by side, and MCP echo against the bare floor. Every ratio is one of the run's
 * comparisons (`comparisonsOf`) with its verdict (`judged`), written by `ratio`: the text the
 * findings show for it too.
 */
import type { Comparison, ResultFile, StepResult } from '@mcp-db-bench/contract';
import { comparisonBetween, comparisonsOf, FLOOR_LABEL, sidesOf, stepsOf } from '../comparisons.js';
import { int, median, ms, pct, rate, ratio } from '../format.js';
import { summary } from '../histogram.js';
import { servedBy } from '../served.js';
import { judged } from '../verdicts.js';
import { type Group, groupHistogram, groupSteps, medianGoodput, medianRate, roundLabel } from './groups.js';
import { ratioLegend } from './legend.js';
import type { Section } from './table.js';

/** One index comparison: its two sets' median rates (in the workload's unit) and its ratios as they read. */
export interface IndexRow {
  target: string;
  workload: string;
  agents: number;
  /** the index sets, base first */
  sets: [string | null, string | null];
  rates: [number, number];
  unit: 'calls' | 'commits';
  /** the rate ratio and the p50 ratio, as `ratio` writes them */
  speedup: string;
  p50: string;
  comparison: Comparison;
}

/** Every index set the run compared with its first, per target, workload and agent count. */
export function indexRows(result: ResultFile): IndexRow[] {
  const j = judged(result);
  return comparisonsOf(result)
    .filter((c) => c.kind === 'indexes')
    .map((c) => {
      const { base, other } = sidesOf(c);
      return {
        target: c.other.target,
        workload: c.workload,
        agents: c.agents,
        sets: [base.indexes, other.indexes],
        rates: [medianRate(stepsOf(result, base)), medianRate(stepsOf(result, other))],
        unit: c.unit ?? 'calls',
        speedup: ratio(j.of(c)),
        p50: ratio(j.of(c, 'p50')),
        comparison: c,
      };
    });
}

/** The unit note a table of rates needs when some of them count commits. */
export const unitNote = (units: readonly string[]) =>
  units.includes('commits')
    ? '/s: successful calls, or committed transactions where the workload counts them (transfer)'
    : '';

export function speedupSection(result: ResultFile): Section[] {
  const rows = indexRows(result);
  const [first] = rows;
  return [
    {
      title: `Index speed-up: ${first?.sets[1] ?? 'optimized'} versus ${first?.sets[0] ?? 'baseline'}`,
      note: [ratioLegend(judged(result), result.config.iterations), unitNote(rows.map((r) => r.unit))]
        .filter(Boolean)
        .join('; '),
      head: ['target', 'workload', 'agents', `${first?.sets[0]} /s`, `${first?.sets[1]} /s`, 'speed-up', 'p50'],
      rows: rows.map((r) => [
        r.target,
        r.workload,
        int(r.agents),
        rate(r.rates[0]),
        rate(r.rates[1]),
        r.speedup,
        r.p50,
      ]),
    },
  ];
}

/** Servers side by side, as numbers: each workload and agent count, each target's rate and p50 (none: not measured). */
export interface ServerComparison {
  /** Engines when every target is an engine the run started and served with ours alone, else Servers */
  what: 'Engines' | 'Servers';
  /** the index set compared (the last the run measured), null: the indexes as found */
  indexes: string | null;
  targets: string[];
  /** per target, what its ratio is against: the first, or a peer's (run --peer) our server on its database */
  against: string[];
  rows: {
    workload: string;
    agents: number;
    /** `comparison`: the run's comparison of the rate with the first target's */
    cells: ({ rate: number; p50Ms: number; comparison?: Comparison } | undefined)[];
  }[];
}

/**
 * The index set a summary shows: the last the run measured (null: the indexes as found). An
 * interrupted run may have finished steps of its first round only: the last with a step.
 */
export const lastIndexSet = (result: ResultFile): string | null => {
  const measured = result.config.indexes.filter((set) => result.steps.some((s) => s.indexes === set));
  return measured.at(-1) ?? result.config.indexes.at(-1) ?? null;
};

/** Engines (or other servers) side by side, when a run measured several; undefined when it measured one. */
export function serverComparison(groups: readonly Group[], result: ResultFile): ServerComparison | undefined {
  // the bare echo floor answers echo alone: it is the load generator's check, not a server compared
  const compared = result.config.targets.filter((t) => t.label !== FLOOR_LABEL);
  const targets = compared.map((t) => t.label);
  if (targets.length < 2) return undefined;
  const indexes = lastIndexSet(result);
  // a peer is compared with our server on its own database, never with ours on another
  const served = servedBy(result);
  const ours = targets.map((t) => served.find((s) => s.label === t)?.ours);
  const keys = [...new Set(groups.map((g) => `${g.workload}\u0000${g.agents}`))];
  const rows = keys.map((k) => {
    const [workload, agents] = k.split('\u0000') as [string, string];
    const found = targets.map((t) =>
      groups.find(
        (x) =>
          x.target === t &&
          x.workload === workload &&
          String(x.agents) === agents &&
          (x.indexes === indexes || x.indexes === null),
      ),
    );
    const first = found.find((g) => g !== undefined);
    const cells = found.map((g, i) => {
      if (!g) return undefined;
      const base = ours[i] ? found[targets.indexOf(ours[i])] : first;
      const c = base && g !== base ? comparisonBetween(result, 'targets', base, g) : undefined;
      return {
        rate: medianRate(g.steps),
        p50Ms: summary(groupHistogram(g)).p50 / 1000,
        ...(c && { comparison: c }),
      };
    });
    return { workload, agents: Number(agents), cells };
  });
  return {
    // a peer run (run --peer) serves the same engines through other servers
    what: compared.every((t) => t.engine && !t.peer) ? 'Engines' : 'Servers',
    indexes,
    targets,
    against: ours.map((o) => o ?? targets[0]!),
    // a workload none of them ran (the floor's http-echo) is no row
    rows: rows.filter((r) => r.cells.some((x) => x !== undefined)),
  };
}

export function comparisonSection(groups: readonly Group[], result: ResultFile): Section[] {
  const c = serverComparison(groups, result);
  if (!c) return [];
  const j = judged(result);
  const rows = c.rows.map((r) => [
    r.workload,
    int(r.agents),
    ...r.cells.map((x) =>
      x ? `${rate(x.rate)} /s, p50 ${ms(x.p50Ms * 1000)}${x.comparison ? `, ${ratio(j.of(x.comparison))}` : ''}` : '–',
    ),
  ]);
  const paired = c.rows.some((r) => r.cells.some((x) => x?.comparison));
  const units = [...new Set(result.steps.map((s) => (s.commits ? 'commits' : 'calls')))];
  return [
    {
      // the cells' units, once, in the title: each cell is `calls/s, p50 ms[, calls/s against the first]`
      title: `${c.what} compared (${c.indexes ?? 'as found'} indexes): calls/s, p50 ms${paired ? `, calls/s against ${c.against.some((a) => a !== c.targets[0]) ? `${c.targets[0]} (a peer: against ours on its database)` : c.targets[0]}` : ''}`,
      ...(paired && {
        note: [ratioLegend(j, result.config.iterations), unitNote(units)].filter(Boolean).join('; '),
      }),
      head: ['workload', 'agents', ...c.targets],
      rows,
    },
  ];
}

/**
 * Is the harness the bottleneck? MCP echo against the bare node:http floor, and client CPU: a row
 * per server and agent count, the median of its iterations (merged as every table merges them).
 * Echo against the floor is the run's comparison of the two, which took turns within each step.
 */
export function loadGeneratorSection(result: ResultFile): Section {
  const groups = groupSteps(result.steps).filter((g) => g.workload === 'echo' || g.workload === 'http-echo');
  const med = (g: Group, f: (s: StepResult) => number) => median(g.steps.map(f));
  const iterations = Math.max(0, ...groups.map((g) => g.steps.length));
  const floor = (g: Group) =>
    comparisonsOf(result).find(
      (c) => c.kind === 'floor' && c.other.target === g.target && c.workload === g.workload && c.agents === g.agents,
    );
  const rows = groups.map((g) => [
    g.workload === 'echo' ? `MCP echo (${roundLabel(g)})` : `${FLOOR_LABEL} echo`,
    int(g.agents),
    rate(medianGoodput(g).median),
    g.workload === 'http-echo' ? '1 (the floor)' : ratio(judged(result).of(floor(g))),
    int(med(g, (s) => s.client.cpuPerCallUs)),
    pct(med(g, (s) => s.client.cpuUtilization)),
    med(g, (s) => s.client.eventLoopDelayP99Ms).toFixed(1),
  ]);
  return {
    title: 'Load generator check: echo through MCP versus a bare node:http JSON echo, same client stack',
    note:
      `${iterations > 1 ? `each row the median of ${iterations} iterations; ` : ''}` +
      'MCP echo and the bare floor take turns within each step, so drift lands on both; "against the floor" is ' +
      'their calls/s ratio, paired per iteration',
    head: ['server', 'agents', 'calls/s', 'against the floor', 'client CPU µs/call', 'client CPU', 'event-loop p99 ms'],
    rows,
  };
}
