import {
  formatRatio,
  type RatioInterval,
  type ResultFile,
  ratioInterval,
  type StepResult,
} from '@mcp-db-bench/contract';
import { summarize } from '../histogram.js';
import type { ChartSpec, SeriesSpec } from '../render/html/charts.js';
import { MEANING, seriesColor, shade } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import { callsPerSecond, median } from '../render/numbers.js';

/**
 * The study's findings, each a pure function of the study's result files: a table whose ratios
 * carry their interval, a chart of the same numbers, and the commands that measured them.
 */
export interface Finding {
  id: string;
  title: string;
  note: string;
  head: string[];
  rows: Cell[][];
  chart: ChartSpec;
  /** the command lines of the result files it reads (config.command), each once */
  commands: string[];
}

const ms = (us: number) => us / 1000;
const msText = (x: number) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
const rate = (x: number) => Math.round(x).toLocaleString('en-US');

/** A ratio as a cell: its text ("no difference measured" when the interval crosses 1), its median as the value. */
function ratioCell(r: RatioInterval | undefined): Cell {
  if (!r) return '–';
  return { text: formatRatio(r), value: r.median, tone: r.differs ? (r.median > 1 ? 'good' : 'bad') : 'noise' };
}

/** Targets in the order the files list them, each with its engine. */
function targetsOf(files: readonly ResultFile[]): { label: string; engine: string }[] {
  const seen = new Map<string, string>();
  for (const f of files)
    for (const t of f.config.targets) if (!seen.has(t.label)) seen.set(t.label, t.engine ?? t.label);
  return [...seen].map(([label, engine]) => ({ label, engine }));
}

const commandsOf = (files: readonly ResultFile[]) => [
  ...new Set(files.flatMap((f) => (f.config.command ? [f.config.command] : []))),
];

const colorOf = (targets: readonly { label: string }[], label: string) =>
  seriesColor(
    { subject: label, indexes: null },
    targets.map((t) => t.label),
  );

/** A ratio's interval for a chart's whisker (none from one iteration). */
const whisker = (r: RatioInterval | undefined): [number, number] | null => (r && r.n > 1 ? [r.low, r.high] : null);

/** Median calls/s of the steps that match. */
const medianRate = (steps: readonly StepResult[]) => (steps.length ? median(steps.map(callsPerSecond)) : undefined);

/** The iterations' range of calls/s, for a whisker (none from one iteration). */
function rateRange(steps: readonly StepResult[]): [number, number] | null {
  const rates = steps.map(callsPerSecond);
  return rates.length > 1 ? [Math.min(...rates), Math.max(...rates)] : null;
}

/** A bar chart over categories, a series per target (one colour per engine). */
function barChart(
  id: string,
  title: string,
  categories: string[],
  axis: { label: string; log?: 10 },
  series: { label: string; color: string; values: (number | null)[]; intervals?: ([number, number] | null)[] }[],
): ChartSpec {
  return {
    id,
    title,
    x: { label: '', ticks: categories.map((label, value) => ({ value, label })) },
    axes: [{ scale: 'y', label: axis.label, ...(axis.log ? { log: axis.log } : {}) }],
    series: series.map(
      (s): SeriesSpec => ({
        label: s.label,
        scale: 'y',
        color: s.color,
        bars: true,
        ...(s.intervals ? { intervals: s.intervals } : {}),
      }),
    ),
    data: [categories.map((_, i) => i), ...series.map((s) => s.values)],
  };
}

