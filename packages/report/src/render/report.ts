import { failedCalls, isWithheld, type ResultFile, type StepResult, throughput } from '@mcp-db-bench/contract';
import { int, median, ms, pct, rate } from '../format.js';
import { merge, summary } from '../histogram.js';
import { judged, machineLines, ratioName, withheldWhy } from '../verdicts.js';
import { commitsSection } from './commits.js';
import { floorSections } from './floor.js';
import { type Group, groupSteps, medianGoodput, REFUSED, roundLabel } from './groups.js';
import { namesLegend } from './legend.js';
import { operationsSection } from './operations.js';
import { overrunSection } from './overrun.js';
import { comparisonSection, loadGeneratorSection, speedupSection } from './ratios.js';
import { byTrace, replayLine, replaySections, rowsNamedBy } from './replay.js';
import { soakSections } from './soak.js';
import { formatStages, stageSections } from './stages.js';
import { type Section, wrap } from './table.js';
import { agreementSection, callTokenSection, disagreementLines, tokenSection } from './tokens.js';
import { traceSplitSection } from './trace-split.js';
import { verificationSection } from './verification.js';

const label = roundLabel;

/**
 * Every report is rendered from the result file alone, by these pure functions. Iterations of
 * one step are combined by merging histograms (percentiles are never averaged) and by the
 * median of their rates, with the spread shown.
 */
export function reportSections(file: ResultFile): Section[] {
  const result = byTrace(file);
  const groups = groupSteps(result.steps);
  const named = rowsNamedBy(result);
  return [
    sessionInitSection(result),
    latencySection(groups),
    operationsSection(result),
    overrunSection(result),
    ...replaySections(result),
    sessionSection(groups),
    ...stageSections(result),
    commitsSection(result),
    verificationSection(result),
    scalingSection(groups),
    ...speedupSection(result),
    ...comparisonSection(groups, result),
    withheldSection(result),
    ...decompositionSection(result),
    traceSplitSection(groups),
    agreementSection(result),
    tokenSection(result),
    callTokenSection(result),
    serverCpuSection(groups, result),
    loadGeneratorSection(result),
    // floor's and soak's own tables, from the files they write
    ...floorSections(result),
    ...soakSections(result),
  ]
    .filter((s): s is Section => s !== undefined && s.rows.length > 0)
    .map((s) => (s.head[0] === 'target' ? { ...s, head: [named, ...s.head.slice(1)] } : s));
}

/** The lines above the tables: what ran, where and how; with `width` (a terminal's columns), wrapped to it. */
export function reportHeader(file: ResultFile, width?: number): string {
  const result = byTrace(file);
  const e = result.environment;
  const c = result.config;
  const lines = [
    `mcp-db-bench ${result.tool.version} · ${result.startedAt}`,
    `${e.cpuModel} × ${e.cpus}, ${int(e.memoryMb)} MB, Node ${e.node}, load ${e.loadAverage.map((l) => l.toFixed(2)).join(' ')}`,
    `workloads ${c.workloads.join(', ')} · ${loadLine(c)} · ${c.durationMs / 1000} s per step after ${c.warmupMs / 1000} s warm-up · ${int(c.iterations)} iteration(s) · ${c.client} client, ${c.protocol} protocol${c.scale !== null ? ` · scale ${c.scale}` : ''}`,
    ...databaseLines(c),
    ...namesLegend(result),
    ...(c.cpus
      ? [`servers the run started on CPUs ${c.cpus.server ?? 'any'} · load generator on CPUs ${c.cpus.client ?? 'any'}`]
      : []),
    ...(c.shard ? [shardLine(c.shard)] : []),
    ...(c.replay ? [replayLine(c.replay)] : []),
    ...(result.partial
      ? [`partial: the run was interrupted; these are the ${int(result.steps.length)} step(s) it finished`]
      : []),
    ...machineLines([result], judged(result), { quiet: true }),
    ...result.warnings.map((w) => `warning: ${w}`),
    ...disagreementLines(result),
    ...skippedLines(result.skipped ?? []),
  ].join('\n');
  return width ? wrap(lines, width) : lines;
}

