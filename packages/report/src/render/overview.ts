import { type Comparison, type ResultFile, stepRate } from '@mcp-db-bench/contract';
import { comparisonsOf, FLOOR_LABEL } from '../comparisons.js';
import { int, median, ms, pct, rate, ratio } from '../format.js';
import { summary } from '../histogram.js';
import { databaseNames, hasPeers, OURS, servedBy } from '../served.js';
import { judged, machineLines, withheldLines } from '../verdicts.js';
import { type Group, groupHistogram, groupSteps, roundLabel } from './groups.js';
import { namesLegend, ratioLegend } from './legend.js';
import { lastIndexSet, serverComparison } from './ratios.js';
import { byTrace, rowsNamedBy } from './replay.js';
import { type Section, toTerminal, wrap } from './table.js';
import { disagreementLines } from './tokens.js';

/** Columns a report written to a file or a pipe keeps to: it reads in a pull request or a mail too. */
export const PIPE_COLUMNS = 100;

const agentsName = (n: number) => `${int(n)} agent${n === 1 ? '' : 's'}`;

export interface OverviewOptions {
  /** where the result file is: the last line says how to see every table without running again */
  file?: string;
}

/**
 * The report a run prints by default: what ran, one table of rates, p50 and p99 per workload and
 * agent count with what its names mean, then a line or two for each thing the run compared or
 * was asked for (index speed-up, engines or servers compared, transfers, the time split, tokens,
 * answer agreement) and its warnings. Every line keeps to `width` (a terminal's columns; a pipe's
 * PIPE_COLUMNS); `--full` has every table.
 */
export function overview(file: ResultFile, width = PIPE_COLUMNS, options: OverviewOptions = {}): string {
  const result = byTrace(file);
  const groups = groupSteps(result.steps);
  const view = summaryView(groups, result);
  const table = view && summaryTable(view, result, width);
  return [
    overviewHeader(result, width),
    '',
    ...(table ? [table.trimEnd(), wrap(namesLegend(result).join('\n'), width), ''] : []),
    wrap(verdictLines(groups, result, { name: view?.name ?? ((t) => t), width }, options).join('\n'), width),
    '',
  ].join('\n');
}

