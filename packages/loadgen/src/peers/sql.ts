/**
 * Our read tools answered with SQL through a peer's SQL tool: shared by every profile whose
 * server runs SQL (dbhub, sql-tool). Identifiers come from discovery only and are quoted by
 * the dialect; values are the dialect's literals (numbers checked finite), aggregate functions
 * come from a fixed list and limits are checked integers: the peer's tool takes no parameters,
 * so nothing else reaches the statement.
 */
import {
  AGGREGATE_FUNCTIONS,
  type AggregateInput,
  aggregateOutputName,
  type DescribeTableOutput,
  type FilterNode,
  type FilterOp,
  type GetInput,
  type PortableType,
  parseFilter,
  type QueryInput,
  ToolError,
} from '@mcp-db-bench/contract';
import type { ToolCallResult } from '../clients/client.js';
import type { SqlDialect } from './dialects/index.js';
import { literal } from './dialects/index.js';
import { ok, type Translation, toolError } from './profile.js';

export type Rows = Record<string, unknown>[];
/** Runs one statement through the peer; rows, or the peer's error as text. */
export type RunSql = (sql: string) => Promise<{ rows: Rows } | { error: string }>;

/** Discovery a profile may answer from the peer's own tools instead of the catalog queries. */
export interface SqlDiscovery {
  tables?(): Promise<string[]>;
  /** columns, primary key and row count; foreign keys always come from the dialect's catalog query */
  table?(name: string): Promise<Pick<DescribeTableOutput, 'columns' | 'primary_key' | 'rows'> | undefined>;
}

const DEFAULT_LIMIT = 100;
const FUNCTIONS: ReadonlySet<string> = new Set(AGGREGATE_FUNCTIONS);

