import type { PortableType, Scalar } from '@mcp-db-bench/contract';

const PORTABLE: Readonly<Record<string, PortableType>> = {
  tinyint: 'integer',
  smallint: 'integer',
  int: 'integer',
  bigint: 'integer',
  decimal: 'decimal',
  numeric: 'decimal',
  money: 'decimal',
  smallmoney: 'decimal',
  real: 'float',
  float: 'float',
  char: 'text',
  varchar: 'text',
  text: 'text',
  nchar: 'text',
  nvarchar: 'text',
  ntext: 'text',
  sysname: 'text',
  uniqueidentifier: 'text',
  bit: 'boolean',
  date: 'date',
  time: 'time',
  datetime: 'timestamp',
  datetime2: 'timestamp',
  smalldatetime: 'timestamp',
  datetimeoffset: 'timestamp',
  binary: 'binary',
  varbinary: 'binary',
  image: 'binary',
  // SQL Server's `timestamp` is rowversion: an 8-byte counter, not a date
  timestamp: 'binary',
  rowversion: 'binary',
  json: 'json', // SQL Server 2025 / Azure SQL native json
};

/** Maps a system type name (`sys.types.name` of the column's base type) to a portable type. */
export function portableType(typeName: string): PortableType {
  return PORTABLE[typeName.toLowerCase()] ?? 'unknown';
}

/**
 * The type as it would be declared, from `sys.columns`: `max_length` is in bytes (-1 for
 * `max`), so n-types hold half as many characters.
 */
export function nativeTypeText(typeName: string, maxLength: number, precision: number, scale: number): string {
  const name = typeName.toLowerCase();
  const length = (chars: number) => (maxLength === -1 ? 'max' : String(chars));
  switch (name) {
    case 'char':
    case 'varchar':
    case 'binary':
    case 'varbinary':
      return `${name}(${length(maxLength)})`;
    case 'nchar':
    case 'nvarchar':
      return `${name}(${length(maxLength / 2)})`;
    case 'decimal':
    case 'numeric':
      return `${name}(${precision},${scale})`;
    case 'time':
    case 'datetime2':
    case 'datetimeoffset':
      return `${name}(${scale})`;
    default:
      return name;
  }
}

const NOW =
  /^(?:current_timestamp|getdate\(\)|getutcdate\(\)|sysdatetime\(\)|sysutcdatetime\(\)|sysdatetimeoffset\(\))$/i;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const STRING = /^N?'((?:[^']|'')*)'$/is;

/**
 * Normalises `sys.default_constraints.definition`, which SQL Server stores wrapped in
 * parentheses: `('pending')` -> `pending`, `((0))` -> `0`, `((-1.5))` -> `-1.5`,
 * `(getdate())` -> `CURRENT_TIMESTAMP`; other expressions keep SQL Server's text without the
 * outer parentheses (`(newid())` -> `newid()`).
 */
export function normalizeDefault(definition: string | null): string | null {
  if (definition === null) return null;
  const text = stripParens(definition.trim());
  if (/^null$/i.test(text)) return null;
  const literal = STRING.exec(text);
  if (literal) return literal[1]!.replaceAll("''", "'");
  if (NUMBER.test(text)) return text;
  if (NOW.test(text)) return 'CURRENT_TIMESTAMP';
  return text;
}

/** Removes parentheses that enclose the whole text, as often as they do. */
function stripParens(text: string): string {
  let current = text;
  while (current.startsWith('(') && closingParen(current) === current.length - 1) {
    current = current.slice(1, -1).trim();
  }
  return current;
}

/** Index of the parenthesis that closes the one at 0, skipping string literals and [names]. */
function closingParen(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '[') {
      const end = c === "'" ? "'" : ']';
      i++;
      // a doubled quote or bracket is an escaped one
      while (i < text.length && !(text[i] === end && text[i + 1] !== end)) i += text[i] === end ? 2 : 1;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/**
 * The parameter to bind for a validated portable value. Kysely binds strings as nvarchar and
 * SQL Server converts them to the column's type (which ranks higher), so digit strings keep big
 * integers and decimals exact. Timestamps go as ISO 8601 text without the zone: that form is
 * independent of SET DATEFORMAT/LANGUAGE, keeps all seven fraction digits of datetime2 (a Date
 * would stop at milliseconds and be bound as the old `datetime`), and reads as UTC against a
 * datetimeoffset column.
 */
export function encodeParam(type: PortableType, value: Exclude<Scalar, null>): unknown {
  if (typeof value !== 'string') return value;
  switch (type) {
    case 'timestamp':
      return value.replace(/Z$/, '');
    case 'binary':
      return Buffer.from(value, 'base64');
    default:
      return value;
  }
}
