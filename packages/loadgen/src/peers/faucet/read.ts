/** Our read tools through Faucet's: list_tables, describe_table, get, query, aggregate. */
import {
  type AggregateInput,
  type AggregateSpec,
  aggregateOutputName,
  type DescribeTableOutput,
  type GetInput,
  type QueryInput,
} from '@mcp-db-bench/contract';
import { portableType } from '../sql.js';
import { faucetName, render } from './filter.js';
import { type FaucetPeer, refuse } from './peer.js';
import { CURSOR, DEFAULT_LIMIT, type Known, type Row } from './shapes.js';
import { column, fieldsOf, filterOf, keyTerms, ordered, orderOf, page } from './steps.js';

export async function listTables(f: FaucetPeer) {
  const all = await f.list();
  return {
    tables: all.map((t) => ({
      name: t.name,
      kind: t.type === 'view' ? 'view' : 'table',
      rows: t.row_count ?? null,
      summary: '',
    })),
  };
}

const foreignKeys = (k: Known) =>
  (k.schema.foreign_keys ?? []).map((fk) => ({
    columns: [fk.column_name],
    table: fk.referenced_table,
    references: [fk.referenced_column],
  }));

function decimalSize(dbType: string): { precision: number | null; scale: number | null } {
  const m = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(dbType);
  return portableType(dbType) === 'decimal' && m
    ? { precision: Number(m[1]), scale: Number(m[2] ?? 0) }
    : { precision: null, scale: null };
}

export async function describeTable(f: FaucetPeer, args: Row): Promise<DescribeTableOutput> {
  const k = await f.table(args.table);
  const all = [...(await f.known()).values()];
  return {
    name: k.name,
    kind: k.kind,
    rows: k.rows,
    columns: (k.schema.columns ?? []).map((c) => ({
      name: c.name,
      type: portableType(c.db_type ?? ''),
      ...decimalSize(c.db_type ?? ''),
      nullable: c.nullable,
      default: c.default ?? null,
      auto_increment: c.is_auto_increment,
    })),
    primary_key: k.pk,
    foreign_keys: foreignKeys(k),
    referenced_by: all.flatMap((other) =>
      foreignKeys(other)
        .filter((fk) => fk.table === k.name)
        .map((fk) => ({ table: other.name, columns: fk.columns, references: fk.references })),
    ),
    indexes: (k.schema.indexes ?? []).map((i) => ({ columns: i.columns ?? [], unique: i.is_unique })),
  };
}

export async function get(f: FaucetPeer, args: Row) {
  const { table, key, columns } = args as GetInput;
  const k = await f.table(table);
  const rows = await f.records({ table: k.name, filter: render(keyTerms(k, key)), limit: 1, ...fieldsOf(k, columns) });
  return { found: rows.length > 0, row: rows[0] ? ordered(rows[0], columns ?? k.columns) : null };
}

export async function query(f: FaucetPeer, args: Row) {
  const { table, columns, filter, order_by, limit = DEFAULT_LIMIT, cursor } = args as QueryInput;
  const k = await f.table(table);
  const terms = filterOf(k, filter);
  const offset =
    cursor === undefined
      ? 0
      : Number(CURSOR.exec(cursor)?.[1] ?? refuse('invalid_argument', `not a cursor of this profile: ${cursor}`));
  const request = {
    table: k.name,
    ...fieldsOf(k, columns),
    ...(terms ? { filter: render(terms) } : {}),
    ...orderOf(order_by ?? k.pk, (n) => k.names.has(n)),
  };
  const { rows, more } = await page(f, request, limit, offset);
  const names = columns ?? k.columns;
  return {
    columns: names,
    rows: rows.map((r) => ordered(r, names)),
    truncated: more,
    next_cursor: more ? `faucet:${offset + rows.length}` : null,
  };
}

/** One aggregate as a faucet_query field, "SUM(amount) AS sum_amount" (ParseProjection's form). */
function aggregateField(k: Known, spec: AggregateSpec): { field: string; alias: string } {
  if (spec.column === undefined && spec.fn !== 'count') refuse('invalid_argument', `${spec.fn} needs a column`);
  const arg = spec.column === undefined ? '*' : column(k, spec.column);
  const alias = aggregateOutputName(spec);
  if (!faucetName(alias)) refuse('invalid_argument', `faucet refuses the output name ${alias}`);
  return { field: `${spec.fn.toUpperCase()}(${arg}) AS ${alias}`, alias };
}

export async function aggregate(f: FaucetPeer, args: Row) {
  const { table, aggregates, group_by = [], filter, having, order_by, limit = DEFAULT_LIMIT } = args as AggregateInput;
  if (having !== undefined) refuse('invalid_argument', 'faucet: faucet_query has no having');
  const k = await f.table(table);
  const groups = group_by.map((g) => column(k, g));
  const fields = aggregates.map((a) => aggregateField(k, a));
  const outputs = [...groups, ...fields.map((x) => x.alias)];
  if (new Set(outputs).size !== outputs.length)
    refuse('invalid_argument', `output names repeat: ${outputs.join(', ')}`);
  const terms = filterOf(k, filter);
  const request = {
    table: k.name,
    fields: [...groups, ...fields.map((x) => x.field)],
    ...(groups.length ? { group: groups.join(',') } : {}),
    ...(terms ? { filter: render(terms) } : {}),
    ...orderOf(order_by ?? groups, (n) => outputs.includes(n)),
  };
  const { rows, more } = await page(f, request, limit);
  return { columns: outputs, rows: rows.map((r) => ordered(r, outputs)), truncated: more };
}
