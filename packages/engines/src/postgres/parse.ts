import { Worker } from 'node:worker_threads';

/** A name as written, without its catalog: `pg_catalog.lower` is { schema: 'pg_catalog', name: 'lower' }. */
export interface NameRef {
  schema?: string;
  name: string;
}

/** What the guard needs from PostgreSQL's parse of a statement (the tree itself stays in the parser's thread). */
export interface Parsed {
  /** the parser's error, when the text does not parse */
  error?: string;
  /** each statement's node kind: `SelectStmt`, `CopyStmt` ... */
  kinds: string[];
  /** nodes inside that write or create: a data-modifying CTE's `DeleteStmt`, `intoClause` */
  writes: string[];
  /**
   * every name in the statements: each part of every name (String nodes) and each relation read
   * (RangeVar), for the names PostgreSQL keeps from PUBLIC, refused wherever they appear
   */
  names: string[];
  /**
   * the functions called by name: plain calls, aggregates and window functions, table functions in
   * FROM and ROWS FROM, what SQL syntax stands for (EXTRACT is pg_catalog.extract), TABLESAMPLE
   * methods; `args`: how many arguments (a call of a type's name with one is a cast)
   */
  calls: (NameRef & { args: number })[];
  /**
   * the operators: of expressions (those BETWEEN, IN, LIKE, NULLIF, IS DISTINCT FROM stand for too),
   * of subquery comparisons, of ORDER BY ... USING. `prefix`: it has no left operand (`-x`).
   */
  operators: (NameRef & { prefix: boolean })[];
  /** the types named: casts, typed literals (`date '...'`), column definitions */
  types: NameRef[];
  /** the last name of `x.f` and `(x).f`: PostgreSQL reads them as f(x) when x is a row without a column f */
  fields: string[];
  /** the relations read */
  relations: NameRef[];
}

const WRITES = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt', 'intoClause']);

type Node = Record<string, unknown>;
const stringOf = (node: unknown): string | undefined => (node as { String?: { sval?: string } })?.String?.sval;

/** `[catalog.][schema.]name`, from a list of String nodes. */
function nameRef(list: unknown): NameRef | undefined {
  const parts = Array.isArray(list) ? list.map(stringOf) : [];
  const name = parts.at(-1);
  if (name === undefined || parts.includes(undefined)) return undefined;
  const schema = parts.length >= 2 ? parts.at(-2) : undefined;
  return schema === undefined ? { name } : { schema, name };
}

/** The operators an A_Expr applies: BETWEEN is two comparisons, the rest name theirs. */
function exprOperators(expr: { kind?: string; name?: unknown }): NameRef[] {
  switch (expr.kind) {
    case 'AEXPR_BETWEEN':
    case 'AEXPR_BETWEEN_SYM':
      return [{ name: '>=' }, { name: '<=' }];
    case 'AEXPR_NOT_BETWEEN':
    case 'AEXPR_NOT_BETWEEN_SYM':
      return [{ name: '<' }, { name: '>' }];
    default: {
      const ref = nameRef(expr.name);
      return ref ? [ref] : [];
    }
  }
}

const SUBLINK_OPERATORS = new Set(['ANY_SUBLINK', 'ALL_SUBLINK', 'ROWCOMPARE_SUBLINK']);

/**
 * SQL/JSON syntax of PostgreSQL 16 to 18, whose parser the guard reads with, and the calls the
 * same text is to an older server: `json_scalar(1)` is a JsonScalarExpr here and, on PostgreSQL
 * 15, a call of whatever function on the search path has that name (the database's own, an
 * extension's). Each counts as a call of that name, which deny by default then judges.
 */
const SQL_JSON_CALLS: Readonly<Record<string, string>> = {
  JsonScalarExpr: 'json_scalar',
  JsonSerializeExpr: 'json_serialize',
  JsonParseExpr: 'json',
  JsonObjectConstructor: 'json_object',
  JsonArrayConstructor: 'json_array',
  JsonArrayQueryConstructor: 'json_array',
  JsonObjectAgg: 'json_objectagg',
  JsonArrayAgg: 'json_arrayagg',
  JsonTable: 'json_table',
  MergeSupportFunc: 'merge_action',
};
const JSON_FUNCTIONS: Readonly<Record<string, string>> = {
  JSON_EXISTS_OP: 'json_exists',
  JSON_QUERY_OP: 'json_query',
  JSON_VALUE_OP: 'json_value',
};
/**
 * Calls the grammar of 16 and later writes qualified, and older servers read unqualified (on the
 * search path): the legacy `json_object(...)` became `pg_catalog.json_object(...)` in 16.
 */
const QUALIFIED_SINCE_16 = new Set(['json_object']);

/** Collects, per node kind, what the guard checks; entries are kept once. */
class Collector {
  readonly writes: string[] = [];
  readonly names = new Set<string>();
  readonly #seen = new Set<string>();
  readonly calls: Parsed['calls'] = [];
  readonly operators: Parsed['operators'] = [];
  readonly types: NameRef[] = [];
  readonly fields: string[] = [];
  readonly relations: NameRef[] = [];

