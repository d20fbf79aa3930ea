import { errorTotal, type RunEvent, type WriteVerification } from '@mcp-db-bench/agent';
import type { StepResult } from '@mcp-db-bench/contract';
import { callsPerSecond } from './numbers.js';

/** `label (indexes)`: how progress lines and reports name a target in a round. */
export const roundLabel = (s: { target: string; indexes: string | null }) => (s.indexes ? `${s.target} (${s.indexes})` : s.target);

export function stepLine(step: StepResult): string {
  const errors = errorTotal(step);
  return (
    `${roundLabel(step)} ${step.workload} × ${step.agents}: ${Math.round(callsPerSecond(step))} calls/s` +
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

/** An event as progress: lines that stay, and a live line for what runs now (undefined: nothing to say). */
export function progressOf(event: RunEvent): { lines: string[] } | { live: string } | undefined {
  switch (event.type) {
    case 'step-start':
      return event.slice === 0 ? { live: `${roundLabel(event.step)} ${event.step.workload} × ${event.step.agents}` } : undefined;
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

/** Progress on stderr: on a terminal, what runs now shows on a live line until a result replaces it. */
export function progress(write: (text: string) => void = (text) => process.stderr.write(text), tty = process.stderr.isTTY === true) {
  return (event: RunEvent): void => {
    const p = progressOf(event);
    if (p === undefined) return;
    if ('live' in p) {
      if (tty) write(`\r\x1b[K${p.live} …`);
    } else for (const line of p.lines) write(tty ? `\r\x1b[K${line}\n` : `${line}\n`);
  };
}

/** A line on stderr, clearing a live line first on a terminal. */
export const logLine = (line: string) => process.stderr.write(process.stderr.isTTY === true ? `\r\x1b[K${line}\n` : `${line}\n`);
