import { sql as kyselySql, type RawBuilder } from 'kysely';
import { type DecodeTarget, decodeValue } from '../output/decode.js';
import type { NamedStatement } from './named-params.js';

/** A statement split at its `:name` parameters (see splitNamedParameters), each bound to its encoded value. */
export function bindNamed(statement: NamedStatement, values: readonly unknown[]): RawBuilder<unknown> {
  const { texts } = statement;
  return kyselySql.join(
    texts.flatMap((t, i) => (i < values.length ? [kyselySql.raw(t), kyselySql`${values[i]}`] : [kyselySql.raw(t)])),
    kyselySql.raw(''),
  );
}

/**
 * Rows as the driver gives them, at most `limit`, made JSON-safe, with their columns; a column
 * whose portable type `typeOf` knows is rendered as the structured tools render it.
 */
export function looseRows(
  raw: readonly Record<string, unknown>[],
  limit: number,
  typeOf: (column: string) => DecodeTarget | undefined = () => undefined,
) {
  const columns = raw[0] ? Object.keys(raw[0]) : [];
  const render = columns.map((c) => {
    const target = typeOf(c);
    return target ? (value: unknown) => typedValue(target, value) : looseValue;
  });
  const rows = raw.slice(0, limit).map((r) => Object.fromEntries(columns.map((c, i) => [c, render[i]!(r[c])])));
  return { columns, rows, truncated: raw.length > limit };
}

/** A value of a known type, as the structured tools give it; loosely when it is not what the type says. */
function typedValue(target: DecodeTarget, raw: unknown) {
  try {
    return decodeValue(target, raw);
  } catch {
    return looseValue(raw);
  }
}

/** Driver values made JSON-safe: big integers as strings, bytes as base64, dates as ISO-8601. */
function looseValue(raw: unknown) {
  if (typeof raw === 'bigint') return decodeValue({ type: 'integer', scale: null }, raw);
  if (raw instanceof Uint8Array) return decodeValue({ type: 'binary', scale: null }, raw);
  if (raw instanceof Date) return raw.toISOString();
  return (raw ?? null) as string | number | boolean | null;
}
