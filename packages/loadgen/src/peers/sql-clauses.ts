/**
 * The clauses of the statements the SQL profiles write, each checked against what discovery
 * learned: names among the table's columns and quoted by the dialect, values as its literals,
 * aggregate functions from our fixed list. A clause is its text, or the tool error our server
 * would answer for the same arguments.
 */
import {
  AGGREGATE_FUNCTIONS,
  type AggregateInput,
  aggregateOutputName,
  type FilterNode,
  type FilterOp,
  parseFilter,
  ToolError,
} from '@mcp-db-bench/contract';
import type { ToolCallResult } from '../clients/client.js';
import { literal, type SqlDialect } from './dialects/index.js';
import { toolError } from './profile.js';
import type { KnownTable } from './sql-catalog.js';

const FUNCTIONS: ReadonlySet<string> = new Set(AGGREGATE_FUNCTIONS);

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

/** The select list: every column when none are asked for, else the asked ones, each known. */
export function selectList(table: KnownTable, columns: unknown, dialect: SqlDialect): string | ToolCallResult {
  if (columns === undefined) return '*';
  const list = columns as string[];
  const bad = list.find((c) => !table.columns.has(c));
  return bad ? toolError('unknown_column', `no column ${bad}`) : list.map(dialect.quote).join(', ');
}

/** Our filter, read by our grammar (so it fails as our server's does), as a where clause. */
export function whereClause(table: KnownTable, filter: unknown, dialect: SqlDialect): string | ToolCallResult {
  if (filter === undefined) return '';
  let tree: FilterNode;
  try {
    tree = parseFilter(filter as string | object);
  } catch (error) {
    if (error instanceof ToolError) return toolError(error.code, error.message);
    throw error;
  }
  const sql = filterSql(tree, table.columns, dialect);
  const shown = JSON.stringify(filter).slice(0, 200);
  if (sql === undefined) {
    return toolError(
      'unsupported_filter',
      `the profile translates filters on known columns without like, not: ${shown}`,
    );
  }
  return ` where ${sql}`;
}

/** `order_by` (`name [asc|desc]`, names among `names`), or `fallback` ascending when it is left out. */
export function orderByClause(
  names: ReadonlySet<string>,
  order: unknown,
  fallback: readonly string[],
  dialect: SqlDialect,
): string | ToolCallResult {
  const keys = (order as string[] | undefined) ?? [...fallback];
  const out: string[] = [];
  for (const key of keys) {
    const [name, dir = 'asc', ...rest] = key.trim().split(/\s+/);
    if (!names.has(name!) || rest.length || !/^(asc|desc)$/i.test(dir))
      return toolError('invalid_argument', `cannot order by ${key}`);
    out.push(`${dialect.quote(name!)} ${dir.toLowerCase()}`);
  }
  return out.length ? ` order by ${out.join(', ')}` : '';
}

/** The aggregates as select outputs, and the names an aggregate's order_by may use (group columns included). */
export function aggregateOutputs(
  table: KnownTable,
  aggregates: AggregateInput['aggregates'],
  groupBy: readonly string[],
  dialect: SqlDialect,
): { outputs: string[]; names: Set<string> } | ToolCallResult {
  const q = dialect.quote;
  const outputs: string[] = [];
  const names = new Set(groupBy);
  for (const a of aggregates) {
    // the function name goes into the statement as it is: only ours, never the caller's text
    if (!FUNCTIONS.has(a.fn))
      return toolError(
        'invalid_argument',
        `aggregate function ${JSON.stringify(a.fn)}: one of ${AGGREGATE_FUNCTIONS.join(', ')}`,
      );
    if (a.column !== undefined && !table.columns.has(a.column))
      return toolError('unknown_column', `no column ${a.column}`);
    const name = aggregateOutputName(a);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return toolError('invalid_argument', `bad output name ${name}`);
    outputs.push(`${a.fn}(${a.column ? q(a.column) : '*'}) as ${q(name)}`);
    names.add(name);
  }
  return { outputs, names };
}
