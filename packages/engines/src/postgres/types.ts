import type { PortableType, Scalar } from '@mcp-db-bench/contract';

const PORTABLE: Readonly<Record<string, PortableType>> = {
  int2: 'integer',
  int4: 'integer',
  int8: 'integer',
  numeric: 'decimal',
  money: 'decimal',
  float4: 'float',
  float8: 'float',
  text: 'text',
  varchar: 'text',
  bpchar: 'text',
  char: 'text',
  name: 'text',
  citext: 'text',
  uuid: 'text',
  bool: 'boolean',
  date: 'date',
  time: 'time',
  timestamp: 'timestamp',
  timestamptz: 'timestamp',
  bytea: 'binary',
  json: 'json',
  jsonb: 'json',
};

/**
 * Maps a column's base type (`pg_type.typname`, after unwrapping a domain) to a portable type.
 * Serial and identity columns are plain int4/int8 here. `timetz` stays unknown on purpose: its
 * values carry their own offset, which the portable `time` form has no room for.
 */
export function portableType(typname: string, typtype = 'b'): PortableType {
  if (typtype === 'e') return 'text';
  return PORTABLE[typname] ?? 'unknown';
}

/** Precision and scale of a `numeric(p,s)` type modifier; null for unconstrained numeric. */
export function numericPrecision(typname: string, typmod: number): { precision: number | null; scale: number | null } {
  // money is a 64-bit count of cents (19 digits) shown with the two fraction digits of
  // lc_monetary=C, which connect() sets: the same facts as decimal(19,2) elsewhere
  if (typname === 'money') return { precision: 19, scale: 2 };
  if (typname !== 'numeric' || typmod < 4) return { precision: null, scale: null };
  const packed = typmod - 4;
  // the scale is an 11-bit signed field since PostgreSQL 15 (negative scales round left of the point)
  return { precision: (packed >> 16) & 0xffff, scale: ((packed & 0x7ff) ^ 0x400) - 0x400 };
}

const CAST_SUFFIX = String.raw`(?:::(?:"[^"]*"|[\w .,()[\]])+)*`;
const STRING_LITERAL = new RegExp(`^(E?)'((?:[^']|'')*)'${CAST_SUFFIX}$`, 's');
const NULL_LITERAL = new RegExp(`^null${CAST_SUFFIX}$`, 'i');
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const BOOLEAN = /^(?:true|false)$/i;
const NOW =
  /^(?:now\(\)|transaction_timestamp\(\)|statement_timestamp\(\)|current_timestamp(?:\(\d+\))?|localtimestamp(?:\(\d+\))?)$/i;

/**
 * Normalises a column default as `pg_get_expr` prints it: `'pending'::text` -> `pending`,
 * `'-1'::integer` -> `-1`, `now()` -> `CURRENT_TIMESTAMP`, `true` -> `1`, `NULL::text` -> null; any other
 * expression is returned as PostgreSQL prints it. Serial defaults (`nextval(...)`) are dropped
 * by the caller, which reports them as auto-increment.
 */
export function normalizeDefault(expression: string | null): string | null {
  if (expression === null) return null;
  const text = expression.trim();
  if (NULL_LITERAL.test(text)) return null;
  const literal = STRING_LITERAL.exec(text);
  if (literal) {
    const body = literal[2]!.replaceAll("''", "'");
    return literal[1] ? unescapeBackslashes(body) : body;
  }
  if (NUMBER.test(text)) return text;
  if (NOW.test(text)) return 'CURRENT_TIMESTAMP';
  // booleans as the other engines print them (MySQL tinyint(1), SQL Server bit, SQLite)
  if (BOOLEAN.test(text)) return /^true$/i.test(text) ? '1' : '0';
  return text;
}

/** E'...' strings: PostgreSQL only prints them when standard_conforming_strings is off. */
function unescapeBackslashes(body: string): string {
  const escapes: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
  return body.replace(/\\(.)/gs, (_, c: string) => escapes[c] ?? c);
}

/**
 * The parameter to bind for a validated portable value. pg sends parameters as text and the
 * server casts them to the column's type, so digit strings for big integers and decimals stay
 * exact; only binary needs a Buffer (text would be taken as bytea escape syntax).
 */
export function encodeParam(type: PortableType, value: Exclude<Scalar, null>): unknown {
  if (type === 'binary' && typeof value === 'string') return Buffer.from(value, 'base64');
  return value;
}