/** Each database the run served, as read from it: version, dataset, the settings that decide the result, indexes per index set. */
function databaseLines(c: ResultFile['config']): string[] {
  const seen = new Set<string>();
  return c.targets.flatMap((t) => {
    const d = t.database;
    if (!d || seen.has(t.url ?? t.label)) return [];
    seen.add(t.url ?? t.label);
    const settings = Object.entries(d.settings).map(([name, value]) => `${name} ${value}`);
    // in the run's order of index sets, whichever it applied first
    const order = (p: string) => (c.indexes.includes(p) ? c.indexes.indexOf(p) : c.indexes.length);
    const indexes = Object.entries(d.indexes)
      .sort(([a], [b]) => order(a) - order(b))
      .map(([set, list]) => `${set} ${list.length}`);
    const dataset = `dataset scale ${d.scale ?? 'unknown'}${d.seed === null ? '' : ` (seed ${d.seed})`}`;
    return [
      [
        `${t.engine}: ${d.version}`,
        dataset,
        settings.join(', '),
        indexes.length && `secondary indexes: ${indexes.join(', ')}`,
      ]
        .filter(Boolean)
        .join(' · '),
    ];
  });
}

/** A shard's file, or a merged run of shards: the numbers above are one part's, or every part's. */
function shardLine(shard: NonNullable<ResultFile['config']['shard']>): string {
  const part =
    shard.index === undefined
      ? `${shard.count} shards merged`
      : `shard ${shard.index} of ${shard.count} (0-based; merge all ${shard.count} files for the run)`;
  return `${part} · run ${shard.runId}, begun at ${shard.startAt}`;
}

/** The load asked for: agent counts, or the stages that set it. */
function loadLine(c: ResultFile['config']): string {
  if (c.stages?.kind === 'agents') return `agent stages ${formatStages(c.stages.stages)}`;
  if (c.stages?.kind === 'rate')
    return `rate stages ${formatStages(c.stages.stages)} (calls/s), ${c.agents.map(int).join(', ')} agents`;
  const own = Object.entries(c.workloadAgents ?? {}).map(([w, counts]) => `; ${w} ${counts.map(int).join(', ')}`);
  return `agents ${c.agents.map(int).join(', ')}${own.join('')}`;
}

/** One line per target: the workloads it could not serve (each one's reason is in the result file); never errors. */
export function skippedLines(skipped: NonNullable<ResultFile['skipped']>): string[] {
  const targets = [...new Set(skipped.map((s) => s.target))];
  return targets.map((t) => {
    const mine = skipped.filter((s) => s.target === t);
    const reasons = [...new Set(mine.map((s) => s.reason))];
    // a profile's own words when it gave them; the generic reason otherwise
    const why = reasons.every((r) => r.startsWith('it has no')) ? 'it lacks tools they need' : reasons.join('; ');
    return `skipped on ${t}: ${mine.map((s) => s.workload).join(', ')} (${why})`;
  });
}

function sessionInitSection(result: ResultFile): Section {
  type Measured = Pick<ResultFile['sessionInit'][number], 'cold' | 'warm' | 'full'>;
  const cells = (s: ResultFile['sessionInit'][number], m: Measured, pass: string) => {
    const cold = summary(merge([m.cold.histogram]));
    const warm = summary(merge([m.warm.histogram]));
    const full =
      m.full && `${ms(summary(merge([m.full.histogram])).p50)}${s.allTables ? ` (${int(s.allTables)} tables)` : ''}`;
    return [
      label(s),
      pass,
      s.taskTables?.join(', ') ?? 'all',
      ms(cold.p50),
      ms(cold.p99),
      ms(warm.p50),
      ms(warm.p95),
      ms(warm.p99),
      full ?? '–',
    ];
  };
  return {
    title:
      "Session init (whole agent start: handshake or discover, tools/list, list_tables, describe_table for the task's tables; full: for every table)",
    note:
      'cold: a new connection; warm: one kept open. first: the first pass, on a server just started; later: the ' +
      'last pass, on the same server after the run (its code paths compiled)',
    head: [
      'target',
      'pass',
      'task tables',
      'cold p50 ms',
      'cold p99 ms',
      'warm p50 ms',
      'warm p95 ms',
      'warm p99 ms',
      'full discovery warm p50 ms',
    ],
    rows: result.sessionInit.flatMap((s) => [
      cells(s, s, 'first'),
      ...(s.later ? [cells(s, s.later, `later (iteration ${int(s.later.iteration)})`)] : []),
    ]),
  };
}

