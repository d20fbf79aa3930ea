import type { PortableType } from '@mcp-db-bench/contract';
import { type Scalar, ToolError } from '@mcp-db-bench/contract';
import { timestamp } from '../output/decode.js';

/** A filter, key or cursor value in its canonical form for the column's portable type. */
export type Canonical = string | number | boolean;

const EXAMPLES: Record<PortableType, string> = {
  integer: 'an integer such as 42 (or "9007199254740993" past 2^53), within 64 bits',
  decimal: 'a number such as 12.5 or "12.50"',
  float: 'a number such as 1.5',
  text: 'a string',
  boolean: 'true or false',
  date: 'a date such as "2024-05-01"',
  time: 'a time such as "13:45:00"',
  timestamp: 'an ISO-8601 timestamp such as "2024-05-01T13:45:00Z"',
  binary: 'a base64 string',
  json: 'nothing: json columns can only be tested with is null / is not null',
  unknown: 'a string',
};

/**
 * Checks a caller's value against a column's type and returns its canonical form, so the
 * same literal binds the same way on every engine (and a wrong one fails before any SQL).
 * `where` names the value in errors (a function: made only for an error, as a filter may hold thousands).
 */
export function coerceValue(
  type: PortableType,
  value: Exclude<Scalar, null>,
  where: string | (() => string),
): Canonical {
  // Drivers and engines fail on NUL in text in ways of their own (PostgreSQL refuses it outright).
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw new ToolError('type_mismatch', `${named(where)}: NUL characters (U+0000) are not allowed in values`);
  }
  const result = COERCE[type](value);
  if (result === undefined) {
    const shown = typeof value === 'string' ? `'${value.slice(0, 40)}'` : String(value);
    const article = /^[aeiou]/.test(type) ? 'an' : 'a';
    throw new ToolError(
      'type_mismatch',
      `${named(where)}: ${shown} does not fit ${article} ${type} column; expected ${EXAMPLES[type]}`,
    );
  }
  return result;
}

const named = (where: string | (() => string)) => (typeof where === 'string' ? where : where());

const INTEGER = /^-?\d{1,40}$/;
/** No engine has wider integer columns: signed 64-bit, or unsigned 64-bit on MySQL. */
const INTEGER_MIN = -(2n ** 63n);
const INTEGER_MAX = 2n ** 64n - 1n;
const DECIMAL = /^-?\d{1,40}(\.\d{1,40})?$/;
const UTC_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/** A UTC_TIMESTAMP as `timestamp` writes it: its fraction without trailing zeros (`.250Z` → `.25Z`, `.000Z` → `Z`). */
function withoutTrailingZeros(iso: string): string {
  if (iso.length === 20) return iso; // no fraction
  let end = iso.length - 1;
  while (iso[end - 1] === '0') end--;
  if (iso[end - 1] === '.') end--;
  return `${iso.slice(0, end)}Z`;
}

const COERCE: Record<PortableType, (v: Exclude<Scalar, null>) => Canonical | undefined> = {
  integer(v) {
    if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
    if (typeof v !== 'string' || !INTEGER.test(v.trim())) return undefined;
    const big = BigInt(v.trim());
    if (big < INTEGER_MIN || big > INTEGER_MAX) return undefined;
    return big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= -BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(big)
      : big.toString();
  },
  decimal(v) {
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
    return typeof v === 'string' && DECIMAL.test(v.trim()) ? v.trim() : undefined;
  },
  float(v) {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    return Number.isFinite(n) ? n : undefined;
  },
  text: (v) => (typeof v === 'boolean' ? undefined : String(v)),
  unknown: (v) => (typeof v === 'boolean' ? undefined : String(v)),
  boolean(v) {
    if (typeof v === 'boolean') return v;
    if (v === 1 || v === 0) return v === 1;
    if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
    return undefined;
  },
  date: (v) => (typeof v === 'string' && /^\d{4}-\d\d-\d\d$/.test(v) && validDate(v) ? v : undefined),
  time: (v) => (typeof v === 'string' && /^\d\d:\d\d(:\d\d(\.\d{1,9})?)?$/.test(v) ? v : undefined),
  timestamp(v) {
    if (typeof v !== 'string') return undefined;
    // ISO-8601 in UTC (what query returns, what toISOString makes): checked, not parsed again.
    if (UTC_TIMESTAMP.test(v)) return validDate(v.slice(0, 10)) ? withoutTrailingZeros(v) : undefined;
    const canonical = timestamp(v);
    return typeof canonical === 'string' && canonical.endsWith('Z') && validDate(canonical.slice(0, 10))
      ? canonical
      : undefined;
  },
  binary: (v) => (typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v) ? v : undefined),
  json: () => undefined,
};

/** Whether `YYYY-MM-DD` (digits already checked) names a day of the Gregorian calendar: no Date made, a filter may hold thousands. */
function validDate(ymd: string): boolean {
  const year = Number(ymd.slice(0, 4));
  const month = Number(ymd.slice(5, 7));
  const day = Number(ymd.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : DAYS_IN_MONTH[month - 1]!);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
