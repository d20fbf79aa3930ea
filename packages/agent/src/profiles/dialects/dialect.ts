/**
 * What a profile that writes SQL needs to know about one engine: quoting and the catalog
 * queries that discover tables, columns and foreign keys. One file per engine here; the
 * profile names it (`--profile dbhub:sqlite`). The agent package does not depend on the
 * server's engines: these are the few facts a client needs, written for the peer's SQL tool.
 */
export interface SqlDialect {
  name: string;
  /** an identifier, quoted; names come from discovery only */
  quote(name: string): string;
  /** a select statement cut at `n` rows */
  limit(select: string, n: number): string;
  /** rows `{ name }`: the base tables */
  tables: string;
  /** rows `{ name, type, nullable, pk }` for a table given as a string literal; `pk` is the key position, 0 when not in it */
  columns(table: string): string;
  /** rows `{ table, column, ref_table, ref_column, fk }`; `fk` tells the columns of one composite key apart */
  foreignKeys: string;
}

/** A string as an SQL literal: quotes doubled, and no NUL (no engine takes it in text). */
export function stringLiteral(value: string): string {
  if (value.includes('\0')) throw new RangeError('a string value with a NUL character cannot be sent as a literal');
  return `'${value.replaceAll("'", "''")}'`;
}

/** A value as an SQL literal: finite numbers as they are, strings quoted, booleans as 1/0; anything else is refused. */
export function sqlLiteral(value: unknown): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'string') return stringLiteral(value);
  if (value === null) return 'null';
  throw new RangeError(`cannot send a ${typeof value} as an SQL literal`);
}

/** Double-quoted identifiers (standard SQL): quotes inside doubled. */
export const ansiQuote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
