import { sql as kyselySql, type RawBuilder } from 'kysely';
import { decodeValue } from '../output/decode.js';
import type { NamedStatement } from './named-params.js';

/** A statement split at its `:name` parameters (see splitNamedParameters), each bound to its encoded value. */
export function bindNamed(statement: NamedStatement, values: readonly unknown[]): RawBuilder<unknown> {
  const { texts } = statement;
  return kyselySql.join(
    texts.flatMap((t, i) => (i < values.length ? [kyselySql.raw(t), kyselySql`${values[i]}`] : [kyselySql.raw(t)])),
    kyselySql.raw(''),
  );
}

/** Rows as the driver gives them, at most `limit`, made JSON-safe, with their columns. */
export function looseRows(raw: readonly Record<string, unknown>[], limit: number) {
  const columns = raw[0] ? Object.keys(raw[0]) : [];
  const rows = raw.slice(0, limit).map((r) => Object.fromEntries(columns.map((c) => [c, looseValue(r[c])])));
  return { columns, rows, truncated: raw.length > limit };
}

/** Driver values made JSON-safe: big integers as strings, bytes as base64, dates as ISO-8601. */
function looseValue(raw: unknown) {
  if (typeof raw === 'bigint') return decodeValue({ type: 'integer', scale: null }, raw);
  if (raw instanceof Uint8Array) return decodeValue({ type: 'binary', scale: null }, raw);
  if (raw instanceof Date) return raw.toISOString();
  return (raw ?? null) as string | number | boolean | null;
}