  #add<T>(list: T[], kind: string, item: T | undefined): void {
    if (item === undefined) return;
    const key = `${kind}\0${JSON.stringify(item)}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    list.push(item);
  }

  /** One node, by its kind (`key`); its children are walked after. */
  visit(key: string, value: Node): void {
    if (WRITES.has(key)) this.writes.push(key);
    const json = SQL_JSON_CALLS[key];
    if (json) this.#add(this.calls, 'call', { name: json, args: 1 });
    switch (key) {
      case 'String':
        if (typeof value.sval === 'string') this.names.add(value.sval);
        return;
      case 'RangeVar': {
        if (typeof value.relname !== 'string') return;
        const name = value.relname;
        this.names.add(name);
        this.#add(
          this.relations,
          key,
          typeof value.schemaname === 'string' ? { schema: value.schemaname, name } : { name },
        );
        return;
      }
      case 'FuncCall':
        this.#call(value.funcname, value.args);
        return;
      case 'JsonFuncExpr': {
        const name = JSON_FUNCTIONS[String(value.op)];
        if (name) this.#add(this.calls, 'call', { name, args: 2 });
        return;
      }
      case 'RangeTableSample':
        this.#call(value.method, value.args);
        return;
      case 'A_Expr': {
        const prefix = value.lexpr === undefined;
        for (const op of exprOperators(value)) this.#add(this.operators, key, { ...op, prefix });
        return;
      }
      case 'SubLink':
        if (SUBLINK_OPERATORS.has(String(value.subLinkType)))
          this.#add(this.operators, key, { ...(nameRef(value.operName) ?? { name: '=' }), prefix: false });
        return;
      case 'SortBy': {
        const ref = nameRef(value.useOp);
        if (ref) this.#add(this.operators, key, { ...ref, prefix: false });
        return;
      }
      case 'typeName':
      case 'TypeName':
        this.#add(this.types, 'type', nameRef(value.names));
        return;
      case 'ColumnRef': {
        const fields = Array.isArray(value.fields) ? value.fields : [];
        if (fields.length >= 2) this.#add(this.fields, key, stringOf(fields.at(-1)));
        return;
      }
      case 'A_Indirection':
        for (const item of Array.isArray(value.indirection) ? value.indirection : [])
          this.#add(this.fields, 'ColumnRef', stringOf(item));
        return;
    }
  }

  #call(names: unknown, args: unknown): void {
    let ref = nameRef(names);
    if (ref?.schema === 'pg_catalog' && QUALIFIED_SINCE_16.has(ref.name)) ref = { name: ref.name };
    if (ref) this.#add(this.calls, 'call', { ...ref, args: Array.isArray(args) ? args.length : 0 });
  }
}

/** What a text that does not parse leaves: the parser's error. */
export function unparsed(error: string): Parsed {
  return { error, kinds: [], writes: [], names: [], calls: [], operators: [], types: [], fields: [], relations: [] };
}

/** Reduces libpg-query's parse tree to what the guard reads. */
export function summarize(tree: { stmts?: { stmt?: Record<string, unknown> }[] }): Parsed {
  const statements = tree.stmts ?? [];
  const collect = new Collector();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) collect.visit(key, value as Node);
      walk(value);
    }
  };
  for (const s of statements) walk(s.stmt);
  return {
    kinds: statements.map((s) => Object.keys(s.stmt ?? {})[0] ?? 'nothing'),
    writes: collect.writes,
    names: [...collect.names],
    calls: collect.calls,
    operators: collect.operators,
    types: collect.types,
    fields: collect.fields,
    relations: collect.relations,
  };
}

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './parse-worker.ts' : './parse-worker.js',
  import.meta.url,
);

/**
 * PostgreSQL's parser (libpg-query, compiled to WebAssembly) on a thread of its own: a statement
 * of the sql tool's largest size takes it a tenth of a second or more, which must not stall the
 * event loop every other caller shares. Started on first use; a thread that dies is replaced by
 * the next call. It keeps the process alive only while a parse is pending.
 */
export class ParserThread {
  #worker?: Worker;
  readonly #pending = new Map<number, { resolve(p: Parsed): void; reject(e: Error): void }>();
  #next = 0;

  parse(text: string): Promise<Parsed> {
    const worker = this.#start();
    const id = ++this.#next;
    return new Promise<Parsed>((resolve, reject) => {
      // Held while a parse is pending, so a process with nothing else to do waits for its answer.
      if (this.#pending.size === 0) worker.ref();
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, text });
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_URL);
    worker.on('message', ({ id, parsed }: { id: number; parsed: Parsed }) => {
      this.#pending.get(id)?.resolve(parsed);
      this.#pending.delete(id);
      if (this.#pending.size === 0) worker.unref();
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
