/**
 * What a profile that writes SQL needs to know about one engine: quoting, literals and the
 * catalog queries that discover tables, columns and foreign keys. One file per engine here; the
 * profile names it (`--profile dbhub:sqlite`). The loadgen package does not depend on the
 * server's engines: these are the few facts a client needs, written for the peer's SQL tool.
 */
export interface SqlDialect {
  name: string;
  /** an identifier, quoted; names come from discovery only */
  quote(name: string): string;
  /**
   * a string as a literal the engine reads as one token whatever its settings (never a NUL:
   * `literal` refuses it first). The peer's tool takes no parameters, so this is the only guard.
   */
  string(value: string): string;
  /** true or false as the engine compares it with its boolean columns */
  boolean(value: boolean): string;
  /** a select statement cut at `n` rows */
  limit(select: string, n: number): string;
  /** rows `{ name }`: the base tables */
  tables: string;
  /** rows `{ name, type, nullable, pk }` for a table given as a string literal; `pk` is the key position, 0 when not in it */
  columns(table: string): string;
  /** rows `{ table, column, ref_table, ref_column, fk }`; `fk` tells the columns of one composite key apart */
  foreignKeys: string;
}

/** A value as the dialect's literal: finite numbers as they are, strings and booleans the dialect's way, null; anything else is refused. */
export function literal(dialect: Pick<SqlDialect, 'string' | 'boolean'>, value: unknown): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return dialect.boolean(value);
  if (typeof value === 'string') {
    // no engine takes a NUL in text, and some drivers cut the statement there
    if (value.includes('\0')) throw new RangeError('a string value with a NUL character cannot be sent as a literal');
    return dialect.string(value);
  }
  if (value === null) return 'null';
  throw new RangeError(`cannot send a ${typeof value} as an SQL literal`);
}

/** Standard SQL strings: quotes doubled. Safe only where a backslash is an ordinary character (SQLite). */
export const standardString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** Booleans as 1 and 0, for engines whose booleans are integers (SQLite, MySQL). */
export const numericBoolean = (value: boolean): string => (value ? '1' : '0');

/** Double-quoted identifiers (standard SQL): quotes inside doubled. */
export const ansiQuote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