/** The lines above the summary: version, machine, what ran, each database in a line, partial. */
function overviewHeader(result: ResultFile, width: number): string {
  const e = result.environment;
  const c = result.config;
  // each database once (several eras share one), by the first words of its version
  const databases = [
    ...new Set(
      c.targets.flatMap((t) =>
        t.database
          ? [
              t.database.version
                .split(/[ ,(]+/)
                .slice(0, 2)
                .join(' '),
            ]
          : [],
      ),
    ),
  ];
  const lines = [
    `mcp-db-bench ${result.tool.version} · ${result.startedAt} · ${e.cpus} CPUs, Node ${e.node}`,
    `${c.workloads.length} workloads · agents ${c.agents.map(int).join(', ')} · ${c.durationMs / 1000} s per step × ${int(c.iterations)} iteration(s) · indexes ${c.indexes.join(', ') || 'as found'}${databases.length ? ` · ${databases.join(', ')}` : ''}`,
    ...(result.partial
      ? [`partial: the run was interrupted; these are the ${int(result.steps.length)} step(s) it finished`]
      : []),
  ];
  return wrap(lines.join('\n'), width);
}

/** What the summary shows: the last index set's groups, named without the era they all share. */
interface SummaryView {
  indexes: string | null;
  era: string | undefined;
  shown: Group[];
  /** a target as the summary names it: without the shared era */
  name: (target: string) => string;
  /** more than one server besides the floor: a column names them */
  servers: number;
}

function summaryView(groups: readonly Group[], result: ResultFile): SummaryView | undefined {
  const indexes = lastIndexSet(result);
  const shown = groups.filter((g) => g.indexes === indexes || g.indexes === null);
  if (!shown.length) return undefined;
  // the era every target of our server shares (` 2025 session`) said once, in the title
  const era = commonEra(shown.map((g) => g.target).filter((t) => t !== FLOOR_LABEL));
  return {
    indexes,
    era,
    shown,
    name: (target) => (era && target.endsWith(era) ? target.slice(0, -era.length) : target),
    servers: new Set(shown.map((g) => g.target).filter((t) => t !== FLOOR_LABEL)).size,
  };
}

/** A group's summary cell: its rate (calls/s; a transfer's committed/s), p50 and p99 ms. */
function cellOf(g: Group | undefined): string {
  if (!g) return '–';
  const h = summary(groupHistogram(g));
  return `${rate(median(g.steps.map(stepRate)))} ${ms(h.p50)}/${ms(h.p99)}`;
}

/**
 * Rates, p50 and p99 ms of each workload on each target at each agent count, in the first layout
 * that fits `width`: a column per agent count (a row per workload, and per server when there are
 * several); a column per server (a row per workload and agent count; the bare floor's echo beside
 * MCP echo); a row per step; a block per row.
 */
function summaryTable(view: SummaryView, result: ResultFile, width: number): string {
  const { shown, era, indexes } = view;
  const agents = [...new Set(shown.map((g) => g.agents))].sort((a, b) => a - b);
  const title = `Summary${indexes ? ` (${indexes} indexes${era ? `,${era}` : ''})` : era ? ` (${era.trim()})` : ''}: calls/s p50/p99 ms`;
  const named = view.servers > 1;
  const rounds = [...new Set(shown.map((g) => `${g.workload}\u0000${g.target}`))];
  const find = (round: string, n: number) =>
    shown.find((g) => `${g.workload}\u0000${g.target}` === round && g.agents === n);
  const lead = (round: string) => {
    const [workload, target] = round.split('\u0000') as [string, string];
    return named ? [workload, view.name(target)] : [workload];
  };
  const leadHead = named ? ['workload', rowsNamedBy(result)] : ['workload'];
  const byAgents: Section = {
    title,
    head: [...leadHead, ...agents.map(agentsName)],
    rows: rounds.map((round) => [...lead(round), ...agents.map((n) => cellOf(find(round, n)))]),
  };
  const tall: Section = {
    title,
    head: [...leadHead, 'agents', 'calls/s', 'p50', 'p99'],
    rows: rounds.flatMap((round) =>
      agents.flatMap((n) => {
        const [rate, latency] = cellOf(find(round, n)).split(' ');
        return find(round, n) ? [[...lead(round), int(n), rate!, ...latency!.split('/')]] : [];
      }),
    ),
  };
  const layouts = named ? [byAgents, byServer(view, title), tall] : [byAgents, tall];
  const fits = (text: string) => text.split('\n').every((line) => line.length <= width);
  // the first layout whose table fits whole; a block per row only when none does
  const whole = layouts.map((section) => toTerminal([section], undefined, width)).find(fits);
  return whole ?? toTerminal([tall], width);
}

/** A column per server, a row per workload and agent count; the bare floor's http-echo beside MCP echo. */
function byServer(view: SummaryView, title: string): Section {
  const servers = [...new Set(view.shown.map((g) => g.target))].sort(
    (a, b) => Number(a === FLOOR_LABEL) - Number(b === FLOOR_LABEL),
  );
  const rowOf = (g: Group) => `${g.workload === 'http-echo' ? 'echo' : g.workload}\u0000${g.agents}`;
  const rows = [...new Set(view.shown.map(rowOf))];
  return {
    title,
    head: ['workload', 'agents', ...servers.map(view.name)],
    rows: rows.map((row) => {
      const [workload, agents] = row.split('\u0000') as [string, string];
      return [
        workload,
        agents,
        ...servers.map((t) => cellOf(view.shown.find((g) => g.target === t && rowOf(g) === row))),
      ];
    }),
  };
}

/** The last words of a label (` 2025 session`, ` 2026`) that every target with more than one word ends in. */
function commonEra(targets: readonly string[]): string | undefined {
  const eras = targets.filter((t) => t.includes(' ')).map((t) => t.slice(t.indexOf(' ')));
  const [first] = eras;
  return first && eras.every((e) => e === first) ? first : undefined;
}

/**
 * The run's verdicts, a line each: what it compared (index speed-up, engines or servers, with the
 * ratios' legend after them), whether the machine was busy and the ratios withheld, what it was
 * asked for (transfers, the time split, tokens), answer agreement, failures and warnings, and how
 * to see every table.
 */
function verdictLines(groups: readonly Group[], result: ResultFile, how: How, options: OverviewOptions): string[] {
  const { name } = how;
  const warnings = result.warnings;
  const skipped = result.skipped?.length ?? 0;
  // the first few warnings in full: each says what to do; the rest behind --full
  const shown = warnings.slice(0, 3);
  const ratios = [...speedupLines(result, how), ...serverLines(groups, result, how)];
  const j = judged(result);
  return [
    ...ratios,
    ...(ratios.length ? [ratioLegend(j, result.config.iterations)] : []),
    ...machineLines([result], j),
    ...withheldLines(j, { atMost: 3 }),
    ...transferLines(groups, result, name),
    ...traceSplitLines(groups, name),
    ...tokenLines(result, name),
    ...agreementLines(result),
    ...result.steps
      .filter((s) => s.verification?.ok === false)
      .map((s) => `write verification FAILED: ${roundLabel(s)} ${s.workload} × ${s.agents}`),
    ...(warnings.length ? shown.map((w) => `warning: ${w}`) : ['no warnings']),
    ...(warnings.length > shown.length ? [`… ${warnings.length - shown.length} more (--full shows them)`] : []),
    ...(skipped ? [`${skipped} workload(s) skipped (--full says why)`] : []),
    options.file
      ? `every table: mcp-db-bench report --full ${options.file}`
      : '--full: every table (latency percentiles, scaling, sessions, tokens, load generator check)',
  ];
}

/** How the verdicts name a target (without the era every target shares) and the columns they keep to. */
interface How {
  name: (target: string) => string;
  width: number;
}

/** `prefix item, item, ...` wrapped to `width` between items, never inside one (a ratio reads whole). */
function listLine(prefix: string, items: readonly string[], width: number): string {
  const lines = [prefix];
  items.forEach((item, i) => {
    const text = i < items.length - 1 ? `${item},` : item;
    if (lines.at(-1)!.length + 1 + text.length <= width) lines[lines.length - 1] += ` ${text}`;
    else lines.push(text);
  });
  return lines.join('\n');
}

/** Of a target's comparisons, each workload's at the most agents it was compared at. */
function atMostAgents(list: readonly Comparison[]): Comparison[] {
  const most = new Map<string, Comparison>();
  for (const c of list) if ((most.get(c.workload)?.agents ?? -1) < c.agents) most.set(c.workload, c);
  return [...most.values()];
}

/** `at 16 agents` when every workload's most is the same, else `at the most agents`. */
const atWhat = (list: readonly Comparison[]) => {
  const counts = new Set(list.map((c) => c.agents));
  return counts.size === 1 ? `at ${agentsName([...counts][0]!)}` : 'at the most agents';
};

/** Per target: each index set against the first, each workload at the most agents, as the run paired them. */
function speedupLines(result: ResultFile, { name, width }: How): string[] {
  const indexes = comparisonsOf(result).filter((c) => c.kind === 'indexes');
  const targets = [...new Set(indexes.map((c) => c.other.target))];
  return targets.flatMap((target) => {
    const mine = atMostAgents(indexes.filter((c) => c.other.target === target));
    const [first] = mine;
    if (!first) return [];
    const parts = mine.map((c) => `${c.workload} ${ratio(judged(result).of(c))}`);
    const what = `index speed-up on ${name(target)}, ${first.other.indexes}/${first.base.indexes} ${atWhat(mine)}:`;
    return [listLine(what, parts, width)];
  });
}

/**
 * Each target against the first, under the last index set, each workload at the most agents;
 * with peers (run --peer), engines per server and servers per database (`peerLines`).
 */
function serverLines(groups: readonly Group[], result: ResultFile, { name, width }: How): string[] {
  if (hasPeers(result)) return peerLines(result, width);
  const c = serverComparison(groups, result);
  if (!c) return [];
  const [first, ...others] = c.targets;
  const paired = comparisonsOf(result).filter(
    (x) =>
      x.kind === 'targets' && x.base.target === first && (x.other.indexes === c.indexes || x.other.indexes === null),
  );
  return others.flatMap((target) => {
    const mine = atMostAgents(paired.filter((x) => x.other.target === target));
    if (!mine.length) return [];
    const parts = mine.map((x) => `${x.workload} ${ratio(judged(result).of(x))}`);
    return [
      listLine(`${c.what.toLowerCase()} compared, ${name(target)}/${name(first!)} ${atWhat(mine)}:`, parts, width),
    ];
  });
}

/**
 * A run with peers: through each server, each database against the first (never a peer on one
 * database against ours on another); on each database, each peer against ours. Under the last
 * index set, each workload at the most agents.
 */
function peerLines(result: ResultFile, width: number): string[] {
  const served = servedBy(result);
  const db = databaseNames([result]);
  const indexes = lastIndexSet(result);
  const paired = comparisonsOf(result).filter(
    (c) => c.kind === 'targets' && (c.other.indexes === indexes || c.other.indexes === null),
  );
  const line = (what: string, base: string, other: string) => {
    const mine = atMostAgents(paired.filter((c) => c.base.target === base && c.other.target === other));
    const parts = mine.map((c) => `${c.workload} ${ratio(judged(result).of(c))}`);
    return mine.length ? [listLine(`${what} ${atWhat(mine)}:`, parts, width)] : [];
  };
  const engines = [...new Set(served.map((s) => s.server))].flatMap((server) => {
    // each database once, by its first target on this server
    const [first, ...rest] = served.filter(
      (s, i, all) =>
        s.server === server && all.findIndex((o) => o.server === server && o.database === s.database) === i,
    );
    return rest.flatMap((o) =>
      line(`engines compared through ${server}, ${db(o)}/${db(first!)}`, first!.label, o.label),
    );
  });
  const servers = served.flatMap((p) =>
    p.ours ? line(`servers compared on ${db(p)}, ${p.server}/${OURS}`, p.ours, p.label) : [],
  );
  return [...engines, ...servers];
}

/** Per target: committed transactions per second at each agent count, the conflicts, and the ledger's check. */
function transferLines(groups: readonly Group[], result: ResultFile, name: (target: string) => string): string[] {
  const indexes = lastIndexSet(result);
  const committing = groups.filter(
    (g) => (g.indexes === indexes || g.indexes === null) && g.steps.some((s) => s.commits),
  );
  const targets = [...new Set(committing.map((g) => `${g.target}\u0000${g.workload}`))];
  return targets.map((key) => {
    const mine = committing.filter((g) => `${g.target}\u0000${g.workload}` === key);
    const steps = mine.flatMap((g) => g.steps);
    const conflicts = steps.reduce((n, s) => n + (s.commits?.conflicts ?? 0), 0);
    const verified = steps.every((s) => s.verification?.ok !== false) ? 'ledger verified' : 'ledger FAILED';
    const rates = mine.map((g) => `${rate(median(g.steps.map(stepRate)))} at ${agentsName(g.agents)}`);
    return `${mine[0]!.workload} on ${name(mine[0]!.target)}: committed/s ${rates.join(', ')} · ${int(conflicts)} conflict${conflicts === 1 ? '' : 's'} · ${verified}`;
  });
}

/** `--trace-split`: per target, where each workload's p50 call went at the most agents, in shares of it. */
function traceSplitLines(groups: readonly Group[], name: (target: string) => string): string[] {
  const traced = groups.filter((g) => g.steps.some((s) => s.traceSplit));
  const targets = [...new Set(traced.map((g) => g.target))];
  return targets.map((target) => {
    const mine = traced.filter((g) => g.target === target);
    const most = new Map<string, Group>();
    for (const g of mine) if ((most.get(g.workload)?.agents ?? -1) < g.agents) most.set(g.workload, g);
    const parts = [...most.values()].map((g) => {
      const splits = g.steps.flatMap((s) => (s.traceSplit ? [s.traceSplit.p50] : []));
      const at = (pick: (s: (typeof splits)[number]) => number) => median(splits.map(pick));
      const client = at((s) => s.clientUs);
      const of = (us: number) => pct(client > 0 ? us / client : 0);
      return `${g.workload} ${ms(client)} ms: database ${of(at((s) => s.databaseUs))}, wait ${of(at((s) => s.waitUs))}, protocol ${of(at((s) => s.protocolUs))}, network ${of(at((s) => s.networkUs))}`;
    });
    return `where a p50 call went on ${name(target)} (--trace-split, most agents): ${parts.join('; ')}`;
  });
}

/** What each target's tools/list and session start cost the agent's context, in one line. */
function tokenLines(result: ResultFile, name: (target: string) => string): string[] {
  const tokens = result.tokens ?? [];
  if (!tokens.length) return [];
  const counts = (t: (typeof tokens)[number]) => `${int(t.toolsList.tokens)} and ${int(t.sessionStart.tokens)}`;
  const alike = tokens.every((t) => counts(t) === counts(tokens[0]!));
  const each = alike
    ? `${counts(tokens[0]!)}${tokens.length > 1 ? ' on every target' : ''}`
    : tokens.map((t) => `${name(t.target)} ${counts(t)}`).join('; ');
  return [`tokens in tools/list and a session start: ${each}`];
}

/** One line when every target answered like the first, else a line per disagreement. */
function agreementLines(result: ResultFile): string[] {
  const agreement = result.agreement ?? [];
  if (!agreement.length) return [];
  const disagree = disagreementLines(result);
  if (disagree.length) return disagree;
  const calls = agreement.reduce((n, a) => n + a.calls, 0);
  return [`answers agree: ${int(calls)} sampled calls on every target matched ${agreement[0]!.reference}'s`];
}
