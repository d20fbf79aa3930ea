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
  answerLimit?: { bytes: number; message: string };
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

/**
 * A reader's rows, counted as SQLite makes them: past the limit the statement stops (leaving the
 * loop resets it), and its rows never cross to the server's thread. A value is counted once SQLite
 * has made it: SQLite caps one at better-sqlite3's limit (about 512 MiB), here and not in the server.
 */
function rowsWithin(statement: Database.Statement, parameters: unknown[]): unknown[] {
  if (!answerLimit) return statement.all(parameters);
  const rows: unknown[] = [];
  let bytes = 0;
  for (const row of statement.iterate(parameters) as Iterable<Record<string, unknown>>) {
    for (const value of Object.values(row)) {
      bytes += typeof value === 'string' ? value.length : value instanceof Uint8Array ? value.byteLength : 8;
    }
    if (bytes > answerLimit.bytes) throw Object.assign(new Error(answerLimit.message), { code: 'limit_exceeded' });
    rows.push(row);
  }
  return rows;
}

// Buffers cross threads as plain Uint8Arrays; better-sqlite3 binds blobs only from Buffers.
const bindable = (value: unknown) =>
  value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value) : value;

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
    reply = { id, error: { message, code } };
  }
  send(reply);
});

// A child process ends with the server that started it.
if (!parentPort) process.on('disconnect', () => process.exit(0));
