/**
 * A scripted Faucet: a small MCP server (2025-era JSON-RPC over HTTP, JSON answers) over a real
 * SQLite file, answering as Faucet's source does (internal/mcp/tools.go and handler.go,
 * internal/model/schema.go, internal/query, internal/connector/sqlite): every answer one text
 * block of indented JSON with Go's escaping and a map's keys sorted; errors as `isError` text;
 * filters parsed by Faucet's grammar and bound as parameters, names unquoted in the filter as
 * Faucet writes them. Faucet is a Go binary on neither npm nor the Go proxy, so the tests drive
 * this stand-in. Options:
 * - `group`: faucet_query takes `group` and aggregate `fields` ("COUNT(*) AS n"), as Faucet does
 *   since internal/query/aggregate.go; off (the default) it is the Faucet before them, whose
 *   `fields` are plain columns;
 * - `driver`: what faucet_list_services says; `mysql` answers writes without RETURNING (`{ count }`);
 * - `readOnly`: the service refuses writes; `wrong`: every faucet_query answer loses its first record.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import type { Peer } from './peers.js';

export interface ScriptedFaucetOptions {
  wrong?: boolean;
  service?: string;
  group?: boolean;
  driver?: 'sqlite' | 'mysql';
  readOnly?: boolean;
}

type Row = Record<string, unknown>;
type Args = Record<string, unknown>;

/** A tool error: Faucet answers it as `isError` text (toolError in handler.go). */
class FaucetError extends Error {}
const fail = (message: string): never => {
  throw new FaucetError(message);
};

// ---- Faucet's identifier rules and filter grammar (internal/query/sanitizer.go, parser.go) ----

const RESERVED = new Set(
  'SELECT INSERT UPDATE DELETE DROP CREATE ALTER TRUNCATE EXEC EXECUTE UNION INTO FROM WHERE TABLE DATABASE GRANT REVOKE INDEX VIEW PROCEDURE FUNCTION TRIGGER SCHEMA'.split(
    ' ',
  ),
);
const KEYWORDS = new Set('AND OR NOT IN LIKE IS NULL BETWEEN CONTAINS STARTS ENDS WITH'.split(' '));

function validateIdentifier(name: string): void {
  if (name.length === 0 || name.length > 128) fail(`invalid identifier ${JSON.stringify(name)}: length`);
  if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name))
    fail(`invalid identifier ${JSON.stringify(name)}: must match [a-zA-Z_][a-zA-Z0-9_]*`);
  if (RESERVED.has(name.toUpperCase())) fail(`identifier ${JSON.stringify(name)} is a SQL reserved word`);
}

interface Token {
  kind: 'name' | 'keyword' | 'number' | 'string' | 'op' | '(' | ')' | ',';
  text: string;
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const rest = input.slice(i);
    const ch = input[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if ('(),'.includes(ch)) {
      tokens.push({ kind: ch as Token['kind'], text: ch });
      i++;
    } else if (/^(!=|<>|>=|<=|[=<>])/.test(rest)) {
      const op = /^(!=|<>|>=|<=|[=<>])/.exec(rest)![1]!;
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    } else if (ch === "'") {
      // the only escape is a doubled quote; every other character is the string's own
      let value = '';
      let j = i + 1;
      for (; j < input.length; j++) {
        if (input[j] !== "'") value += input[j];
        else if (input[j + 1] === "'") value += input[++j];
        else break;
      }
      if (j >= input.length) fail(`tokenize: unterminated string literal starting at position ${i}`);
      tokens.push({ kind: 'string', text: value });
      i = j + 1;
    } else if (/^-?\d/.test(rest)) {
      const m = /^-?\d+(\.\d+)?/.exec(rest)![0];
      if (rest[m.length] === '.') fail(`tokenize: invalid number at position ${i}: trailing decimal point`);
      tokens.push({ kind: 'number', text: m });
      i += m.length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const word = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(rest)![0];
      tokens.push(
        KEYWORDS.has(word.toUpperCase()) ? { kind: 'keyword', text: word.toUpperCase() } : { kind: 'name', text: word },
      );
      i += word.length;
    } else {
      fail(`tokenize: unexpected character ${JSON.stringify(ch)} at position ${i}`);
    }
  }
  return tokens;
}