/** A row limit as it may go into SQL: a non-negative integer, or undefined when it is anything else. */
export function rowLimit(value: unknown, fallback = DEFAULT_LIMIT): number | undefined {
  const n = value === undefined ? fallback : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** A declared SQL type as one of our portable types, for the choices workloads make (numeric measures). */
export function portableType(declared: string): PortableType {
  const t = declared.toLowerCase();
  if (/int|serial/.test(t)) return 'integer';
  if (/dec|numeric|money/.test(t)) return 'decimal';
  if (/real|float|double/.test(t)) return 'float';
  if (/bool/.test(t)) return 'boolean';
  if (/timestamp|datetime/.test(t)) return 'timestamp';
  if (/^date/.test(t)) return 'date';
  if (/json/.test(t)) return 'json';
  return 'text';
}

/** Our comparisons in SQL: the same in every dialect profiles write. */
const SQL_COMPARISONS: Partial<Record<FilterOp, string>> = {
  '=': '=',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

/**
 * Our filter tree as SQL in `dialect`: names among `columns`, quoted by the dialect; values as its literals.
 * Everything but like, whose escape differs per engine; undefined when the tree is outside that.
 */
export function filterSql(node: FilterNode, columns: ReadonlySet<string>, dialect: SqlDialect): string | undefined {
  if ('and' in node || 'or' in node) {
    const [kind, children] = 'and' in node ? ['and', node.and] : ['or', node.or];
    const parts: string[] = [];
    for (const child of children) {
      const sql = filterSql(child, columns, dialect);
      if (sql === undefined) return undefined;
      // not binds tighter than and and or in SQL, as in our grammar: only a group inside a group is bracketed
      parts.push('and' in child || 'or' in child ? `(${sql})` : sql);
    }
    return parts.join(` ${kind} `);
  }
  if ('not' in node) {
    const sql = filterSql(node.not, columns, dialect);
    return sql === undefined ? undefined : `not (${sql})`;
  }
  if (!columns.has(node.column)) return undefined;
  const column = dialect.quote(node.column);
  const value = (v: unknown) => literal(dialect, v);
  switch (node.op) {
    case 'is null':
    case 'is not null':
      return `${column} ${node.op}`;
    case 'in':
    case 'not in':
      return `${column} ${node.op} (${node.value.map(value).join(', ')})`;
    case 'between':
    case 'not between':
      return `${column} ${node.op} ${value(node.value[0])} and ${value(node.value[1])}`;
    case 'like':
    case 'not like':
      return undefined;
    default:
      return `${column} ${SQL_COMPARISONS[node.op]} ${value(node.value)}`;
  }
}

interface Known {
  columns: Set<string>;
  primaryKey: string[];
}

/**
 * Our read tools over `run`, in `dialect()` (a function: some profiles learn the engine from
 * tools/list). What discovery learned (the table list, foreign keys, each described table) is
 * kept for the session, as an agent keeps it in context, and forgotten when a new one opens: a
 * describe does not list the tables again, and a new session pays its own discovery.
 */
export function sqlTools(run: RunSql, dialect: () => SqlDialect, discovery: SqlDiscovery = {}): Translation {
  const known = new Map<string, Known>();
  let tables: string[] | undefined;
  let foreignKeys: Promise<Rows> | undefined;

  const rows = async (sql: string): Promise<Rows | ToolCallResult> => {
    const answer = await run(sql);
    return 'error' in answer ? toolError('peer_error', answer.error) : answer.rows;
  };
  const failed = (r: Rows | ToolCallResult): r is ToolCallResult => !Array.isArray(r);

  /** The peer's tables, asked for each list_tables (the agent's own call) and kept for the session. */
  async function listTables(): Promise<string[] | ToolCallResult> {
    if (discovery.tables) {
      tables = await discovery.tables();
      return tables;
    }
    const r = await rows(dialect().tables);
    if (failed(r)) return r;
    tables = r.map((t) => String(t.name));
    return tables;
  }

  async function describe(table: string): Promise<DescribeTableOutput | ToolCallResult> {
    // the list this session already has; listed here only when describe comes first
    const names = tables ?? (await listTables());
    if (!Array.isArray(names)) return names;
    if (!names.includes(table)) return toolError('unknown_table', `no table ${table}`);
    const d = dialect();
    let shape = await discovery.table?.(table);
    if (!shape) {
      const cols = await rows(d.columns(literal(d, table)));
      if (failed(cols)) return cols;
      const count = await rows(`select count(*) as n from ${d.quote(table)}`);
      if (failed(count)) return count;
      shape = {
        rows: Number(count[0]?.n ?? 0),
        columns: cols.map((c) => column(String(c.name), String(c.type), Boolean(Number(c.nullable)))),
        primary_key: cols
          .filter((c) => Number(c.pk) > 0)
          .sort((a, b) => Number(a.pk) - Number(b.pk))
          .map((c) => String(c.name)),
      };
    }
    foreignKeys ??= rows(d.foreignKeys).then((r) => (failed(r) ? [] : r));
    const fks = single(await foreignKeys);
    known.set(table, { columns: new Set(shape.columns.map((c) => c.name)), primaryKey: shape.primary_key });
    return {
      name: table,
      kind: 'table',
      ...shape,
      foreign_keys: fks
        .filter((f) => f.table === table)
        .map((f) => ({ columns: [f.column], table: f.ref_table, references: [f.ref_column] })),
      referenced_by: fks
        .filter((f) => f.ref_table === table)
        .map((f) => ({ table: f.table, columns: [f.column], references: [f.ref_column] })),
      indexes: [],
    } as DescribeTableOutput;
  }

  /** A table's columns and key, described first if the agent has not yet. */
  async function knownTable(table: unknown): Promise<Known | ToolCallResult> {
    if (typeof table !== 'string') return toolError('invalid_argument', 'table must be a string');
    const k = known.get(table);
    if (k) return k;
    const d = await describe(table);
    return 'isError' in d ? d : known.get(table)!;
  }

  const pick = (k: Known, columns: unknown): string | ToolCallResult => {
    if (columns === undefined) return '*';
    const list = columns as string[];
    const bad = list.find((c) => !k.columns.has(c));
    return bad ? toolError('unknown_column', `no column ${bad}`) : list.map(dialect().quote).join(', ');
  };

  /** Our filter, read by our grammar (so it fails as our server's does), as a where clause. */
  const where = (k: Known, filter: unknown): string | ToolCallResult => {
    if (filter === undefined) return '';
    let tree: FilterNode;
    try {
      tree = parseFilter(filter as string | object);
    } catch (error) {
      if (error instanceof ToolError) return toolError(error.code, error.message);
      throw error;
    }
    const sql = filterSql(tree, k.columns, dialect());
    const shown = JSON.stringify(filter).slice(0, 200);
    if (sql === undefined) {
      return toolError(
        'unsupported_filter',
        `the profile translates filters on known columns without like, not: ${shown}`,
      );
    }
    return ` where ${sql}`;
  };

  const orderBy = (
    names: ReadonlySet<string>,
    order: unknown,
    fallback: readonly string[],
  ): string | ToolCallResult => {
    const keys = (order as string[] | undefined) ?? [...fallback];
    const out: string[] = [];
    for (const key of keys) {
      const [name, dir = 'asc', ...rest] = key.trim().split(/\s+/);
      if (!names.has(name!) || rest.length || !/^(asc|desc)$/i.test(dir))
        return toolError('invalid_argument', `cannot order by ${key}`);
      out.push(`${dialect().quote(name!)} ${dir.toLowerCase()}`);
    }
    return out.length ? ` order by ${out.join(', ')}` : '';
  };

  const tools: Translation['tools'] = {
    list_tables: async () => {
      const names = await listTables();
      if (!Array.isArray(names)) return names;
      return ok({ tables: names.map((name) => ({ name, kind: 'table', rows: null, summary: '' })) });
    },
    describe_table: async (args) => {
      const d = await describe(String(args.table));
      return 'isError' in d ? (d as ToolCallResult) : ok(d);
    },
    get: async (args) => {
      const { table, key, columns } = args as GetInput;
      const k = await knownTable(table);
      if ('isError' in k) return k;
      const values =
        typeof key === 'object' && key !== null
          ? (key as Record<string, unknown>)
          : k.primaryKey.length === 1
            ? { [k.primaryKey[0]!]: key }
            : undefined;
      if (!values || Object.keys(values).some((c) => !k.primaryKey.includes(c)))
        return toolError('invalid_argument', `key does not match the primary key (${k.primaryKey.join(', ')})`);
      const select = pick(k, columns);
      if (typeof select !== 'string') return select;
      const d = dialect();
      const cond = Object.entries(values)
        .map(([c, v]) => `${d.quote(c)} = ${literal(d, v)}`)
        .join(' and ');
      const r = await rows(d.limit(`select ${select} from ${d.quote(table)} where ${cond}`, 1));
      if (failed(r)) return r;
      return ok({ found: r.length > 0, row: r[0] ?? null });
    },
    query: async (args) => {
      const { table, columns, filter, order_by } = args as QueryInput;
      const limit = rowLimit(args.limit);
      if (limit === undefined)
        return toolError('invalid_argument', `limit must be a non-negative integer, not ${JSON.stringify(args.limit)}`);
      const k = await knownTable(table);
      if ('isError' in k) return k;
      const parts = [pick(k, columns), where(k, filter), orderBy(k.columns, order_by, k.primaryKey)];
      const bad = parts.find((p) => typeof p !== 'string');
      if (bad) return bad as ToolCallResult;
      const [select, cond, order] = parts as string[];
      const r = await rows(
        dialect().limit(`select ${select} from ${dialect().quote(table)}${cond}${order}`, limit + 1),
      );
      if (failed(r)) return r;
      const page = r.slice(0, limit);
      return ok({ columns: Object.keys(page[0] ?? {}), rows: page, truncated: r.length > limit, next_cursor: null });
    },
    aggregate: async (args) => {
      const { table, aggregates, group_by = [], filter, order_by } = args as AggregateInput;
      if (!Array.isArray(aggregates) || aggregates.length === 0)
        return toolError('invalid_argument', 'aggregates must be a non-empty list');
      const cap = rowLimit(args.limit);
      if (cap === undefined)
        return toolError('invalid_argument', `limit must be a non-negative integer, not ${JSON.stringify(args.limit)}`);
      const k = await knownTable(table);
      if ('isError' in k) return k;
      const q = dialect().quote;
      const outputs: string[] = [];
      const names = new Set(group_by);
      for (const a of aggregates) {
        // the function name goes into the statement as it is: only ours, never the caller's text
        if (!FUNCTIONS.has(a.fn))
          return toolError(
            'invalid_argument',
            `aggregate function ${JSON.stringify(a.fn)}: one of ${AGGREGATE_FUNCTIONS.join(', ')}`,
          );
        if (a.column !== undefined && !k.columns.has(a.column))
          return toolError('unknown_column', `no column ${a.column}`);
        const name = aggregateOutputName(a);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return toolError('invalid_argument', `bad output name ${name}`);
        outputs.push(`${a.fn}(${a.column ? q(a.column) : '*'}) as ${q(name)}`);
        names.add(name);
      }
      const bad = group_by.find((c) => !k.columns.has(c));
      if (bad) return toolError('unknown_column', `no column ${bad}`);
      const cond = where(k, filter);
      if (typeof cond !== 'string') return cond;
      const order = orderBy(names, order_by, group_by);
      if (typeof order !== 'string') return order;
      const group = group_by.length ? ` group by ${group_by.map(q).join(', ')}` : '';
      const select = `select ${[...group_by.map(q), ...outputs].join(', ')} from ${q(table)}${cond}${group}${order}`;
      const r = await rows(dialect().limit(select, cap + 1));
      if (failed(r)) return r;
      const page = r.slice(0, cap);
      return ok({ columns: Object.keys(page[0] ?? {}), rows: page, truncated: r.length > cap });
    },
  };
  return {
    tools,
    opened() {
      known.clear();
      tables = undefined;
      foreignKeys = undefined;
    },
  };
}

const column = (name: string, type: string, nullable: boolean): DescribeTableOutput['columns'][number] => ({
  name,
  type: portableType(type),
  precision: null,
  scale: null,
  nullable,
  default: null,
  auto_increment: false,
});

interface ForeignKey {
  table: string;
  column: string;
  ref_table: string;
  ref_column: string;
}

/** Single-column foreign keys (composite ones are left out, as the workloads follow single columns). */
function single(rows: Rows): ForeignKey[] {
  const byKey = new Map<string, Rows>();
  for (const r of rows) {
    const id = `${r.table}\u0000${r.fk}`;
    byKey.set(id, [...(byKey.get(id) ?? []), r]);
  }
  return [...byKey.values()]
    .filter((g) => g.length === 1)
    .map((g) => {
      const r = g[0]!;
      return {
        table: String(r.table),
        column: String(r.column),
        ref_table: String(r.ref_table),
        ref_column: String(r.ref_column),
      };
    });
}
