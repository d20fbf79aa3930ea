import type { Socket } from 'node:net';
import { ToolError } from '@mcp-db-bench/contract';

/**
 * Answers are bounded while they are read, not once they are whole: each engine counts the bytes
 * of an answer's rows as they arrive and stops the statement once they pass its budget, before a
 * value the driver could not even hold as a string (V8's ~512 MiB) is buffered. The budget is
 * derived from the largest result a caller takes (the server's --max-response-bytes, in bytes of
 * JSON): twice it, since a value may take more bytes as the database sends it than as JSON
 * (PostgreSQL sends bytea as hex, two characters a byte, where JSON has base64, four for three).
 * An answer stopped here could not have made a result within the limit.
 */
const ANSWER_BUDGET_FACTOR = 2;

/** The most bytes of rows one statement may bring back, for a largest result of `maxResponseBytes`. */
export function answerBudget(maxResponseBytes: number | undefined): number {
  return maxResponseBytes ? ANSWER_BUDGET_FACTOR * maxResponseBytes : Number.POSITIVE_INFINITY;
}

/** The error of a statement whose rows passed `budget` bytes while they were read. */
export function answerTooLarge(budget: number): ToolError {
  const largest = Math.floor(budget / ANSWER_BUDGET_FACTOR);
  return new ToolError(
    'limit_exceeded',
    `the answer passed ${budget} bytes as the database sent it and was stopped there: a result may hold ${largest} ` +
      'bytes of JSON (the server option --max-response-bytes). Ask for fewer rows (limit), fewer or shorter columns ' +
      '(a prefix of a long value, its length), or raise --max-response-bytes',
  );
}

/** What a driver threw while it parsed an answer, as the call's error. */
export function unreadableAnswer(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  if (code === 'ERR_STRING_TOO_LONG' || /string (longer|too long)|Invalid string length/i.test(text)) {
    return new ToolError(
      'limit_exceeded',
      `a value of the answer is larger than the driver can hold (${text}); ask for a prefix of it or its length`,
      { cause: error },
    );
  }
  return new ToolError('database_error', `the driver could not read the answer: ${text}`, { cause: error });
}

/**
 * Puts `see` in front of `reader`, the driver's 'data' listener on `stream`, so that every chunk is
 * judged before the driver reads it, and catches what the driver throws while it reads: that
 * would otherwise escape from the socket's event and end the process. `see` returns a budget's
 * error once the answer passes it. Either way the chunk goes no further and `stop`, if any, is
 * told (to cancel the statement in the database); then the socket is destroyed with the error, which the
 * driver hands to every statement waiting on the connection and which keeps the connection out
 * of its pool: a connection stopped in the middle of a message can never be used again.
 */
export function interpose(
  stream: Socket,
  reader: (chunk: Buffer) => void,
  see: (chunk: Buffer) => ToolError | undefined,
  stop?: () => void,
): void {
  let stopped = false;
  stream.removeListener('data', reader);
  stream.on('data', (chunk: Buffer) => {
    if (stopped) return;
    let error = see(chunk);
    if (error === undefined) {
      try {
        reader(chunk);
        return;
      } catch (thrown) {
        error = unreadableAnswer(thrown);
      }
    }
    stopped = true;
    stop?.();
    stream.destroy(error);
  });
}

/** The 'data' listener `attach` adds to `stream` (a driver's reader of its socket). */
export function readerAdded(stream: Socket, attach: () => void): (chunk: Buffer) => void {
  const before = new Set(stream.listeners('data'));
  attach();
  const added = stream.listeners('data').filter((listener) => !before.has(listener));
  if (added.length !== 1) throw new Error(`expected the driver to add one reader of its socket, found ${added.length}`);
  return added[0] as (chunk: Buffer) => void;
}