/** Index effect: per database, workload and agents, optimized over baseline, paired by iteration. */
export function indexEffect(files: readonly ResultFile[]): Finding | undefined {
  const used = files.filter((f) => f.comparisons?.some((c) => c.kind === 'indexes'));
  if (!used.length) return undefined;
  const targets = targetsOf(used);
  const rows: Cell[][] = [];
  const byCategory = new Map<string, Map<string, RatioInterval>>();
  const agentCounts: number[] = [];
  for (const f of used)
    for (const c of f.comparisons!.filter((c) => c.kind === 'indexes')) {
      const r = ratioInterval(c.throughput);
      const side = (indexes: string | null) =>
        medianRate(
          f.steps.filter(
            (s) =>
              s.target === c.base.target && s.workload === c.workload && s.agents === c.agents && s.indexes === indexes,
          ),
        );
      const [base, other] = [side(c.base.indexes), side(c.other.indexes)];
      rows.push([
        c.base.target,
        c.workload,
        String(c.agents),
        base === undefined ? '–' : { text: rate(base), value: base },
        other === undefined ? '–' : { text: rate(other), value: other },
        ratioCell(r),
      ]);
      // a bar per database and agent count, grouped by workload: few enough groups for level labels
      if (!byCategory.has(c.workload)) byCategory.set(c.workload, new Map());
      if (r) byCategory.get(c.workload)!.set(`${c.base.target} × ${c.agents}`, r);
      if (!agentCounts.includes(c.agents)) agentCounts.push(c.agents);
    }
  const categories = [...byCategory.keys()];
  agentCounts.sort((a, b) => a - b);
  const bars = targets.flatMap((t) =>
    agentCounts.map((agents, i) => ({
      key: `${t.label} × ${agents}`,
      color: shade(colorOf(targets, t.label), i, agentCounts.length),
    })),
  );
  return {
    id: 'index-effect',
    title: 'The index effect per database',
    note:
      'Optimized over baseline indexes: calls/s paired per iteration, median and its interval. "~ (low–high)" is no ' +
      'difference measured: the interval crosses 1.0. The chart shows the medians on a log axis, each with its ' +
      'interval: a colour per database, paler for fewer agents.',
    head: ['database', 'workload', 'agents', 'baseline calls/s', 'optimized calls/s', 'speed-up'],
    rows,
    chart: barChart(
      'index-effect',
      'Index speed-up (optimized / baseline, median)',
      categories,
      { label: 'speed-up ×', log: 10 },
      bars.map((b) => ({
        label: b.key,
        color: b.color,
        values: categories.map((c) => byCategory.get(c)!.get(b.key)?.median ?? null),
        intervals: categories.map((c) => whisker(byCategory.get(c)!.get(b.key))),
      })),
    ),
    commands: commandsOf(used),
  };
}

/**
 * Concurrency scaling: per database and workload, calls/s at each agent count (optimized indexes),
 * and its ratio to 1 agent paired per iteration (the steps of one iteration ran close in time).
 */
export function concurrencyScaling(files: readonly ResultFile[]): Finding | undefined {
  const used = files.filter((f) => f.config.agents.length > 1 && !f.config.workloads.includes('session-init'));
  if (!used.length) return undefined;
  const targets = targetsOf(used);
  const indexes = (f: ResultFile) => f.config.indexes.at(-1) ?? null;
  const workloads = [...new Set(used.flatMap((f) => f.config.workloads))];
  const rows: Cell[][] = [];
  const lines: {
    label: string;
    color: string;
    points: Map<number, number>;
    ranges: Map<number, [number, number] | null>;
  }[] = [];
  const agentsAll = [...new Set(used.flatMap((f) => f.config.agents))].sort((a, b) => a - b);
  for (const f of used)
    for (const workload of f.config.workloads)
      for (const t of f.config.targets) {
        const steps = f.steps.filter(
          (s) => s.target === t.label && s.workload === workload && s.indexes === indexes(f),
        );
        const at = (agents: number) => steps.filter((s) => s.agents === agents);
        const first = Math.min(...f.config.agents);
        const points = new Map<number, number>();
        const ranges = new Map<number, [number, number] | null>();
        for (const agents of f.config.agents) {
          const here = medianRate(at(agents));
          if (here === undefined) continue;
          points.set(agents, here);
          ranges.set(agents, rateRange(at(agents)));
          const paired = at(agents).flatMap((s) => {
            const one = at(first).find((o) => o.iteration === s.iteration);
            return one && callsPerSecond(one) > 0 ? [callsPerSecond(s) / callsPerSecond(one)] : [];
          });
          rows.push([
            t.label,
            workload,
            String(agents),
            { text: rate(here), value: here },
            agents === first ? '1 (reference)' : ratioCell(ratioInterval(paired)),
          ]);
        }
        const color = shade(colorOf(targets, t.label), workloads.indexOf(workload), workloads.length);
        lines.push({ label: `${t.label} ${workload}`, color, points, ranges });
      }
  return {
    id: 'concurrency',
    title: 'Concurrency scaling per database',
    note:
      'Calls/s at each agent count (optimized indexes, median of the iterations) and the ratio to the fewest agents, ' +
      'paired per iteration with its interval. In the chart each database has its colour, each workload a shade of ' +
      `it, palest first (${workloads.join(', ')}); whiskers span the iterations.`,
    head: ['database', 'workload', 'agents', 'calls/s', 'against the fewest agents'],
    rows,
    chart: {
      id: 'concurrency',
      title: 'Calls/s by agents',
      x: { label: 'agents', log: 2 },
      axes: [{ scale: 'y', label: 'calls/s', log: 10 }],
      series: lines.map((l) => ({
        label: l.label,
        scale: 'y',
        color: l.color,
        intervals: agentsAll.map((a) => l.ranges.get(a) ?? null),
      })),
      data: [agentsAll, ...lines.map((l) => agentsAll.map((a) => l.points.get(a) ?? null))],
    },
    commands: commandsOf(used),
  };
}

