import { type Scalar, type SetValue, ToolError } from '@mcp-db-bench/contract';
import type { Engine } from '@mcp-db-bench/engines';
import { type RawBuilder, sql } from 'kysely';
import type { Column, Table } from '../catalog/types.js';
import { coerceValue } from '../filter/coerce.js';
import { resolveColumn } from '../query/names.js';

/** A caller's value for a column, checked against its type and encoded for the driver. */
export function bindValue(column: Column, value: Scalar, engine: Engine, where: string): unknown {
  if (value === null) {
    if (!column.nullable) throw new ToolError('type_mismatch', `${where}: ${column.name} cannot be null`);
    return null;
  }
  return engine.encodeParam(column.type, coerceValue(column.type, value, where));
}

/** Rows as column lists and encoded values, grouped into runs that name the same columns. */
export function insertGroups(table: Table, rows: readonly Record<string, Scalar>[], engine: Engine, path: string) {
  const groups: { columns: Column[]; rows: unknown[][] }[] = [];
  rows.forEach((row, i) => {
    const names = Object.keys(row);
    if (names.length === 0) throw new ToolError('invalid_argument', `${path}[${i}]: names no column`);
    const columns = names.map((n) => resolveColumn(table, n, `${path}[${i}]`));
    const values = columns.map((c, j) => bindValue(c, row[names[j]!]!, engine, `${path}[${i}].${c.name}`));
    const last = groups.at(-1);
    const same = last && last.columns.length === columns.length && last.columns.every((c, j) => c === columns[j]);
    if (same) last.rows.push(values);
    else groups.push({ columns, rows: [values] });
  });
  return groups;
}

const NUMERIC = new Set(['integer', 'decimal', 'float']);

/** `set` as SQL assignments; `{"add": n}` adds inside the database, so no concurrent update is lost. */
export function assignments(table: Table, set: Record<string, SetValue>, engine: Engine): RawBuilder<unknown> {
  const parts = Object.entries(set).map(([name, value]) => {
    const column = resolveColumn(table, name, 'set');
    if (table.primaryKey.includes(column.name)) {
      throw new ToolError(
        'invalid_argument',
        `set.${column.name}: primary key columns cannot be updated; delete and insert instead`,
      );
    }
    const target = sql.id(column.name);
    if (value === null || typeof value !== 'object')
      return sql`${target} = ${bindValue(column, value, engine, `set.${column.name}`)}`;
    if (!NUMERIC.has(column.type)) {
      throw new ToolError(
        'type_mismatch',
        `set.${column.name}: add needs a numeric column; ${column.name} is ${column.type}`,
      );
    }
    const amount = bindValue(column, value.add, engine, `set.${column.name}.add`);
    if (column.type !== 'decimal' || column.precision === null) return sql`${target} = ${target} + ${amount}`;
    // An untyped parameter would make MySQL add in floating point: say it is this decimal.
    // Rounding to the scale changes nothing where decimals are exact, and keeps SQLite, which
    // stores them as doubles, from drifting a fraction of a cent with every addition.
    const scale = sql.raw(String(column.scale ?? 0));
    const typed = sql`cast(${amount} as decimal(${sql.raw(String(column.precision))}, ${scale}))`;
    return sql`${target} = round(${target} + ${typed}, ${scale})`;
  });
  return sql.join(parts);
}
