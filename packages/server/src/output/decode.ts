import type { PortableType, PortableValue } from '@mcp-db-bench/contract';

/**
 * Renders a driver value as portable JSON. Drivers are configured to hand over lossless
 * forms (digit strings, BigInt, raw timestamp text), so one function per portable type
 * gives byte-identical output on every engine. See PORTABLE_TYPES in the contract.
 */
export interface DecodeTarget {
  type: PortableType;
  scale: number | null;
}

export function decodeValue(target: DecodeTarget, raw: unknown): PortableValue {
  if (raw === null || raw === undefined) return null;
  return DECODERS[target.type](raw, target);
}

type Decoder = (raw: unknown, target: DecodeTarget) => PortableValue;

const DECODERS: Record<PortableType, Decoder> = {
  integer: (raw) => integer(raw),
  decimal: (raw, t) => decimal(raw, t.scale),
  float: (raw) => finite(Number(typeof raw === 'bigint' ? Number(raw) : raw)),
  text: (raw) => text(raw),
  boolean: (raw) => boolean(raw),
  date: (raw) => (raw instanceof Date ? raw.toISOString().slice(0, 10) : String(raw).slice(0, 10)),
  time: (raw) => trimFraction(timeOfDay(raw)),
  timestamp: (raw) => timestamp(raw),
  binary: (raw) => (raw instanceof Uint8Array ? Buffer.from(raw).toString('base64') : text(raw)),
  json: (raw) => (typeof raw === 'string' ? parseJson(raw) : (raw as PortableValue)),
  unknown: (raw) => text(raw),
};

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Numbers when exact in a double, digit strings beyond. */
export function integer(raw: unknown): PortableValue {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : finite(raw);
  if (typeof raw === 'bigint') return raw <= MAX_SAFE && raw >= -MAX_SAFE ? Number(raw) : raw.toString();
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  const s = String(raw).trim();
  if (!/^-?\d+$/.test(s)) return s;
  return integer(BigInt(s));
}

/** Exactly `scale` fraction digits; digit strings are padded or cut, never sent through a double. */
export function decimal(raw: unknown, scale: number | null): PortableValue {
  if (typeof raw === 'number' || typeof raw === 'bigint') {
    if (typeof raw === 'number' && !Number.isFinite(raw)) return finite(raw);
    return scale === null ? canonicalDecimal(String(raw)) : Number(raw).toFixed(scale);
  }
  const s = String(raw).trim();
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m) return s;
  const [, sign, whole = '', frac = ''] = m;
  if (scale === null) return canonicalDecimal(s);
  if (frac.length <= scale) return `${sign}${whole || '0'}${scale ? `.${frac.padEnd(scale, '0')}` : ''}`;
  // More digits than the declared scale (SQLite keeps what it was given): round half away from zero.
  return roundDigits(sign ?? '', whole || '0', frac, scale);
}

function roundDigits(sign: string, whole: string, frac: string, scale: number): string {
  const digits = BigInt(whole + frac.slice(0, scale));
  const up = Number(frac[scale]) >= 5 ? 1n : 0n;
  const all = (digits + up).toString().padStart(scale + 1, '0');
  const body = scale ? `${all.slice(0, -scale)}.${all.slice(-scale)}` : all;
  return /^[0.]+$/.test(body) ? body : sign + body;
}

function canonicalDecimal(s: string): string {
  if (!s.includes('.')) return s;
  return s.replace(/\.?0+$/, '');
}

function text(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (raw instanceof Uint8Array) return Buffer.from(raw).toString('utf8');
  if (raw instanceof Date) return raw.toISOString();
  return String(raw);
}

function boolean(raw: unknown): PortableValue {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number' || typeof raw === 'bigint') return raw !== 0 && raw !== 0n;
  if (raw instanceof Uint8Array) return raw.some((b) => b !== 0);
  const s = String(raw).toLowerCase();
  if (['t', 'true', '1', 'y', 'yes', 'on'].includes(s)) return true;
  if (['f', 'false', '0', 'n', 'no', 'off'].includes(s)) return false;
  return s;
}

function finite(n: number): PortableValue {
  // JSON has no NaN or Infinity; say what it was rather than emit null.
  return Number.isFinite(n) ? n : String(n);
}

function parseJson(s: string): PortableValue {
  try {
    return JSON.parse(s) as PortableValue;
  } catch {
    return s;
  }
}

/** A time as text; drivers that know only timestamps hand it over on 1970-01-01 (a Date or its ISO text). */
function timeOfDay(raw: unknown): string {
  const s = raw instanceof Date ? raw.toISOString() : String(raw);
  return /^\d{4}-\d\d-\d\dT.*Z$/.test(s) ? s.slice(11, -1) : s;
}

function trimFraction(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

const TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?)?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/i;
/** The form most drivers hand over (whole seconds, no zone): rendered without the general pattern's work. */
const WHOLE_SECONDS = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d$/;

/**
 * ISO-8601 in UTC with the fraction kept to the digit (microseconds survive) and trailing
 * zeros removed: `2024-03-31T01:30:00Z`, `2024-03-31T01:30:00.25Z`. Values without a zone
 * are taken as UTC.
 */
export function timestamp(raw: unknown): PortableValue {
  if (raw instanceof Date) return trimIso(raw.toISOString());
  if (typeof raw === 'string' && raw.length === 19 && WHOLE_SECONDS.test(raw))
    return `${raw.slice(0, 10)}T${raw.slice(11)}Z`;
  const s = String(raw).trim();
  const m = TIMESTAMP.exec(s);
  if (!m) return s;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone] = m;
  const fraction = frac.replace(/0+$/, '');
  let base = `${y}-${mo}-${d}T${h}:${mi}:${sec}`;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.replace(':', '');
    const zh = Number(digits.slice(1, 3));
    const zm = Number(digits.slice(3, 5) || 0);
    const offsetMs = sign * (zh * 60 + zm) * 60_000;
    const utc = new Date(`${base}Z`).getTime() - offsetMs;
    if (Number.isFinite(utc)) base = new Date(utc).toISOString().slice(0, 19);
  }
  return `${base}${fraction ? `.${fraction}` : ''}Z`;
}

function trimIso(iso: string): string {
  return iso.replace(/\.(\d*?)0*Z$/, (_, f: string) => (f ? `.${f}Z` : 'Z'));
}