/** Faucet's filter as SQL with `?` and its parameters: the recursive descent of parser.go. */
function parseFilter(filter: string): { sql: string; params: unknown[] } {
  const tokens = tokenize(filter.trim());
  let pos = 0;
  const params: unknown[] = [];
  const peek = () => tokens[pos];
  const is = (kind: Token['kind'], text?: string) =>
    peek()?.kind === kind && (text === undefined || peek()!.text === text);
  /** consumes the token when it is the one named */
  const accept = (kind: Token['kind'], text?: string) => is(kind, text) && pos++ >= 0;
  const expect = (kind: Token['kind'], text?: string) =>
    is(kind, text)
      ? tokens[pos++]!
      : fail(`expected ${text ?? kind} but got ${JSON.stringify(peek()?.text ?? 'end of filter')}`);
  const value = (): string => {
    const t = tokens[pos++];
    if (t?.kind === 'string') params.push(t.text);
    else if (t?.kind === 'number') params.push(numberValue(t.text));
    else if (t?.kind === 'name' && /^(true|false)$/i.test(t.text))
      params.push(/^true$/i.test(t.text) ? 1 : 0); // a Go bool, bound as SQLite's 1/0
    else fail(`expected a value (string, number, or boolean), got ${JSON.stringify(t?.text ?? 'end of filter')}`);
    return '?';
  };
  const pattern = (col: string, wrap: (s: string) => string) => {
    params.push(wrap(expect('string').text));
    return `${col} LIKE ?`;
  };
  const list = (col: string, op: string) => {
    expect('(');
    const items = [value()];
    while (accept(',')) items.push(value());
    expect(')');
    return `${col} ${op} (${items.join(', ')})`;
  };
  const between = (col: string, op: string) => {
    const low = value();
    expect('keyword', 'AND');
    return `${col} ${op} ${low} AND ${value()}`;
  };
  const comparison = (): string => {
    const col = expect('name').text;
    const parts = col.split('.');
    if (parts.length > 3) fail(`column reference ${JSON.stringify(col)} has too many parts`);
    for (const p of parts) validateIdentifier(p);
    if (is('op')) return `${col} ${tokens[pos++]!.text} ${value()}`;
    if (accept('keyword', 'IS')) {
      const not = accept('keyword', 'NOT');
      expect('keyword', 'NULL');
      return `${col} IS ${not ? 'NOT ' : ''}NULL`;
    }
    const not = accept('keyword', 'NOT') ? 'NOT ' : '';
    if (accept('keyword', 'IN')) return list(col, `${not}IN`);
    if (accept('keyword', 'LIKE')) return `${col} ${not}LIKE ${value()}`;
    if (accept('keyword', 'BETWEEN')) return between(col, `${not}BETWEEN`);
    if (!not && accept('keyword', 'CONTAINS')) return pattern(col, (s) => `%${s}%`);
    if (!not && accept('keyword', 'STARTS')) return expect('keyword', 'WITH') && pattern(col, (s) => `${s}%`);
    if (!not && accept('keyword', 'ENDS')) return expect('keyword', 'WITH') && pattern(col, (s) => `%${s}`);
    return fail(
      `unexpected token ${JSON.stringify(peek()?.text ?? 'end of filter')} after column ${JSON.stringify(col)}`,
    );
  };
  const primary = (): string => {
    if (!accept('(')) return comparison();
    const inner = or();
    expect(')');
    return `(${inner})`;
  };
  const not = (): string => (accept('keyword', 'NOT') ? `NOT ${not()}` : primary());
  const joined = (word: 'AND' | 'OR', next: () => string) => () => {
    let sql = next();
    while (accept('keyword', word)) sql += ` ${word} ${next()}`;
    return sql;
  };
  const and = joined('AND', not);
  const or = joined('OR', and);
  const sql = or();
  if (pos < tokens.length) fail(`unexpected token ${JSON.stringify(tokens[pos]!.text)} at position ${pos}`);
  return { sql, params };
}

