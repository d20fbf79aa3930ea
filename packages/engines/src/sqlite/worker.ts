import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * One SQLite connection off the main thread: a worker thread, or a child process for
 * caller-written SQL (see sql-process.ts). better-sqlite3 is synchronous: on the main thread
 * a slow statement would stall every other caller of the server.
 */
export interface WorkerOptions {
  path: string;
  readOnly: boolean;
  /** the settings every connection of the server has (see connect.ts) */
  pragmas: readonly string[];
  /**
   * The most bytes of rows a statement may read, and the error past it (answer-bytes.ts: made on
   * the server's side, since this file runs as a script and imports only packages); absent: no limit.
   */
  answerLimit?: {
    bytes: number;
    message: string;
    /** count each row as SQLite makes it, and stop there (caller-written SQL); else all rows, then count */
    rowByRow: boolean;
  };
}

export interface Request {
  id: number;
  sql: string;
  parameters: readonly unknown[];
}

export type Reply =
  | { id: number; rows: unknown[]; numAffectedRows?: bigint; insertId?: bigint }
  | { id: number; error: { message: string; code?: string } };

// A thread gets its options as workerData and talks through parentPort; a child process
// gets them in the environment and talks through its IPC channel.
const { path, readOnly, pragmas, answerLimit } = (
  parentPort ? workerData : JSON.parse(process.env.MCP_DB_SQLITE_WORKER ?? '{}')
) as WorkerOptions;
const send = (message: unknown) => (parentPort ? parentPort.postMessage(message) : process.send!(message));
const channel = parentPort ?? process;
const db = new Database(path, { fileMustExist: true, readonly: readOnly });
// Integers arrive as BigInt so values past 2^53 survive; shared code renders them.
db.defaultSafeIntegers(true);
for (const pragma of pragmas) db.pragma(pragma);

// The same call shape compiles to the same text: prepare it once.
const statements = new Map<string, Database.Statement>();
const MAX_STATEMENTS = 500;

function prepared(sql: string): Database.Statement {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
    statements.set(sql, statement);
  }
  return statement;
}

const rowBytes = (row: Record<string, unknown>): number => {
  let bytes = 0;
  for (const key in row) {
    const value = row[key];
    bytes += typeof value === 'string' ? value.length : value instanceof Uint8Array ? value.byteLength : 8;
  }
  return bytes;
};
const tooLarge = () => Object.assign(new Error(answerLimit!.message), { code: 'limit_exceeded' });

/**
 * A reader's rows, counted against the limit before they leave for the server's thread.
 * Caller-written SQL (the sql tool's process) is counted as SQLite makes each row, and stops at
 * the limit (leaving the loop resets the statement). The read tools' statements, which read at
 * most --max-rows rows of the tables as they are, take their rows at once and count them after:
 * row by row costs 1.5 to 3 times as much per row. Either way a value is counted once SQLite has
 * made it whole (better-sqlite3 caps one at about 512 MiB), here and not in the server's thread.
 */
function rowsWithin(statement: Database.Statement, parameters: unknown[]): unknown[] {
  if (!answerLimit) return statement.all(parameters);
  let bytes = 0;
  if (!answerLimit.rowByRow) {
    const rows = statement.all(parameters) as Record<string, unknown>[];
    for (const row of rows) {
      bytes += rowBytes(row);
      if (bytes > answerLimit.bytes) throw tooLarge();
    }
    return rows;
  }
  const rows: unknown[] = [];
  for (const row of statement.iterate(parameters) as Iterable<Record<string, unknown>>) {
    bytes += rowBytes(row);
    if (bytes > answerLimit.bytes) throw tooLarge();
    rows.push(row);
  }
  return rows;
}

// Buffers cross threads as plain Uint8Arrays; better-sqlite3 binds blobs only from Buffers.
const bindable = (value: unknown) =>
  value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value) : value;

/**
 * better-sqlite3 checks a statement and its values itself and throws a RangeError or TypeError
 * without a code: SQLite's own name for each, so the server can say what went wrong.
 */
function driverCode(error: unknown): string | undefined {
  if (!(error instanceof RangeError || error instanceof TypeError)) return undefined;
  if (/parameter/i.test(error.message)) return 'SQLITE_RANGE'; // too many, too few, a named one missing
  if (/too big/i.test(error.message)) return 'SQLITE_TOOBIG';
  if (/SQL string contains|can only bind/.test(error.message)) return 'SQLITE_MISUSE';
  return undefined;
}

// Tell the pool the connection is open, so a statement's time never includes the thread's start.
send({ ready: true });

channel.on('message', ({ id, sql, parameters: raw }: Request) => {
  let reply: Reply;
  try {
    const parameters = raw.map(bindable);
    const statement = prepared(sql);
    if (statement.reader) reply = { id, rows: rowsWithin(statement, parameters) };
    else {
      const { changes, lastInsertRowid } = statement.run(parameters);
      reply = { id, rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    }
  } catch (error) {
    const { message, code } = error as { message: string; code?: string };
    reply = { id, error: { message, code: code ?? driverCode(error) } };
  }
  send(reply);
});

// A child process ends with the server that started it.
if (!parentPort) process.on('disconnect', () => process.exit(0));
