/**
 * Our read tools answered with SQL through a peer's SQL tool: shared by every profile whose
 * server runs SQL (dbhub, sql-tool). Identifiers come from discovery only and are quoted by
 * the dialect; values are the dialect's literals (numbers checked finite), aggregate functions
 * come from a fixed list and limits are checked integers: the peer's tool takes no parameters,
 * so nothing else reaches the statement.
 */
import type { AggregateInput, DescribeTableOutput, GetInput, QueryInput } from '@mcp-db-bench/contract';
import type { ToolCallResult } from '../clients/client.js';
import { literal, type SqlDialect } from './dialects/index.js';
import { ok, type Translation, toolError } from './profile.js';
import { failed, type Query, SqlCatalog } from './sql-catalog.js';
import { aggregateOutputs, orderByClause, selectList, whereClause } from './sql-clauses.js';

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

/** What a tool's statement is written from and run through. */
interface Context {
  catalog: SqlCatalog;
  rows: Query;
  dialect: () => SqlDialect;
}

/**
 * Our read tools over `run`, in `dialect()` (a function: some profiles learn the engine from
 * tools/list), with what discovery learned kept for the session (`SqlCatalog`).
 */
export function sqlTools(run: RunSql, dialect: () => SqlDialect, discovery: SqlDiscovery = {}): Translation {
  const rows: Query = async (sql) => {
    const answer = await run(sql);
    return 'error' in answer ? toolError('peer_error', answer.error) : answer.rows;
  };
  const catalog = new SqlCatalog(rows, dialect, discovery);
  const context: Context = { catalog, rows, dialect };
  return {
    tools: {
      list_tables: async () => {
        const names = await catalog.listTables();
        if (!Array.isArray(names)) return names;
        return ok({ tables: names.map((name) => ({ name, kind: 'table', rows: null, summary: '' })) });
      },
      describe_table: async (args) => {
        const d = await catalog.describe(String(args.table));
        return 'isError' in d ? (d as ToolCallResult) : ok(d);
      },
      get: (args) => getRow(context, args as GetInput),
      query: (args) => queryRows(context, args as QueryInput),
      aggregate: (args) => aggregateRows(context, args as AggregateInput),
    },
    opened: () => catalog.forget(),
  };
}

/** A row limit as it may go into SQL (a non-negative integer; 100 when left out), or the error our server answers. */
function checkedLimit(value: unknown): number | ToolCallResult {
  const n = value === undefined ? DEFAULT_LIMIT : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0
    ? n
    : toolError('invalid_argument', `limit must be a non-negative integer, not ${JSON.stringify(value)}`);
}

/** One row by its primary key: a scalar for a one-column key, else an object naming every key column. */
async function getRow({ catalog, rows, dialect }: Context, args: GetInput): Promise<ToolCallResult> {
  const { table, key, columns } = args;
  const k = await catalog.table(table);
  if ('isError' in k) return k;
  const values =
    typeof key === 'object' && key !== null
      ? (key as Record<string, unknown>)
      : k.primaryKey.length === 1
        ? { [k.primaryKey[0]!]: key }
        : undefined;
  if (!values || Object.keys(values).some((c) => !k.primaryKey.includes(c)))
    return toolError('invalid_argument', `key does not match the primary key (${k.primaryKey.join(', ')})`);
  const d = dialect();
  const select = selectList(k, columns, d);
  if (typeof select !== 'string') return select;
  const cond = Object.entries(values)
    .map(([c, v]) => `${d.quote(c)} = ${literal(d, v)}`)
    .join(' and ');
  const r = await rows(d.limit(`select ${select} from ${d.quote(table)} where ${cond}`, 1));
  if (failed(r)) return r;
  return ok({ found: r.length > 0, row: r[0] ?? null });
}

/** Rows of one table, one more than the limit asked for so a cut page says it is truncated. */
async function queryRows({ catalog, rows, dialect }: Context, args: QueryInput): Promise<ToolCallResult> {
  const { table, columns, filter, order_by } = args;
  const limit = checkedLimit(args.limit);
  if (typeof limit !== 'number') return limit;
  const k = await catalog.table(table);
  if ('isError' in k) return k;
  const d = dialect();
  const parts = [
    selectList(k, columns, d),
    whereClause(k, filter, d),
    orderByClause(k.columns, order_by, k.primaryKey, d),
  ];
  const bad = parts.find((p) => typeof p !== 'string');
  if (bad) return bad as ToolCallResult;
  const [select, cond, order] = parts as string[];
  const r = await rows(d.limit(`select ${select} from ${d.quote(table)}${cond}${order}`, limit + 1));
  if (failed(r)) return r;
  const page = r.slice(0, limit);
  return ok({ columns: Object.keys(page[0] ?? {}), rows: page, truncated: r.length > limit, next_cursor: null });
}

/** Aggregates over one table, grouped by its columns, ordered by groups or outputs. */
async function aggregateRows({ catalog, rows, dialect }: Context, args: AggregateInput): Promise<ToolCallResult> {
  const { table, aggregates, group_by = [], filter, order_by } = args;
  if (!Array.isArray(aggregates) || aggregates.length === 0)
    return toolError('invalid_argument', 'aggregates must be a non-empty list');
  const cap = checkedLimit(args.limit);
  if (typeof cap !== 'number') return cap;
  const k = await catalog.table(table);
  if ('isError' in k) return k;
  const d = dialect();
  const out = aggregateOutputs(k, aggregates, group_by, d);
  if ('isError' in out) return out;
  const bad = group_by.find((c) => !k.columns.has(c));
  if (bad) return toolError('unknown_column', `no column ${bad}`);
  const cond = whereClause(k, filter, d);
  if (typeof cond !== 'string') return cond;
  const order = orderByClause(out.names, order_by, group_by, d);
  if (typeof order !== 'string') return order;
  const q = d.quote;
  const group = group_by.length ? ` group by ${group_by.map(q).join(', ')}` : '';
  const select = `select ${[...group_by.map(q), ...out.outputs].join(', ')} from ${q(table)}${cond}${group}${order}`;
  const r = await rows(d.limit(select, cap + 1));
  if (failed(r)) return r;
  const page = r.slice(0, cap);
  return ok({ columns: Object.keys(page[0] ?? {}), rows: page, truncated: r.length > cap });
}