/** parseNumericValue: int64 when it has no point (float when past int64), else float64. */
function numberValue(text: string): number | bigint {
  if (text.includes('.')) return Number(text);
  const n = BigInt(text);
  if (n >= -(2n ** 63n) && n < 2n ** 63n) return Number.isSafeInteger(Number(n)) ? Number(n) : n;
  return Number(text);
}

/** ParseProjection (aggregate.go) or, before it, ParseFieldSelection (builder.go): the select list. */
function projection(
  fields: readonly string[],
  group: boolean,
  quote: (s: string) => string,
): { sql: string; plain: string[]; aggregates: number } {
  const plain: string[] = [];
  let aggregates = 0;
  const items = fields
    .join(',')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((part) => {
      const m = group ? /^([a-z]+)\(\s*(\*|[a-z_][a-z0-9_]*)\s*\)(?:\s+as\s+([a-z_][a-z0-9_]*))?$/i.exec(part) : null;
      if (!m) {
        validateIdentifier(part);
        plain.push(part);
        return quote(part);
      }
      const fn = m[1]!.toUpperCase();
      if (!['SUM', 'COUNT', 'AVG', 'MIN', 'MAX'].includes(fn))
        fail(`unsupported aggregate function ${JSON.stringify(m[1])}`);
      if (m[2] === '*' && fn !== 'COUNT') fail(`${fn}(*) is not allowed; only COUNT supports the * argument`);
      if (m[2] !== '*') validateIdentifier(m[2]!);
      const alias = m[3] ?? (m[2] === '*' ? fn.toLowerCase() : `${fn.toLowerCase()}_${m[2]}`);
      validateIdentifier(alias);
      aggregates++;
      return `${fn}(${m[2] === '*' ? '*' : quote(m[2]!)}) AS ${quote(alias)}`;
    });
  return { sql: items.join(', ') || '*', plain, aggregates };
}

/** ParseOrderClause (builder.go): `column [ASC|DESC]`, quoted. */
function orderSql(order: string, quote: (s: string) => string): string {
  return order
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((part) => {
      const [col = '', dir = 'ASC', ...rest] = part.split(/\s+/);
      if (rest.length) fail(`invalid order clause ${JSON.stringify(part)}: expected 'column [ASC|DESC]'`);
      validateIdentifier(col);
      if (!/^(asc|desc)$/i.test(dir)) fail(`invalid order direction ${JSON.stringify(dir)}: must be ASC or DESC`);
      return `${quote(col)} ${dir.toUpperCase()}`;
    })
    .join(', ');
}

/** The tool's error text around a parser's: "Invalid filter expression: ...". */
function prefixed<T>(prefix: string, run: () => T, suffix = ''): T {
  try {
    return run();
  } catch (error) {
    return fail(`${prefix}: ${(error as Error).message}${suffix}`);
  }
}

// ---- Answers as Go writes them ----

/** json.MarshalIndent(v, "", "  "): Go escapes <, >, & and the two JavaScript line separators. */
const goJson = (value: unknown) =>
  JSON.stringify(value, null, 2).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** A scanned row as Go's map: keys sorted, bytes as text (cleanMapValues). */
const goRecord = (row: Row): Row =>
  Object.fromEntries(
    Object.keys(row)
      .sort()
      .map((k) => [k, Buffer.isBuffer(row[k]) ? (row[k] as Buffer).toString() : row[k]]),
  );