/**
 * Where the time goes: the decomposition's p50s (the statement through the driver alone, the
 * echo tool: MCP and HTTP alone, the whole call) as shares that add to 100%. The database's share
 * is raw / whole, the protocol's echo / whole, the server's own work the rest; when raw and echo
 * together exceed the whole call (they overlap in it), both are scaled to it and the rest is 0.
 */
export function shares(raw: number, echo: number, full: number): { database: number; protocol: number; rest: number } {
  const whole = Math.max(full, raw + echo);
  if (whole <= 0) return { database: 0, protocol: 0, rest: 0 };
  const database = raw / whole;
  const protocol = echo / whole;
  return { database, protocol, rest: 1 - database - protocol };
}

export function timeShares(files: readonly ResultFile[]): Finding | undefined {
  const seen = new Set<string>();
  const parts: { target: string; operation: string; raw: number; echo: number; full: number; file: ResultFile }[] = [];
  for (const f of files)
    for (const d of f.decomposition) {
      const key = `${d.target} ${d.operation}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const p50 = (h: string) => ms(summarize(h).p50);
      parts.push({
        target: d.target,
        operation: d.operation,
        raw: p50(d.raw.histogram),
        echo: p50(d.echo.histogram),
        full: p50(d.full.histogram),
        file: f,
      });
    }
  if (!parts.length) return undefined;
  const pct = (x: number) => ({ text: `${Math.round(x * 100)}%`, value: x });
  const rows = parts.map((p) => {
    const s = shares(p.raw, p.echo, p.full);
    return [
      p.target,
      p.operation,
      { text: msText(p.full), value: p.full },
      { text: msText(p.raw), value: p.raw },
      { text: msText(p.echo), value: p.echo },
      pct(s.database),
      pct(s.protocol),
      pct(s.rest),
    ] satisfies Cell[];
  });
  const categories = parts.map((p) => `${p.target.split(' ')[0]} ${p.operation}`);
  const of = (k: 'database' | 'protocol' | 'rest') => parts.map((p) => shares(p.raw, p.echo, p.full)[k] * 100);
  return {
    id: 'time',
    title: 'Where the time goes: protocol against database',
    note:
      'p50 of one call end to end, of the same statement through the database driver alone (database), and of the ' +
      "echo tool (MCP and HTTP, no database: protocol). Shares of the whole: database and protocol, the server's own " +
      'work the rest; they add to 100% (when database and protocol together exceed the whole, both are scaled to it). ' +
      'Timed once, in the last iteration: no interval.',
    head: [
      'database',
      'operation',
      'call p50 ms',
      'database p50 ms',
      'protocol p50 ms',
      'database',
      'protocol',
      'rest',
    ],
    rows,
    chart: barChart('time', 'Share of a call (%)', categories, { label: '% of the call' }, [
      { label: 'database', color: MEANING.raw, values: of('database') },
      { label: 'protocol', color: MEANING.echo, values: of('protocol') },
      { label: 'rest (server)', color: MEANING.full, values: of('rest') },
    ]),
    commands: commandsOf([...new Set(parts.map((p) => p.file))]),
  };
}

/** Session start per database: the discovery a session begins with (cold and warm), and sessions/s with its interval against the first database. */
export function sessionStart(files: readonly ResultFile[]): Finding | undefined {
  const used = files.filter((f) => f.config.workloads.includes('session-init'));
  const source = used.length ? used : files.filter((f) => f.sessionInit.length);
  if (!source.length) return undefined;
  const targets = targetsOf(source);
  const f = source[0]!;
  const last = f.config.indexes.at(-1) ?? null;
  const rows: Cell[][] = [];
  const cold: (number | null)[] = [];
  const warm: (number | null)[] = [];
  for (const t of targets) {
    const init = f.sessionInit.find((s) => s.target === t.label);
    const c = init ? ms(summarize(init.cold.histogram).p50) : undefined;
    const w = init ? ms(summarize(init.warm.histogram).p50) : undefined;
    cold.push(c ?? null);
    warm.push(w ?? null);
    const steps = f.steps.filter((s) => s.target === t.label && s.workload === 'session-init' && s.indexes === last);
    const perSecond = medianRate(steps);
    const against = f.comparisons?.find(
      (c) =>
        c.kind === 'targets' && c.workload === 'session-init' && c.other.target === t.label && c.other.indexes === last,
    );
    rows.push([
      t.label,
      c === undefined ? '–' : { text: msText(c), value: c },
      w === undefined ? '–' : { text: msText(w), value: w },
      perSecond === undefined ? '–' : { text: rate(perSecond), value: perSecond },
      against ? ratioCell(ratioInterval(against.throughput)) : t === targets[0] ? '1 (reference)' : '–',
    ]);
  }
  return {
    id: 'sessions',
    title: 'Session start per database',
    note:
      'A session begins by discovering the schema: p50 ms on a new connection (cold) and on one kept open (warm), ' +
      'and whole sessions per second at 1 agent (median of the iterations) against the first database, paired per ' +
      'iteration with its interval.',
    head: ['database', 'cold p50 ms', 'warm p50 ms', 'sessions/s', `against ${targets[0]!.label}`],
    rows,
    chart: barChart(
      'sessions',
      'Session start p50 (ms)',
      targets.map((t) => t.label),
      { label: 'ms' },
      [
        { label: 'cold', color: MEANING.baseline, values: cold },
        { label: 'warm', color: MEANING.optimized, values: warm },
      ],
    ),
    commands: commandsOf([f]),
  };
}

/** Transfers per engine: calls/s of the money-moving workload, verified, against the first engine. */
export function transfers(files: readonly ResultFile[]): Finding | undefined {
  const used = files.filter((f) => f.config.workloads.includes('transfer'));
  if (!used.length) return undefined;
  const f = used[0]!;
  const targets = targetsOf([f]);
  const last = f.config.indexes.at(-1) ?? null;
  const rows: Cell[][] = [];
  const values = new Map<string, (number | null)[]>();
  const ranges = new Map<string, ([number, number] | null)[]>();
  for (const t of targets) {
    values.set(
      t.label,
      f.config.agents.map(() => null),
    );
    ranges.set(
      t.label,
      f.config.agents.map(() => null),
    );
    f.config.agents.forEach((agents, i) => {
      const steps = f.steps.filter(
        (s) => s.target === t.label && s.workload === 'transfer' && s.agents === agents && s.indexes === last,
      );
      const perSecond = medianRate(steps);
      if (perSecond === undefined) return;
      values.get(t.label)![i] = perSecond;
      ranges.get(t.label)![i] = rateRange(steps);
      const errors = steps.reduce((n, s) => n + Object.values(s.errors).reduce((a, b) => a + b, 0), 0);
      const verified = steps.every((s) => s.verification?.ok !== false);
      const against = f.comparisons?.find(
        (c) =>
          c.kind === 'targets' &&
          c.workload === 'transfer' &&
          c.agents === agents &&
          c.other.target === t.label &&
          c.other.indexes === last,
      );
      rows.push([
        t.label,
        String(agents),
        { text: rate(perSecond), value: perSecond },
        { text: String(errors), value: errors },
        verified ? 'yes' : 'NO',
        against ? ratioCell(ratioInterval(against.throughput)) : t === targets[0] ? '1 (reference)' : '–',
      ]);
    });
  }
  return {
    id: 'transfers',
    title: 'Transfers per engine',
    note:
      'Money moved between accounts in a transaction each call (the ledger verified after every step, the dataset ' +
      'restored): calls/s (median of the iterations; whiskers span them) and the ratio to the first engine, paired per ' +
      'iteration.',
    head: ['database', 'agents', 'transfers/s', 'errors', 'verified', `against ${targets[0]!.label}`],
    rows,
    chart: barChart(
      'transfers',
      'Transfers per second',
      f.config.agents.map((a) => `${a} agent${a === 1 ? '' : 's'}`),
      { label: 'transfers/s' },
      targets.map((t) => ({
        label: t.label,
        color: colorOf(targets, t.label),
        values: values.get(t.label)!,
        intervals: ranges.get(t.label)!,
      })),
    ),
    commands: commandsOf([f]),
  };
}

/** Every finding the files hold, in the study's order. */
export function studyFindings(files: readonly ResultFile[]): Finding[] {
  return [indexEffect, concurrencyScaling, timeShares, sessionStart, transfers].flatMap((find) => find(files) ?? []);
}
