import { Worker } from 'node:worker_threads';

/** What the guard needs from PostgreSQL's parse of a statement (the tree itself stays in the parser's thread). */
export interface Parsed {
  /** the parser's error, when the text does not parse */
  error?: string;
  /** each statement's node kind: `SelectStmt`, `CopyStmt` ... */
  kinds: string[];
  /** nodes inside that write or create: a data-modifying CTE's `DeleteStmt`, `intoClause` */
  writes: string[];
  /**
   * every name in the statements: each part of every name (String nodes), since PostgreSQL also
   * reads `x.f` and `(x).f` as f(x) when x is a row, and each relation read (RangeVar), since
   * views such as pg_hba_file_rules show what a privileged function reads
   */
  names: string[];
}

const WRITES = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt', 'intoClause']);

/** Reduces libpg-query's parse tree to what the guard reads. */
export function summarize(tree: { stmts?: { stmt?: Record<string, unknown> }[] }): Parsed {
  const statements = tree.stmts ?? [];
  const out: Parsed = {
    kinds: statements.map((s) => Object.keys(s.stmt ?? {})[0] ?? 'nothing'),
    writes: [],
    names: [],
  };
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (WRITES.has(key)) out.writes.push(key);
      const name =
        key === 'String'
          ? (value as { sval?: string }).sval
          : key === 'RangeVar'
            ? (value as { relname?: string }).relname
            : undefined;
      if (name !== undefined) names.add(name);
      walk(value);
    }
  };
  for (const s of statements) walk(s.stmt);
  out.names = [...names];
  return out;
}

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './parse-worker.ts' : './parse-worker.js',
  import.meta.url,
);

/**
 * PostgreSQL's parser (libpg-query, compiled to WebAssembly) on a thread of its own: a statement
 * of the sql tool's largest size takes it a tenth of a second or more, which must not stall the
 * event loop every other caller shares. Started on first use; a thread that dies is replaced by
 * the next call. It does not keep the process alive.
 */
export class ParserThread {
  #worker?: Worker;
  readonly #pending = new Map<number, { resolve(p: Parsed): void; reject(e: Error): void }>();
  #next = 0;

  parse(text: string): Promise<Parsed> {
    const worker = this.#start();
    const id = ++this.#next;
    return new Promise<Parsed>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, text });
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_URL);
    worker.unref();
    worker.on('message', ({ id, parsed }: { id: number; parsed: Parsed }) => {
      this.#pending.get(id)?.resolve(parsed);
      this.#pending.delete(id);
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const { reject } of this.#pending.values()) reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the PostgreSQL parser thread ended unexpectedly')));
    this.#worker = worker;
    return worker;
  }
}
