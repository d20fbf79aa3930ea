import type { PortableType, Scalar } from '@mcp-db-bench/contract';

const PORTABLE: Readonly<Record<string, PortableType>> = {
  tinyint: 'integer',
  smallint: 'integer',
  mediumint: 'integer',
  int: 'integer',
  integer: 'integer',
  bigint: 'integer',
  year: 'integer',
  decimal: 'decimal',
  numeric: 'decimal',
  float: 'float',
  double: 'float',
  real: 'float',
  char: 'text',
  varchar: 'text',
  tinytext: 'text',
  text: 'text',
  mediumtext: 'text',
  longtext: 'text',
  enum: 'text',
  set: 'text',
  uuid: 'text', // MariaDB 10.7+
  inet4: 'text', // MariaDB 10.10+
  inet6: 'text', // MariaDB 10.5+
  date: 'date',
  time: 'time',
  datetime: 'timestamp',
  timestamp: 'timestamp',
  binary: 'binary',
  varbinary: 'binary',
  tinyblob: 'binary',
  blob: 'binary',
  mediumblob: 'binary',
  longblob: 'binary',
  bit: 'binary',
  json: 'json',
};

/**
 * Maps `information_schema.columns` (`data_type`, `column_type`) to a portable type.
 * `tinyint(1)` is MySQL's BOOLEAN and `bit(1)` a one-bit flag (connect() reads it as a
 * boolean); wider bit fields stay binary. `jsonColumn` marks a MariaDB JSON column, which
 * MariaDB reports as longtext with a `json_valid` check.
 */
export function portableType(dataType: string, columnType: string, jsonColumn = false): PortableType {
  const type = columnType.toLowerCase();
  if (jsonColumn) return 'json';
  if (type === 'tinyint(1)' || type === 'bit(1)') return 'boolean';
  return PORTABLE[dataType.toLowerCase()] ?? 'unknown';
}

const NOW = /^(?:current_timestamp|now|localtimestamp|localtime)(?:\(\d*\))?$/i;
const QUOTED = /^'((?:[^'\\]|''|\\.)*)'$/s;
const ESCAPES: Readonly<Record<string, string>> = { '0': '\0', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a' };

/**
 * Normalises `information_schema.columns.column_default`, which the two engines print
 * differently:
 * - MySQL prints literals bare (`pending`) and expressions bare too (`uuid()`); a column
 *   without a default reads SQL NULL.
 * - MariaDB (10.2.7+) prints literals quoted and escaped (`'it''s'`), expressions bare
 *   (`current_timestamp()`), and `NULL` (the word) for an explicit or implicit NULL default.
 */
export function normalizeDefault(value: string | null, mariadb: boolean): string | null {
  if (value === null) return null;
  if (NOW.test(value)) return 'CURRENT_TIMESTAMP';
  if (!mariadb) return value;
  if (value === 'NULL') return null;
  const quoted = QUOTED.exec(value);
  if (quoted) {
    return quoted[1]!.replace(/''|\\(.)/gs, (_match, c: string | undefined) =>
      c === undefined ? "'" : (ESCAPES[c] ?? c),
    );
  }
  return value;
}

const DECIMAL_TEXT = /^-?\d+(?:\.\d+)?$/;

/**
 * Text mysql2 writes into the SQL as it is (`toSqlString`); equal texts make equal parameters.
 * Bound as a DECIMAL where the server binds values itself (prepared.ts).
 */
export class BareLiteral {
  constructor(readonly text: string) {}
  toSqlString(): string {
    return this.text;
  }
}

/**
 * The parameter to bind for a validated portable value. mysql2 inlines parameters into the SQL
 * text, and MySQL compares a number column with a quoted string as doubles, so big integers go
 * as BigInt and decimals as bare literals (`toSqlString`) to keep the comparison exact.
 */
export function encodeParam(type: PortableType, value: Exclude<Scalar, null>): unknown {
  switch (type) {
    case 'integer':
      return typeof value === 'string' && /^-?\d+$/.test(value) ? BigInt(value) : value;
    case 'decimal': {
      const text = String(value);
      // re-checked here because the text goes into the SQL unquoted
      return DECIMAL_TEXT.test(text) ? new BareLiteral(text) : value;
    }
    case 'boolean':
      return value === true ? 1 : value === false ? 0 : value;
    case 'timestamp':
      // DATETIME/TIMESTAMP literals take neither `T` nor a zone; the session zone is UTC
      return typeof value === 'string' ? value.replace('T', ' ').replace(/Z$/, '') : value;
    case 'binary':
      return typeof value === 'string' ? Buffer.from(value, 'base64') : value;
    default:
      return value;
  }
}
