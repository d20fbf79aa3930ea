/** Translation steps the read and write tools share: names, filters, order, keys, pages. */
import { parseFilter } from '@mcp-db-bench/contract';
import { faucetLiteral, faucetName, filterName, type Term, termsOf } from './filter.js';
import { type FaucetPeer, refuse } from './peer.js';
import { type Known, PAGE, type Row } from './shapes.js';

/** A column of the table; where Faucet validates names (fields, order, group), one its ValidateIdentifier takes. */
export function column(k: Known, name: unknown, validated = true): string {
  const n = String(name);
  if (!k.names.has(n)) refuse('unknown_column', `no column ${n} in ${k.name}`);
  if (validated && !faucetName(n)) refuse('invalid_argument', `faucet refuses the column name ${n} (a reserved word)`);
  return n;
}

export const fieldsOf = (k: Known, columns: readonly string[] | undefined) =>
  columns ? { fields: columns.map((c) => column(k, c)) } : {};

export function filterOf(k: Known, filter: unknown): Term[] | undefined {
  if (filter === undefined) return undefined;
  const terms = termsOf(parseFilter(filter as string | object), k.names, k.numeric);
  return (
    terms ??
    refuse(
      'unsupported_filter',
      `the faucet profile translates column op literal comparisons (and like) joined by and, not: ${JSON.stringify(filter)}`,
    )
  );
}

export function requiredFilter(k: Known, filter: unknown): Term[] {
  const terms = filter === undefined || filter === '' ? undefined : filterOf(k, filter);
  return terms ?? refuse('invalid_argument', 'filter: a write needs a filter naming the rows to change');
}

/** `order_by` as faucet_query's `order`, each name among `allowed`. */
export function orderOf(order: readonly string[], allowed: (name: string) => boolean): { order?: string } {
  const parts = order.map((o) => {
    const [name = '', dir = 'asc', ...rest] = o.trim().split(/\s+/);
    if (rest.length || !/^(asc|desc)$/i.test(dir) || !allowed(name) || !faucetName(name))
      return refuse('invalid_argument', `cannot order by ${o}`);
    return `${name} ${dir.toUpperCase()}`;
  });
  return parts.length ? { order: parts.join(', ') } : {};
}

/** A row with its keys in `names` order (Go sends a map's keys sorted), then any others. */
export function ordered(row: Row, names: readonly string[]): Row {
  const out: Row = {};
  for (const n of names) if (n in row) out[n] = row[n];
  for (const [n, v] of Object.entries(row)) if (!(n in out)) out[n] = v;
  return out;
}

export const pick = (row: Row, names: readonly string[]): Row => Object.fromEntries(names.map((n) => [n, row[n]]));

export function keyTerms(k: Known, key: unknown): Term[] {
  if (k.pk.length === 0) refuse('invalid_argument', `${k.name} has no primary key`);
  const values: Row =
    k.pk.length === 1 && (typeof key !== 'object' || key === null) ? { [k.pk[0]!]: key } : (key as Row);
  if (
    typeof values !== 'object' ||
    values === null ||
    Object.keys(values).length !== k.pk.length ||
    k.pk.some((c) => !(c in values))
  ) {
    refuse('invalid_argument', `the key of ${k.name} is ${k.pk.join(', ')}`);
  }
  return k.pk.map((c) => {
    if (!filterName(c)) refuse('invalid_argument', `faucet's filter cannot name the key column ${c}`);
    return { column: c, op: '=', literal: faucetLiteral(values[c]) };
  });
}

/** Up to `limit` records from `offset`, and whether more may follow (Faucet answers at most PAGE). */
export async function page(
  f: FaucetPeer,
  args: Row,
  limit: number,
  offset = 0,
): Promise<{ rows: Row[]; more: boolean }> {
  const want = Math.min(limit, PAGE);
  const rows = await f.records({ ...args, limit: Math.min(want + 1, PAGE), ...(offset ? { offset } : {}) });
  // asking for PAGE rows cannot tell "exactly PAGE" from "more": the next page says
  return { rows: rows.slice(0, want), more: rows.length > want || (want === PAGE && rows.length === PAGE) };
}
