import { failedCalls, goodput, type StepResult } from '@mcp-db-bench/contract';
import type { PlannedSteps, RunEvent, StepKey, WriteVerification } from '@mcp-db-bench/loadgen';
import { int, roundLabel } from '@mcp-db-bench/report';

export function stepLine(step: StepResult): string {
  const errors = failedCalls(step);
  return (
    `${roundLabel(step)} ${step.workload} × ${step.agents}: ${int(goodput(step))} calls/s` +
    `${step.server ? `, server CPU ${int(step.server.cpuPerCallUs)} µs/call` : ''}` +
    `${errors ? `, ${errors} errors (${Object.keys(step.errors).join(', ')})` : ''}`
  );
}

export function verificationLines(target: string, v: WriteVerification): string[] {
  const a = v.acknowledged;
  return [
    `${target}: ${v.ok ? 'verified' : 'VERIFICATION FAILED'}: ${a.insert} inserted, ${a.update} updated, ${a.delete} deleted, ${a.transfer} transfers; ` +
      `${v.lost} lost, ${v.phantom} phantom, ${v.wrongValues} wrong, ${v.accounts.mismatched} balances off, money ${v.money.before} -> ${v.money.after}; ${v.unknown} unknown outcomes`,
    ...v.problems.map((p) => `  ${p}`),
  ];
}

type StepStart = Extract<RunEvent, { type: 'step-start' }>;
type Tick = Omit<Extract<RunEvent, { type: 'interval' }>, 'type' | 'step'>;

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * A running step in one line: where it is in its time, calls per second so far, errors, and for
 * a staged step the agents (or the intended rate) now.
 */
export function liveStepLine(step: StepKey, tick: Tick, turn?: Pick<StepStart, 'slices' | 'durationMs'>): string {
  const slices = turn?.slices ?? 1;
  const name = `${roundLabel(step)} ${step.workload} × ${step.agents}${slices > 1 ? ` (turn ${tick.slice + 1}/${slices})` : ''}`;
  const at = turn?.durationMs ? `${seconds(tick.atMs)} / ${seconds(turn.durationMs)}` : seconds(tick.atMs);
  const rate =
    tick.atMs > 0 ? `${Math.round(tick.calls / (tick.atMs / 1000)).toLocaleString('en-US')} calls/s` : 'starting';
  const now = [
    tick.agents !== undefined && `${tick.agents} agent${tick.agents === 1 ? '' : 's'} now`,
    tick.rate !== undefined && `${Math.round(tick.rate)} calls/s intended now`,
  ].filter(Boolean);
  return [`${name}: ${at}`, rate, `${tick.errors} error${tick.errors === 1 ? '' : 's'}`, ...now].join(', ');
}

/**
 * An event as progress: lines that stay, and a live line for what runs now (undefined: nothing
 * to say). `current` is the step-start of the step running, for its time and turns.
 */
export function progressOf(event: RunEvent, current?: StepStart): { lines: string[] } | { live: string } | undefined {
  switch (event.type) {
    case 'step-start':
      return event.slice === 0
        ? { live: `${roundLabel(event.step)} ${event.step.workload} × ${event.step.agents}` }
        : undefined;
    case 'interval':
      return { live: liveStepLine(event.step, event, current) };
    case 'step-end': {
      const v = event.step.verification;
      return { lines: [...(v ? verificationLines(event.step.target, v) : []), stepLine(event.step)] };
    }
    case 'skipped':
      return { lines: [`${event.target}: skipping ${event.workload}: ${event.reason}`] };
    case 'log':
      return { lines: [event.line] };
    case 'activity':
      return { live: event.line };
    default:
      return undefined;
  }
}

/**
 * The whole run so far: steps done of the steps planned, and the time left at the pace of the
 * steps done (they include warm-up, session starts and the rest the plan does between them).
 */
export function overallLine(done: number, planned: number, elapsedMs: number): string {
  const left = done > 0 ? (elapsedMs / done) * Math.max(planned - done, 0) : undefined;
  const time =
    left === undefined
      ? ''
      : left < 90_000
        ? `, ~${Math.round(left / 1000)} s left`
        : `, ~${Math.round(left / 60_000)} min left`;
  return `step ${Math.min(done, planned)} of ${planned}${time}`;
}

/**
 * Progress on stderr: on a terminal, what runs now shows on a live line until a result replaces
 * it. The live line is cut to the terminal's `columns`: a line that wraps leaves its first row
 * behind when `\r` redraws it. With `planned` (the steps the plan will measure, `plannedSteps`;
 * a target's skipped workload takes its steps off), each step's line and the live line say how far the run is.
 */
export function progress(
  write: (text: string) => void = (text) => process.stderr.write(text),
  tty = process.stderr.isTTY === true,
  columns = () => process.stderr.columns,
  planned?: PlannedSteps & { now?: () => number },
) {
  let current: StepStart | undefined;
  const now = planned?.now ?? Date.now;
  const started = now();
  let done = 0;
  let total = planned?.steps ?? 0;
  const overall = () => (planned ? ` · ${overallLine(done, total, now() - started)}` : '');
  return (event: RunEvent): void => {
    if (event.type === 'step-start') current = event;
    if (event.type === 'step-end') done++;
    if (event.type === 'skipped') total -= planned?.of(event.target, event.workload) ?? 0;
    const p = progressOf(event, current);
    if (p === undefined) return;
    if ('live' in p) {
      if (tty) write(`\r\x1b[K${fit(`${p.live}${overall()} …`, columns())}`);
    } else {
      const lines = event.type === 'step-end' ? [...p.lines.slice(0, -1), `${p.lines.at(-1)}${overall()}`] : p.lines;
      for (const line of lines) write(tty ? `\r\x1b[K${line}\n` : `${line}\n`);
    }
  };
}

/** `line` in at most `columns - 1` characters (the last column would wrap on some terminals), ending in `…` when cut. */
function fit(line: string, columns: number | undefined): string {
  if (!columns || line.length < columns) return line;
  return `${line.slice(0, Math.max(columns - 2, 1))}…`;
}

/** A line on stderr, clearing a live line first on a terminal. */
export const logLine = (line: string) =>
  process.stderr.write(process.stderr.isTTY === true ? `\r\x1b[K${line}\n` : `${line}\n`);

/** Clears a live progress line (on a terminal) so the report that follows starts on a line of its own. */
export const endProgress = () => {
  if (process.stderr.isTTY === true) process.stderr.write('\r\x1b[K');
};

/**
 * The columns of the terminal stdout writes to; for a file or a pipe, the COLUMNS variable when
 * it is set (`COLUMNS=80 mcp-db-bench run | less`), else undefined: tables stay whole there.
 */
export function stdoutColumns(env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (process.stdout.isTTY === true) return process.stdout.columns;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}