/** The ratios withheld (fewer usable pairs than an interval needs), each with why. */
function withheldSection(result: ResultFile): Section {
  const j = judged(result);
  const rows = j.ratios
    .filter((r) => isWithheld(r.verdict))
    .map((r) => [ratioName(r.comparison, r.of), withheldWhy(r, j.rules)]);
  return {
    title: `Ratios withheld: ${int(rows.length)} of the run's ${int(j.family)}, too few usable pairs for an interval`,
    head: ['ratio', 'why'],
    rows,
  };
}

function latencySection(groups: readonly Group[]): Section {
  return {
    title:
      'Latency and throughput per workload (goodput: successful calls/s; throughput: calls attempted/s, failed ones ' +
      'included; errors are counted, never timed)',
    head: [
      'target',
      'workload',
      'agents',
      'goodput/s',
      'spread',
      'throughput/s',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'p99.9 ms',
      'errors',
    ],
    rows: groups.map((g) => {
      const h = summary(merge(g.steps.map((s) => s.all.histogram)));
      const good = medianGoodput(g);
      const errors = g.steps.reduce((n, s) => n + failedCalls(s), 0);
      return [
        label(g),
        g.workload,
        int(g.agents),
        rate(good.median),
        // one iteration has no spread to show
        g.steps.length > 1 ? pct(good.spread) : '–',
        rate(median(g.steps.map(throughput))),
        ms(h.p50),
        ms(h.p95),
        ms(h.p99),
        ms(h.p999),
        int(errors),
      ];
    }),
  };
}

/** One step group of the sessions table, as numbers. */
export interface SessionRow {
  group: Group;
  operationsPerSecond: number;
  refused: number;
  /** null: the result file predates counting them */
  reinitialized: number | null;
  otherErrors: number;
}

/**
 * What happened to sessions: every step of a session workload (so "0 refused" is said, not
 * implied), and any other step where the server refused calls or ended sessions under the agents.
 * The terminal, Markdown and HTML reports all show these rows.
 */
export function sessionRows(groups: readonly Group[]): SessionRow[] {
  const total = (g: Group, count: (s: StepResult) => number) => g.steps.reduce((n, s) => n + count(s), 0);
  const refused = (s: StepResult) => s.errors[REFUSED] ?? 0;
  const reinitialized = (s: StepResult) => s.reinitialized ?? 0;
  return groups
    .filter((g) => g.steps.some((s) => s.sessions) || g.steps.some((s) => refused(s) > 0 || reinitialized(s) > 0))
    .map((g) => ({
      group: g,
      operationsPerSecond: medianGoodput(g).median,
      refused: total(g, refused),
      reinitialized: g.steps.some((s) => s.reinitialized !== undefined) ? total(g, reinitialized) : null,
      otherErrors: total(g, (s) => Object.values(s.errors).reduce((a, b) => a + b, 0)) - total(g, refused),
    }));
}

export const SESSION_HEAD = [
  'target',
  'workload',
  'agents',
  'operations/s',
  'refused',
  're-initialized',
  'other errors',
];

function sessionSection(groups: readonly Group[]): Section {
  return {
    title:
      "Sessions (a session workload's operation is a whole session; refused = HTTP 503; re-initialized = a session the server ended (404), started again by the client and the call retried)",
    head: SESSION_HEAD,
    rows: sessionRows(groups).map((r) => [
      label(r.group),
      r.group.workload,
      int(r.group.agents),
      rate(r.operationsPerSecond),
      int(r.refused),
      r.reinitialized === null ? '–' : int(r.reinitialized),
      int(r.otherErrors),
    ]),
  };
}

/** Each target round's sweep of one workload over agent counts, sorted by agents: the scaling lines of every report. */
export function scalingSeries(groups: readonly Group[]): Group[][] {
  const series = new Map<string, Group[]>();
  for (const g of groups) {
    const k = `${label(g)}\u0000${g.workload}`;
    series.set(k, [...(series.get(k) ?? []), g]);
  }
  return [...series.values()].map((list) => [...list].sort((a, b) => a.agents - b.agents));
}

