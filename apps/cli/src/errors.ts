import { redactUrl } from '@mcp-db-bench/engines';
import type { Command } from 'commander';

/**
 * The exit codes: 0 done, 1 a runtime failure (a database, a server, a file, a failed check),
 * 2 a usage error (the command line itself is wrong: nothing was started), 130, 143 and 129
 * interrupted by SIGINT (Ctrl-C), SIGTERM or SIGHUP after cleaning up, 141 its output closed (EPIPE).
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, sighup: 129, sigint: 130, sigpipe: 141, sigterm: 143 } as const;

/** A mistake on the command line found after commander parsed it: exits 2, like commander's own. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Every URL in a message with its password replaced by `***`. */
export function redactAll(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/gi, (url) => redactUrl(url));
}

/** The closest of `candidates` to a mistyped `word`, if any is close enough to be what was meant. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(word) || word.startsWith(c) ? Math.abs(c.length - word.length) * 0.5 : distance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) + 0.5 ? best : undefined;
}

/** Damerau-Levenshtein (optimal string alignment) distance. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** A network error's cause in words: `connection refused`, not `connect ECONNREFUSED 127.0.0.1:9`. */
export function networkReason(error: unknown): string {
  let e: unknown = error;
  for (let i = 0; i < 4 && e instanceof Error; i++) {
    const code = (e as { code?: string }).code;
    const known: Record<string, string> = {
      ECONNREFUSED: 'connection refused',
      ENOTFOUND: 'host not found',
      EAI_AGAIN: 'host not found (DNS lookup failed)',
      ETIMEDOUT: 'connection timed out',
      UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
      ECONNRESET: 'connection reset',
      EHOSTUNREACH: 'host unreachable',
      ENETUNREACH: 'network unreachable',
      UND_ERR_SOCKET: 'the connection closed',
      ERR_SSL_WRONG_VERSION_NUMBER: 'not a TLS server (try http://)',
    };
    if (code && known[code]) return known[code];
    if (!e.cause) return e.message;
    e = e.cause;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The commands a first word may name, `help` included. */
export function commandNames(program: Command): string[] {
  return [...program.commands.flatMap((c) => [c.name(), ...c.aliases()]), 'help'];
}

/** `unknown command 'sed' (did you mean seed?)`, or the list of commands when nothing is close. */
export function unknownCommand(program: Command, word: string): string {
  const names = commandNames(program).filter((n) => n !== 'help');
  const near = closest(word, names);
  return `unknown command '${word}' ${near ? `(did you mean ${near}?)` : `(commands: ${names.join(', ')})`}`;
}

/** Runs `work` on a database; its error, if it does not say which database, is prefixed with the URL (password redacted). */
export async function onDatabase<T>(url: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const shown = redactUrl(url);
    const rest = url.slice(url.indexOf(':') + 1).replace(/^\/\//, '');
    if (error.message.includes(shown) || (rest && error.message.includes(rest))) throw error;
    // the same error (its class still tells callers what it is), now naming the database
    error.message = `${shown}: ${error.message}`;
    throw error;
  }
}