/** A JSON value as the Go SQLite driver binds it: booleans as 1/0, no objects. */
function bind(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object')
    fail(
      `sql: converting argument: unsupported type ${Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}'}`,
    );
  return value;
}

/** modernc.org/sqlite's Go type for a declared SQLite type (mapSQLiteType in introspect.go). */
function goTypes(declared: string): [string, string] {
  const t = declared.toUpperCase().replace(/\(.*$/, '').trim();
  if (t.includes('INT')) return ['int64', 'integer'];
  if (/CHAR|CLOB|TEXT/.test(t)) return ['string', 'string'];
  if (t.includes('BLOB') || t === '') return ['[]byte', 'string(byte)'];
  if (/REAL|FLOA|DOUB|NUMERIC|DECIMAL/.test(t)) return ['float64', 'number'];
  if (t.includes('BOOL')) return ['bool', 'boolean'];
  if (/DATE|TIME/.test(t)) return ['time.Time', 'string(date-time)'];
  if (t.includes('JSON')) return ['interface{}', 'object'];
  return ['interface{}', 'string'];
}

const prop = (schema: Args, description: string) => ({ ...schema, description });
const SERVICE = { service: prop({ type: 'string' }, 'Name of the database service') };
const TABLE = { table: prop({ type: 'string' }, 'Name of the table') };

/** tools/list as mcp-go writes it for Faucet's tools (descriptions shortened, in our words). */
function toolList(group: boolean) {
  const tool = (name: string, description: string, properties: Args, required: string[]) => ({
    name,
    description,
    inputSchema: { type: 'object', properties, required },
    annotations: { readOnlyHint: !/insert|update|delete/.test(name) },
  });
  const filter = { filter: prop({ type: 'string' }, "Filter expression, e.g. status = 'active' AND age > 21") };
  return [
    tool(
      'faucet_list_services',
      'List the configured database services: name, driver, active, read-only, raw SQL.',
      {},
      [],
    ),
    tool('faucet_list_tables', 'List the tables of a service with their column summaries.', SERVICE, ['service']),
    tool(
      'faucet_describe_table',
      'The schema of one table: columns, keys, foreign keys, indexes.',
      { ...SERVICE, ...TABLE },
      ['service', 'table'],
    ),
    tool(
      'faucet_query',
      "Query records with an optional filter (=, !=, <, >, LIKE, IN, IS NULL, BETWEEN, CONTAINS; AND, OR, NOT), fields, order ('col ASC, other DESC'), limit (default 25, max 1000) and offset.",
      {
        ...SERVICE,
        ...TABLE,
        ...filter,
        fields: prop(
          { type: 'array', items: { type: 'string' } },
          group ? 'Columns or aggregates such as "SUM(amount)", "COUNT(*) AS n".' : 'Columns to return.',
        ),
        ...(group ? { group: prop({ type: 'string' }, 'Comma-separated columns to GROUP BY.') } : {}),
        order: prop({ type: 'string' }, 'Order clause'),
        limit: prop({ type: 'number' }, 'Maximum records (default 25, max 1000)'),
        offset: prop({ type: 'number' }, 'Records to skip'),
      },
      ['service', 'table'],
    ),
    tool(
      'faucet_insert',
      'Insert records; answers the inserted records where the database has RETURNING.',
      { ...SERVICE, ...TABLE, records: prop({ type: 'array' }, 'Records to insert') },
      ['service', 'table', 'records'],
    ),
    tool(
      'faucet_update',
      'Update the records a filter (required) matches.',
      { ...SERVICE, ...TABLE, ...filter, record: prop({ type: 'object' }, 'Column values to set') },
      ['service', 'table', 'filter', 'record'],
    ),
    tool('faucet_delete', 'Delete the records a filter (required) matches.', { ...SERVICE, ...TABLE, ...filter }, [
      'service',
      'table',
      'filter',
    ]),
    tool(
      'faucet_raw_sql',
      'Run raw SQL on a service that allows it.',
      { ...SERVICE, sql: prop({ type: 'string' }, 'SQL') },
      ['service', 'sql'],
    ),
  ];
}

export async function startScriptedFaucet(file: string, options: ScriptedFaucetOptions = {}): Promise<Peer> {
  const db = new Database(file);
  const service = options.service ?? 'main';
  const driver = options.driver ?? 'sqlite';
  const group = options.group ?? false;
  const returning = driver === 'sqlite';
  const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const names = (type: 'table' | 'view') =>
    (
      db
        .prepare(`select name from sqlite_master where type = ? and name not like 'sqlite_%' order by name`)
        .all(type) as { name: string }[]
    ).map((t) => t.name);
  const tableInfo = (table: string) =>
    db
      .prepare('select cid, name, type, "notnull", dflt_value, pk from pragma_table_info(?) order by cid')
      .all(table) as {
      cid: number;
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
  const required = (args: Args, key: string) =>
    typeof args[key] === 'string' ? (args[key] as string) : fail(`missing required parameter ${JSON.stringify(key)}`);
  const writable = (verb: string) =>
    options.readOnly && fail(`Service ${JSON.stringify(service)} is read-only. ${verb} operations are not permitted.`);
  const where = (filter: string) => prefixed('Invalid filter expression', () => parseFilter(filter));
  const title = (verb: string) => verb[0]!.toUpperCase() + verb.slice(1);
  /** handleUpdate and handleDelete, in Faucet's order: a filter is required, then the service must be writable */
  const filterText = (args: Args, verb: 'update' | 'delete') => {
    const text =
      typeof args.filter === 'string'
        ? args.filter
        : fail(
            `A filter is required for ${verb} operations to prevent accidental full-table ${verb}s. Example: id = 42`,
          );
    writable(title(verb));
    return text;
  };
  /** BuildUpdate and BuildDelete refuse an empty filter, which would touch every row */
  const whereOf = (text: string, verb: 'update' | 'delete') =>
    text.trim()
      ? where(text)
      : fail(`Failed to build ${verb}: filter or IDs required for ${verb} (refusing to ${verb} all rows)`);
  /** The rows written, with RETURNING (SQLite, PostgreSQL), else only their count (MySQL, SQL Server) */
  const written = (verb: string, key: 'inserted' | 'updated', sql: string, params: unknown[]) => {
    if (!returning) return { count: sqlite(verb, () => db.prepare(sql).run(...params).changes) };
    const rows = sqlite(verb, () => db.prepare(`${sql} RETURNING *`).all(...params) as Row[]).map(goRecord);
    return { [key]: rows, count: rows.length };
  };
  const sqlite = <T>(what: string, run: () => T): T => {
    try {
      return run();
    } catch (error) {
      if (error instanceof FaucetError) throw error;
      return fail(`${what} failed: ${(error as Error).message}`);
    }
  };

  /** IntrospectTable (connector/sqlite/introspect.go): a model.TableSchema, no row_count. */
  const describe = (table: string) => {
    const cols = tableInfo(table);
    if (cols.length === 0)
      fail(
        `Table ${JSON.stringify(table)} not found in service ${JSON.stringify(service)}: table ${JSON.stringify(table)} not found\n\nAvailable tables: [${names('table').join(' ')}]`,
      );
    const pk = cols.filter((c) => c.pk > 0).map((c) => c.name);
    const create =
      (
        db.prepare(`select sql from sqlite_master where type = 'table' and name = ?`).get(table) as
          | { sql?: string }
          | undefined
      )?.sql ?? '';
    const auto = pk.length === 1 && create.toUpperCase().includes('INTEGER PRIMARY KEY') ? pk[0] : undefined;
    const fks = db
      .prepare('select "from", "table", "to", on_update, on_delete from pragma_foreign_key_list(?)')
      .all(table) as Record<string, string>[];
    const indexes = (
      db.prepare('select name, "unique", origin from pragma_index_list(?)').all(table) as {
        name: string;
        unique: number;
        origin: string;
      }[]
    ).filter((i) => i.origin !== 'pk');
    return {
      name: table,
      type: 'table',
      columns: cols.map((c) => {
        const [goType, jsonType] = goTypes(c.type);
        return {
          name: c.name,
          position: c.cid + 1,
          db_type: c.type,
          go_type: goType,
          json_type: jsonType,
          nullable: c.notnull === 0 && c.pk === 0,
          ...(c.dflt_value === null ? {} : { default: c.dflt_value }),
          is_primary_key: c.pk > 0,
          is_auto_increment: c.name === auto,
          is_unique: false,
        };
      }),
      primary_key: pk,
      foreign_keys: fks.map((f) => ({
        name: `fk_${table}_${f.from}`,
        column_name: f.from,
        referenced_table: f.table,
        referenced_column: f.to,
        on_delete: f.on_delete,
        on_update: f.on_update,
      })),
      indexes: indexes.map((i) => ({
        name: i.name,
        columns: (db.prepare('select name from pragma_index_info(?)').all(i.name) as { name: string }[]).map(
          (c) => c.name,
        ),
        is_unique: i.unique === 1,
      })),
    };
  };

  const tools: Record<string, (args: Args) => unknown> = {
    faucet_list_services: () => [
      { name: service, driver, is_active: true, read_only: options.readOnly ?? false, raw_sql_allowed: false },
    ],
    // handleListTables: row_count is omitted (the SQLite connector never fills it)
    faucet_list_tables: () => [
      ...names('table').map((name) => ({
        name,
        type: 'table',
        columns: tableInfo(name).map((c) => ({ name: c.name, type: c.type, ...(c.pk ? { pk: true } : {}) })),
      })),
      ...names('view').map((name) => ({
        name,
        type: 'view',
        columns: tableInfo(name).map((c) => ({ name: c.name, type: c.type })),
      })),
    ],
    faucet_describe_table: (args) => describe(required(args, 'table')),
    faucet_query: (args) => {
      const table = required(args, 'table');
      const fields = Array.isArray(args.fields) ? (args.fields as string[]) : [];
      const select = prefixed(
        'Invalid fields',
        () => projection(fields, group, q),
        `\n\nAvailable columns: [${tableInfo(table)
          .map((c) => c.name)
          .join(' ')}]`,
      );
      const groupBy =
        group && typeof args.group === 'string'
          ? args.group
              .split(',')
              .map((g) => g.trim())
              .filter(Boolean)
          : [];
      prefixed('Invalid group clause', () => groupBy.forEach(validateIdentifier));
      if (groupBy.length && !fields.length) fail('group parameter requires an explicit fields list');
      const loose = select.plain.find((c) => !groupBy.includes(c));
      if ((groupBy.length || select.aggregates) && loose)
        fail(
          `column ${JSON.stringify(loose)} must be wrapped in an aggregate function or listed in the group parameter`,
        );
      const filter = typeof args.filter === 'string' && args.filter.trim() ? where(args.filter) : undefined;
      const order =
        typeof args.order === 'string' && args.order.trim()
          ? prefixed('Invalid order clause', () => orderSql(args.order as string, q))
          : '';
      const limit = Math.min(
        Math.max(Number.isFinite(Number(args.limit ?? 25)) ? Math.trunc(Number(args.limit ?? 25)) : 25, 1),
        1000,
      );
      const offset = Math.max(Math.trunc(Number(args.offset ?? 0)) || 0, 0);
      const sql = [
        `SELECT ${select.sql} FROM ${q(table)}`,
        filter ? `WHERE ${filter.sql}` : '',
        groupBy.length ? `GROUP BY ${groupBy.map(q).join(', ')}` : '',
        order ? `ORDER BY ${order}` : '',
        'LIMIT ?',
        offset ? 'OFFSET ?' : '',
      ].filter(Boolean);
      let records = sqlite(
        'Query execution',
        () => db.prepare(sql.join(' ')).all(...(filter?.params ?? []), limit, ...(offset ? [offset] : [])) as Row[],
      ).map(goRecord);
      if (options.wrong) records = records.slice(1);
      return { records, count: records.length, limit, offset };
    },
    faucet_insert: (args) => {
      const table = required(args, 'table');
      writable('Insert');
      const records =
        Array.isArray(args.records) &&
        args.records.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))
          ? (args.records as Row[])
          : [];
      if (!records.length)
        fail(
          'No records provided. The \'records\' parameter must be an array of objects, e.g. [{"name": "Alice", "age": 30}]',
        );
      // BuildInsert: the first record's columns, sorted, for every record
      const cols = Object.keys(records[0]!).sort();
      const values = records.map(() => `(${cols.map(() => '?').join(', ')})`).join(', ');
      const sql = `INSERT INTO ${q(table)} (${cols.map(q).join(', ')}) VALUES ${values}`;
      const params = records.flatMap((r) => cols.map((c) => bind(r[c] ?? null)));
      return written('Insert', 'inserted', sql, params);
    },
    faucet_update: (args) => {
      const table = required(args, 'table');
      const text = filterText(args, 'update');
      const record =
        args.record !== null && typeof args.record === 'object' && !Array.isArray(args.record)
          ? (args.record as Row)
          : {};
      const cols = Object.keys(record).sort();
      if (!cols.length)
        fail(
          'No fields to update. The \'record\' parameter must be an object with column names and values, e.g. {"status": "archived"}',
        );
      const filter = whereOf(text, 'update');
      const sql = `UPDATE ${q(table)} SET ${cols.map((c) => `${q(c)} = ?`).join(', ')} WHERE ${filter.sql}`;
      return written('Update', 'updated', sql, [...cols.map((c) => bind(record[c])), ...filter.params]);
    },
    faucet_delete: (args) => {
      const table = required(args, 'table');
      const filter = whereOf(filterText(args, 'delete'), 'delete');
      return {
        deleted: sqlite(
          'Delete',
          () => db.prepare(`DELETE FROM ${q(table)} WHERE ${filter.sql}`).run(...filter.params).changes,
        ),
      };
    },
    faucet_raw_sql: () =>
      fail(
        `Raw SQL is not enabled for service ${JSON.stringify(service)}. Use the structured query tools (faucet_query, faucet_insert, etc.) instead.`,
      ),
  };

  const answer = (res: ServerResponse, id: unknown, result: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body) as { id?: unknown; method: string; params?: Record<string, unknown> };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (message.method === 'initialize') {
      return answer(res, message.id, {
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'Faucet Database API (scripted)', version: '0.1.0' },
      });
    }
    if (message.method === 'tools/list') return answer(res, message.id, { tools: toolList(group) });
    if (message.method === 'tools/call') {
      const name = String(message.params?.name);
      const args = (message.params?.arguments ?? {}) as Args;
      try {
        if (!tools[name]) fail(`tool ${name} not found`);
        if (name !== 'faucet_list_services' && args.service !== service)
          fail(`Service ${JSON.stringify(args.service ?? '')} not found. Available services: [${service}]`);
        return answer(res, message.id, { content: [{ type: 'text', text: goJson(tools[name]!(args)) }] });
      } catch (error) {
        // a slip of this stand-in shows as an error too, never as a hung request
        const text = error instanceof FaucetError ? error.message : `scripted faucet: ${(error as Error).stack}`;
        return answer(res, message.id, { content: [{ type: 'text', text }], isError: true });
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: `no method ${message.method}` },
      }),
    );
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        db.close();
      }),
  };
}
