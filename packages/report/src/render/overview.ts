import { type Comparison, formatRatio, type ResultFile, ratioInterval } from '@mcp-db-bench/contract';
import { merge, summary } from '../histogram.js';
import { FLOOR_LABEL } from './floor.js';
import { int, roundLabel } from './numbers.js';
import { byTrace, rowsNamedBy } from './replay.js';
import { type Group, groupSteps, medianThroughput } from './report.js';
import { type Section, toTerminal, wrap } from './table.js';
import { disagreementLines } from './tokens.js';

/** Columns a report written to a file or a pipe keeps to: it reads in a pull request or a mail too. */
export const PIPE_COLUMNS = 100;

const ms = (us: number) => (us / 1000).toFixed(us < 10_000 ? 2 : 1);
const agentsName = (n: number) => `${int(n)} agent${n === 1 ? '' : 's'}`;

/**
 * The report a run prints by default: what ran, one table of calls/s, p50 and p99 per workload
 * and agent count, and the verdicts (index speed-up with its interval, agreement, warnings).
 * Every line keeps to `width` (a terminal's columns; a pipe's PIPE_COLUMNS); `--full` has the rest.
 */
export function overview(file: ResultFile, width = PIPE_COLUMNS): string {
  const result = byTrace(file);
  const groups = groupSteps(result.steps);
  const table = summaryTable(groups, result, width);
  return [
    overviewHeader(result, width),
    '',
    ...(table ? [table] : []),
    wrap(verdictLines(groups, result).join('\n'), width),
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

/**
 * The index profile the summary shows: the last the run measured (null: the indexes as found).
 * An interrupted run may have finished steps of its first round only: the last with a step.
 */
const lastProfile = (result: ResultFile) => {
  const measured = result.config.indexes.filter((p) => result.steps.some((s) => s.indexes === p));
  return measured.at(-1) ?? result.config.indexes.at(-1) ?? null;
};

/**
 * Calls/s, p50 and p99 ms of each workload on each target at each agent count, of the last index
 * profile. Wide: a column per agent count; if that does not fit `width`, a row per agent count.
 */
function summaryTable(groups: readonly Group[], result: ResultFile, width: number): string | undefined {
  const profile = lastProfile(result);
  const shown = groups.filter((g) => g.indexes === profile || g.indexes === null);
  if (!shown.length) return undefined;
  const agents = [...new Set(shown.map((g) => g.agents))].sort((a, b) => a - b);
  // the era every target of our server shares (` 2025 session`) said once, in the title
  const era = commonEra(shown.map((g) => g.target).filter((t) => t !== FLOOR_LABEL));
  const name = (target: string) => (era && target.endsWith(era) ? target.slice(0, -era.length) : target);
  const rounds = [...new Set(shown.map((g) => `${g.workload}\u0000${g.target}`))];
  const find = (round: string, n: number) =>
    shown.find((g) => `${g.workload}\u0000${g.target}` === round && g.agents === n);
  const numbers = (g: Group) => {
    const h = summary(merge(g.steps.map((s) => s.all.histogram)));
    return { rate: int(medianThroughput(g).median), p50: ms(h.p50), p99: ms(h.p99) };
  };
  const title = `Summary${profile ? ` (${profile} indexes${era ? `,${era}` : ''})` : era ? ` (${era.trim()})` : ''}: calls/s, p50 and p99 ms`;
  const wide: Section = {
    title,
    head: ['workload', rowsNamedBy(result), ...agents.map((n) => `${agentsName(n)}\ncalls/s  p50 / p99`)],
    rows: rounds.map((round) => {
      const [workload, target] = round.split('\u0000') as [string, string];
      return [
        workload,
        name(target),
        ...agents.map((n) => {
          const g = find(round, n);
          if (!g) return '–';
          const x = numbers(g);
          return `${x.rate}  ${x.p50} / ${x.p99}`;
        }),
      ];
    }),
  };
  const tall: Section = {
    title,
    head: ['workload', rowsNamedBy(result), 'agents', 'calls/s', 'p50', 'p99'],
    rows: rounds.flatMap((round) => {
      const [workload, target] = round.split('\u0000') as [string, string];
      return agents.flatMap((n) => {
        const g = find(round, n);
        if (!g) return [];
        const x = numbers(g);
        return [[workload, name(target), int(n), x.rate, x.p50, x.p99]];
      });
    }),
  };
  const fits = (text: string) => text.split('\n').every((line) => line.length <= width);
  // the first layout whose table fits whole; a block per row only when neither does
  const whole = [wide, tall].map((section) => toTerminal([section], undefined, width)).find(fits);
  return whole ?? toTerminal([tall], width);
}

/** The last words of a label (` 2025 session`, ` 2026`) that every target with more than one word ends in. */
function commonEra(targets: readonly string[]): string | undefined {
  const eras = targets.filter((t) => t.includes(' ')).map((t) => t.slice(t.indexOf(' ')));
  const [first] = eras;
  return first && eras.every((e) => e === first) ? first : undefined;
}

/** The run's verdicts, a line each: index speed-up, answer agreement, failures and warnings. */
function verdictLines(groups: readonly Group[], result: ResultFile): string[] {
  const warnings = result.warnings;
  const skipped = result.skipped?.length ?? 0;
  // the first few warnings in full: each says what to do; the rest behind --full
  const shown = warnings.slice(0, 3);
  return [
    ...speedupLines(groups, result),
    ...agreementLines(result),
    ...result.steps
      .filter((s) => s.verification?.ok === false)
      .map((s) => `write verification FAILED: ${roundLabel(s)} ${s.workload} × ${s.agents}`),
    warnings.length ? `${warnings.length} warning${warnings.length === 1 ? '' : 's'}:` : 'no warnings',
    ...shown.map((w) => `warning: ${w}`),
    ...(warnings.length > shown.length ? [`… ${warnings.length - shown.length} more (--full shows them)`] : []),
    ...(skipped ? [`${skipped} workload(s) skipped (--full says why)`] : []),
    '--full: every table (latency percentiles, scaling, sessions, tokens, load generator check)',
  ];
}

/**
 * Per target: optimized against baseline calls/s of each workload at the most agents both rounds
 * ran, with its interval when the run paired them ("~": no difference measured).
 */
function speedupLines(groups: readonly Group[], result: ResultFile): string[] {
  const targets = [...new Set(groups.filter((g) => g.indexes === 'optimized').map((g) => g.target))];
  return targets.flatMap((target) => {
    const workloads = [...new Set(groups.filter((g) => g.target === target).map((g) => g.workload))];
    const parts = workloads.flatMap((workload) => {
      const pairs = groups
        .filter((g) => g.target === target && g.workload === workload && g.indexes === 'optimized')
        .map((opt) => ({
          opt,
          base: groups.find(
            (b) =>
              b.indexes === 'baseline' && b.target === target && b.workload === workload && b.agents === opt.agents,
          ),
        }))
        .filter((p): p is { opt: Group; base: Group } => p.base !== undefined)
        .sort((a, b) => b.opt.agents - a.opt.agents);
      const top = pairs[0];
      if (!top) return [];
      return [`${workload} ${speedup(result, top.base, top.opt)}`];
    });
    if (!parts.length) return [];
    return [`index speed-up on ${target} (optimized vs baseline calls/s, most agents): ${parts.join(', ')}`];
  });
}

function speedup(result: ResultFile, base: Group, opt: Group): string {
  const c: Comparison | undefined = result.comparisons?.find(
    (x) =>
      x.kind === 'indexes' &&
      x.workload === opt.workload &&
      x.agents === opt.agents &&
      x.base.target === base.target &&
      x.base.indexes === base.indexes &&
      x.other.target === opt.target &&
      x.other.indexes === opt.indexes,
  );
  const interval = c && ratioInterval(c.throughput);
  if (interval) return formatRatio(interval);
  const b = medianThroughput(base).median;
  return `${(medianThroughput(opt).median / Math.max(b, 1e-9)).toFixed(1)}×`;
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