/** Goodput by concurrency: efficiency X(N) / (N × X(1)), and the knee where it stops growing. */
function scalingSection(groups: readonly Group[]): Section {
  const rows: string[][] = [];
  for (const sorted of scalingSeries(groups)) {
    if (sorted.length < 2) continue;
    const agents = sorted.map((g) => g.agents);
    const x = sorted.map((g) => medianGoodput(g).median);
    const eff = efficiency(agents, x);
    const cells = sorted.map((g, i) => `${int(g.agents)}: ${rate(x[i]!)} (${pct(eff[i]!)})`);
    rows.push([label(sorted[0]!), sorted[0]!.workload, cells.join(' · '), knee(agents, x)]);
  }
  return {
    title: 'Concurrency scaling: calls/s at each agent count (scaling efficiency)',
    head: ['target', 'workload', 'agents: calls/s (efficiency)', 'knee'],
    rows,
  };
}

/**
 * The first agent count after which goodput grows less than 10%: more agents only queue. A
 * knee needs growth before it: goodput that never grew past the first count has none.
 */
export function knee(agents: readonly number[], rates: readonly number[]): string {
  const i = kneeIndex(rates);
  const n = (k: number) => `${int(k)} agent${k === 1 ? '' : 's'}`;
  if (i === undefined) return `none up to ${n(agents.at(-1)!)}`;
  return i === 0 ? `none: no gain past ${n(agents[0]!)}` : n(agents[i]!);
}

/**
 * The index of the knee's agent count in a sweep sorted by agents: the first count that no later
 * one beats by 10% (a dip that later counts climb out of is noise, not a knee); undefined when
 * goodput kept growing.
 */
export function kneeIndex(rates: readonly number[]): number | undefined {
  for (let i = 0; i < rates.length - 1; i++) {
    if (rates.slice(i + 1).every((x) => x < rates[i]! * 1.1)) return i;
  }
  return undefined;
}

/** Scaling efficiency at each agent count: X(N) / (N × X(first) / first), 1 = linear. */
export function efficiency(agents: readonly number[], rates: readonly number[]): number[] {
  const perAgent = rates[0]! / agents[0]!;
  return rates.map((x, i) => (perAgent > 0 ? x / (perAgent * agents[i]!) : 0));
}

function decompositionSection(result: ResultFile): Section[] {
  const rows = result.decomposition.map((d) => {
    const raw = summary(merge([d.raw.histogram]));
    const echo = summary(merge([d.echo.histogram]));
    const full = summary(merge([d.full.histogram]));
    return [
      d.target,
      d.operation,
      ms(raw.p50),
      ms(echo.p50),
      ms(full.p50),
      pct(echo.p50 / full.p50),
      pct(raw.p50 / full.p50),
    ];
  });
  return [
    {
      title: 'Where the time goes (1 agent, p50): the database alone, the protocol alone, and the full call',
      note: 'raw = the same statement through the driver, no MCP; echo = an MCP tool call that skips the database',
      head: ['target', 'operation', 'raw driver ms', 'echo ms', 'full call ms', 'protocol share', 'database share'],
      rows,
    },
  ];
}

/** `run --server-cpus`: what each server the run started spent per call, beside what the load generator did. */
function serverCpuSection(groups: readonly Group[], result: ResultFile): Section {
  const rows = groups
    .filter((g) => g.steps.every((s) => s.server))
    .map((g) => [
      label(g),
      g.workload,
      int(g.agents),
      rate(medianGoodput(g).median),
      int(median(g.steps.map((s) => s.server!.cpuPerCallUs))),
      int(median(g.steps.map((s) => s.client.cpuPerCallUs))),
    ]);
  return {
    title: `Server CPU per call (user + system of the server's processes over each measured window, from /proc; servers on CPUs ${result.config.cpus?.server ?? 'any'})`,
    head: ['target', 'workload', 'agents', 'calls/s', 'server CPU µs/call', 'client CPU µs/call'],
    rows,
  };
}
