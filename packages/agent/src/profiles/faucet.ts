/**
 * Faucet (faucetdb): our tools through Faucet's own on one `service` (`--service NAME`, default
 * `main`). The shapes are Faucet's source's (internal/mcp/tools.go, internal/mcp/handler.go,
 * internal/model/schema.go, internal/query): every answer is one text block of indented JSON;
 * faucet_list_tables answers `[{ name, type, row_count?, columns: [{ name, type, pk? }] }]`,
 * faucet_describe_table a TableSchema (`columns` with `db_type`, `nullable`, `is_primary_key`,
 * `is_auto_increment`; `primary_key`; `foreign_keys` one column each: `column_name`,
 * `referenced_table`, `referenced_column`), faucet_query `{ records, count, limit, offset }`
 * (at most 1,000 records), faucet_insert `{ inserted, count }` where the engine has RETURNING
 * (SQLite, PostgreSQL) and `{ count }` elsewhere, faucet_update `{ updated, count }` or
 * `{ count }`, faucet_delete `{ deleted }`. Aggregates are faucet_query's `fields`
 * ("COUNT(*) AS n") with `group`, in Faucets whose faucet_query lists `group`. No transaction
 * spans two calls, so `transact` is not served.
 */
import {
  type AggregateInput,
  type AggregateSpec,
  aggregateOutputName,
  type DeleteInput,
  type DescribeTableOutput,
  type FilterNode,
  type FilterOp,
  type GetInput,
  type InsertInput,
  parseFilter,
  type QueryInput,
  ToolError,
  type ToolName,
  type UpdateInput,
} from '@mcp-db-bench/contract';
import type { McpClient, ToolCallResult, ToolInfo } from '../clients/client.js';
import { type Handler, ok, type Profile, type ProfileOptions, type Translation, toolError } from './profile.js';
import { portableType } from './sql.js';

type Row = Record<string, unknown>;

/** faucet_list_tables: one entry a table or view (handleListTables). */
interface FaucetTableSummary {
  name: string;
  type: string;
  /** omitted when the connector does not fill it (its SQLite, PostgreSQL and MySQL connectors do not) */
  row_count?: number;
}

/** faucet_describe_table: model.TableSchema; Go sends a nil slice as null. */
interface FaucetTableSchema {
  name: string;
  type?: string;
  columns: FaucetColumn[] | null;
  primary_key: string[] | null;
  foreign_keys: FaucetForeignKey[] | null;
  indexes: { columns: string[] | null; is_unique: boolean }[] | null;
  row_count?: number;
}

interface FaucetColumn {
  name: string;
  db_type: string;
  nullable: boolean;
  default?: string;
  is_primary_key: boolean;
  is_auto_increment: boolean;
}

/** One column a foreign key: Faucet's introspection sends a composite key as one entry per column. */
interface FaucetForeignKey {
  column_name: string;
  referenced_table: string;
  referenced_column: string;
}

/** A table as the profile knows it from discovery: only these names ever reach Faucet. */
interface Known {
  name: string;
  kind: 'table' | 'view';
  rows: number | null;
  schema: FaucetTableSchema;
  columns: string[];
  names: ReadonlySet<string>;
  /** columns of a numeric type: a number our filter carries as a string goes to Faucet as a number */
  numeric: ReadonlySet<string>;
  pk: string[];
}

/** faucet_query's cap (`clamp(limit, 1, 1000)`); its default of 25 is never relied on. */
const PAGE = 1000;
const DEFAULT_LIMIT = 100;
const CURSOR = /^faucet:(\d+)$/;
/** Drivers whose connector has RETURNING, so faucet_insert answers the inserted rows (SupportsReturning). */
const RETURNING_DRIVERS = new Set(['sqlite', 'postgres']);
const WRITE_TOOLS = [
  ['insert', 'faucet_insert'],
  ['update', 'faucet_update'],
  ['delete', 'faucet_delete'],
] as const;
/** A row changed by someone else between its read and its compare-and-set write: tries before giving up. */
const CAS_TRIES = 5;

// ---- Names and literals as Faucet's parsers read them (internal/query) ----

/** ValidateIdentifier (sanitizer.go): fields, order, group, aggregate aliases and filter columns must pass it. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const RESERVED = new Set(
  'SELECT INSERT UPDATE DELETE DROP CREATE ALTER TRUNCATE EXEC EXECUTE UNION INTO FROM WHERE TABLE DATABASE GRANT REVOKE INDEX VIEW PROCEDURE FUNCTION TRIGGER SCHEMA'.split(' '),
);
/** Words the filter tokenizer (parser.go) makes keywords: a column so named cannot open a comparison. */
const FILTER_KEYWORDS = new Set('AND OR NOT IN LIKE IS NULL BETWEEN CONTAINS STARTS ENDS WITH'.split(' '));
/** The filter tokenizer's numbers: digits, an optional fraction, no exponent. */
const FAUCET_NUMBER = /^-?\d+(\.\d+)?$/;
/** Portable types whose values Faucet's filter reads as numbers. */
const NUMERIC: ReadonlySet<string> = new Set(['integer', 'decimal', 'float']);
/** A UTF-16 half with no partner: JSON carries it as \\udXXX, which Go decodes to U+FFFD, another value. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether Faucet's ValidateIdentifier takes the name. */
const faucetName = (name: string): boolean => IDENTIFIER.test(name) && !RESERVED.has(name.toUpperCase());

const filterName = (name: string): boolean => faucetName(name) && !FILTER_KEYWORDS.has(name.toUpperCase());

/**
 * A value as a literal Faucet's filter parser reads back as the same value: a string in single
 * quotes with its quotes doubled (the parser's only escape: a backslash is an ordinary character,
 * and the value is bound as a parameter), a number in the parser's syntax, a boolean as
 * true/false. Refused (RangeError): NUL (PostgreSQL refuses it in text), lone surrogates, numbers
 * it would read as another value (exponents, integers past 2^53), null (the filter has no null
 * literal: `is null`), anything else.
 */
export function faucetLiteral(value: unknown): string {
  if (typeof value === 'string') {
    if (value.includes('\0')) throw new RangeError('a string with a NUL character cannot be sent in a Faucet filter');
    if (LONE_SURROGATE.test(value)) throw new RangeError('a string with a lone surrogate cannot be sent: it would reach Faucet as U+FFFD');
    return `'${value.replaceAll("'", "''")}'`;
  }
  if (typeof value === 'number') return numberLiteral(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) throw new RangeError('null cannot be compared with a Faucet filter literal (use is null)');
  throw new RangeError(`a ${typeof value} cannot be sent as a Faucet filter literal`);
}

function numberLiteral(n: number): string {
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) throw new RangeError(`${n} is past the integers a double holds exactly`);
  const text = String(n);
  if (!FAUCET_NUMBER.test(text)) throw new RangeError(`${text} has no form Faucet's filter reads (digits and a fraction, no exponent)`);
  return text;
}

/** Our comparisons as Faucet's filter parser (parser.go) spells them. */
const FAUCET_OPS: Partial<Record<FilterOp, string>> = {
  '=': '=',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  like: 'LIKE',
  'not like': 'NOT LIKE',
};

interface Term {
  column: string;
  op: string;
  literal: string;
}

/**
 * Our filter tree as terms Faucet reads alike: comparisons and like joined by and, on columns it can
 * name; undefined outside that subset (RangeError for a value it cannot carry).
 */
function termsOf(node: FilterNode, columns: ReadonlySet<string>, numeric: ReadonlySet<string>): Term[] | undefined {
  const terms: Term[] = [];
  for (const p of 'and' in node ? node.and : [node]) {
    if (!('column' in p) || !columns.has(p.column) || !filterName(p.column)) return undefined;
    const op = FAUCET_OPS[p.op];
    if (op === undefined || !('value' in p) || Array.isArray(p.value)) return undefined;
    // our like escapes with a backslash; engines differ on LIKE's default escape, so none is sent
    if (op.endsWith('LIKE') && String(p.value).includes('\\')) return undefined;
    // a big integer or exact decimal travels in our tree as a string: on a numeric column it stays a number
    const exact = typeof p.value === 'string' && numeric.has(p.column) && FAUCET_NUMBER.test(p.value);
    terms.push({ column: p.column, op, literal: exact ? String(p.value) : faucetLiteral(p.value) });
  }
  return terms;
}

const render = (terms: readonly Term[]): string => terms.map((t) => `${t.column} ${t.op} ${t.literal}`).join(' AND ');

/**
 * Our filter (either form, read by our grammar) as Faucet's: bare names, the same comparisons; undefined when
 * outside the subset the profile translates. Throws `ToolError('invalid_filter')` for what our server refuses too.
 */
export function faucetFilter(filter: string | object, columns: ReadonlySet<string>, numeric: ReadonlySet<string> = new Set()): string | undefined {
  const terms = termsOf(parseFilter(filter), columns, numeric);
  return terms && render(terms);
}

// ---- Exact decimal arithmetic for {"add": n}: Faucet sets values, it cannot add in the database ----

const DECIMAL = /^([-+]?)(\d+)(?:\.(\d+))?$/;

function decimalParts(value: unknown): { sign: bigint; digits: string; scale: number } {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`cannot add to or with ${JSON.stringify(value)}: not a plain decimal number`);
  return { sign: m[1] === '-' ? -1n : 1n, digits: `${m[2]}${m[3] ?? ''}`, scale: (m[3] ?? '').length };
}

/** `a + b` exactly, as a decimal string (a number when both are integers given as numbers). */
export function addDecimal(a: unknown, b: unknown): number | string {
  const [x, y] = [decimalParts(a), decimalParts(b)];
  const scale = Math.max(x.scale, y.scale);
  const scaled = (p: typeof x) => p.sign * BigInt(p.digits) * 10n ** BigInt(scale - p.scale);
  const sum = scaled(x) + scaled(y);
  const digits = (sum < 0n ? -sum : sum).toString().padStart(scale + 1, '0');
  const text = `${sum < 0n ? '-' : ''}${scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits}`;
  return typeof a === 'number' && typeof b === 'number' && scale === 0 && Number.isSafeInteger(Number(text)) ? Number(text) : text;
}

// ---- The peer ----

/** A refusal in our shape, thrown from deep inside a handler and answered as it is. */
class Refusal extends Error {
  constructor(readonly result: ToolCallResult) {
    super('refused');
  }
}

const refuse = (code: string, message: string): never => {
  throw new Refusal(toolError(code, message));
};

/** A promise made once, made again after it fails (a failed discovery is not remembered). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () => {
    if (!kept) {
      kept = make();
      kept.catch(() => {
        kept = undefined;
      });
    }
    return kept;
  };
}

const peerText = (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data)).slice(0, 300);

class FaucetPeer {
  list!: () => Promise<FaucetTableSummary[]>;
  /** every table described once: the reverse foreign keys (referenced_by) need them all */
  known!: () => Promise<Map<string, Known>>;
  /** the service's driver (faucet_list_services), undefined when Faucet does not say: configuration, asked once */
  readonly driver = once(async () => {
    const services = await this.call<{ name: string; driver?: string }[]>('faucet_list_services', {}).catch(() => []);
    return (Array.isArray(services) ? services : []).find((s) => s.name === this.service)?.driver;
  });

  constructor(
    readonly peer: McpClient,
    readonly service: string,
  ) {
    this.forget();
  }

  async call<T>(tool: string, args: Record<string, unknown>): Promise<T> {
    const r = await this.peer.callTool(tool, { service: this.service, ...args });
    if (r.isError) refuse('peer_error', peerText(r.data));
    return r.data as T;
  }

  /** A new session: discover again, as a new agent would. */
  forget(): void {
    this.list = once(() => this.call<FaucetTableSummary[]>('faucet_list_tables', {}));
    this.known = once(async () => {
      const map = new Map<string, Known>();
      for (const summary of await this.list()) {
        if (summary.type !== 'table') continue;
        const schema = await this.call<FaucetTableSchema>('faucet_describe_table', { table: summary.name }).catch((e: unknown) => {
          if (e instanceof Refusal) return undefined; // a table this key may not describe: left out
          throw e;
        });
        if (schema) map.set(summary.name, knownTable(schema, summary));
      }
      return map;
    });
  }

  async table(name: unknown): Promise<Known> {
    return (await this.known()).get(String(name)) ?? refuse('unknown_table', `no table ${String(name)}`);
  }

  async records(args: Record<string, unknown>): Promise<Row[]> {
    const r = await this.call<{ records?: Row[] }>('faucet_query', args);
    return Array.isArray(r?.records) ? r.records : refuse('peer_error', `faucet_query answered no records: ${peerText(r)}`);
  }
}

function knownTable(schema: FaucetTableSchema, summary: FaucetTableSummary): Known {
  const columns = (schema.columns ?? []).map((c) => c.name);
  const pk = schema.primary_key ?? (schema.columns ?? []).filter((c) => c.is_primary_key).map((c) => c.name);
  const numeric = new Set((schema.columns ?? []).filter((c) => NUMERIC.has(portableType(c.db_type))).map((c) => c.name));
  const rows = schema.row_count ?? summary.row_count ?? null;
  return { name: schema.name, kind: schema.type === 'view' ? 'view' : 'table', rows, schema, columns, names: new Set(columns), numeric, pk };
}

// ---- Shared translation steps ----

/** A column of the table; where Faucet validates names (fields, order, group), one its ValidateIdentifier takes. */
function column(k: Known, name: unknown, validated = true): string {
  const n = String(name);
  if (!k.names.has(n)) refuse('unknown_column', `no column ${n} in ${k.name}`);
  if (validated && !faucetName(n)) refuse('invalid_argument', `faucet refuses the column name ${n} (a reserved word)`);
  return n;
}

const fieldsOf = (k: Known, columns: readonly string[] | undefined) => (columns ? { fields: columns.map((c) => column(k, c)) } : {});

function filterOf(k: Known, filter: unknown): Term[] | undefined {
  if (filter === undefined) return undefined;
  const terms = termsOf(parseFilter(filter as string | object), k.names, k.numeric);
  return terms ?? refuse('unsupported_filter', `the faucet profile translates column op literal comparisons (and like) joined by and, not: ${JSON.stringify(filter)}`);
}

function requiredFilter(k: Known, filter: unknown): Term[] {
  const terms = filter === undefined || filter === '' ? undefined : filterOf(k, filter);
  return terms ?? refuse('invalid_argument', 'filter: a write needs a filter naming the rows to change');
}

/** `order_by` as faucet_query's `order`, each name among `allowed`. */
function orderOf(order: readonly string[], allowed: (name: string) => boolean): { order?: string } {
  const parts = order.map((o) => {
    const [name = '', dir = 'asc', ...rest] = o.trim().split(/\s+/);
    if (rest.length || !/^(asc|desc)$/i.test(dir) || !allowed(name) || !faucetName(name)) return refuse('invalid_argument', `cannot order by ${o}`);
    return `${name} ${dir.toUpperCase()}`;
  });
  return parts.length ? { order: parts.join(', ') } : {};
}

/** A row with its keys in `names` order (Go sends a map's keys sorted), then any others. */
function ordered(row: Row, names: readonly string[]): Row {
  const out: Row = {};
  for (const n of names) if (n in row) out[n] = row[n];
  for (const [n, v] of Object.entries(row)) if (!(n in out)) out[n] = v;
  return out;
}

const pick = (row: Row, names: readonly string[]): Row => Object.fromEntries(names.map((n) => [n, row[n]]));

function keyTerms(k: Known, key: unknown): Term[] {
  if (k.pk.length === 0) refuse('invalid_argument', `${k.name} has no primary key`);
  const values: Row = k.pk.length === 1 && (typeof key !== 'object' || key === null) ? { [k.pk[0]!]: key } : (key as Row);
  if (typeof values !== 'object' || values === null || Object.keys(values).length !== k.pk.length || k.pk.some((c) => !(c in values))) {
    refuse('invalid_argument', `the key of ${k.name} is ${k.pk.join(', ')}`);
  }
  return k.pk.map((c) => {
    if (!filterName(c)) refuse('invalid_argument', `faucet's filter cannot name the key column ${c}`);
    return { column: c, op: '=', literal: faucetLiteral(values[c]) };
  });
}

/** Up to `limit` records from `offset`, and whether more may follow (Faucet answers at most PAGE). */
async function page(f: FaucetPeer, args: Row, limit: number, offset = 0): Promise<{ rows: Row[]; more: boolean }> {
  const want = Math.min(limit, PAGE);
  const rows = await f.records({ ...args, limit: Math.min(want + 1, PAGE), ...(offset ? { offset } : {}) });
  // asking for PAGE rows cannot tell "exactly PAGE" from "more": the next page says
  return { rows: rows.slice(0, want), more: rows.length > want || (want === PAGE && rows.length === PAGE) };
}

// ---- Our read tools ----

async function listTables(f: FaucetPeer) {
  const all = await f.list();
  return { tables: all.map((t) => ({ name: t.name, kind: t.type === 'view' ? 'view' : 'table', rows: t.row_count ?? null, summary: '' })) };
}

const foreignKeys = (k: Known) =>
  (k.schema.foreign_keys ?? []).map((fk) => ({ columns: [fk.column_name], table: fk.referenced_table, references: [fk.referenced_column] }));

function decimalSize(dbType: string): { precision: number | null; scale: number | null } {
  const m = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(dbType);
  return portableType(dbType) === 'decimal' && m ? { precision: Number(m[1]), scale: Number(m[2] ?? 0) } : { precision: null, scale: null };
}

async function describeTable(f: FaucetPeer, args: Row): Promise<DescribeTableOutput> {
  const k = await f.table(args.table);
  const all = [...(await f.known()).values()];
  return {
    name: k.name,
    kind: k.kind,
    rows: k.rows,
    columns: (k.schema.columns ?? []).map((c) => ({
      name: c.name,
      type: portableType(c.db_type ?? ''),
      ...decimalSize(c.db_type ?? ''),
      nullable: c.nullable,
      default: c.default ?? null,
      auto_increment: c.is_auto_increment,
    })),
    primary_key: k.pk,
    foreign_keys: foreignKeys(k),
    referenced_by: all.flatMap((other) => foreignKeys(other).filter((fk) => fk.table === k.name).map((fk) => ({ table: other.name, columns: fk.columns, references: fk.references }))),
    indexes: (k.schema.indexes ?? []).map((i) => ({ columns: i.columns ?? [], unique: i.is_unique })),
  };
}

async function get(f: FaucetPeer, args: Row) {
  const { table, key, columns } = args as GetInput;
  const k = await f.table(table);
  const rows = await f.records({ table: k.name, filter: render(keyTerms(k, key)), limit: 1, ...fieldsOf(k, columns) });
  return { found: rows.length > 0, row: rows[0] ? ordered(rows[0], columns ?? k.columns) : null };
}

async function query(f: FaucetPeer, args: Row) {
  const { table, columns, filter, order_by, limit = DEFAULT_LIMIT, cursor } = args as QueryInput;
  const k = await f.table(table);
  const terms = filterOf(k, filter);
  const offset = cursor === undefined ? 0 : Number(CURSOR.exec(cursor)?.[1] ?? refuse('invalid_argument', `not a cursor of this profile: ${cursor}`));
  const request = { table: k.name, ...fieldsOf(k, columns), ...(terms ? { filter: render(terms) } : {}), ...orderOf(order_by ?? k.pk, (n) => k.names.has(n)) };
  const { rows, more } = await page(f, request, limit, offset);
  const names = columns ?? k.columns;
  return { columns: names, rows: rows.map((r) => ordered(r, names)), truncated: more, next_cursor: more ? `faucet:${offset + rows.length}` : null };
}

/** One aggregate as a faucet_query field, "SUM(amount) AS sum_amount" (ParseProjection's form). */
function aggregateField(k: Known, spec: AggregateSpec): { field: string; alias: string } {
  if (spec.column === undefined && spec.fn !== 'count') refuse('invalid_argument', `${spec.fn} needs a column`);
  const arg = spec.column === undefined ? '*' : column(k, spec.column);
  const alias = aggregateOutputName(spec);
  if (!faucetName(alias)) refuse('invalid_argument', `faucet refuses the output name ${alias}`);
  return { field: `${spec.fn.toUpperCase()}(${arg}) AS ${alias}`, alias };
}

async function aggregate(f: FaucetPeer, args: Row) {
  const { table, aggregates, group_by = [], filter, having, order_by, limit = DEFAULT_LIMIT } = args as AggregateInput;
  if (having !== undefined) refuse('invalid_argument', 'faucet: faucet_query has no having');
  const k = await f.table(table);
  const groups = group_by.map((g) => column(k, g));
  const fields = aggregates.map((a) => aggregateField(k, a));
  const outputs = [...groups, ...fields.map((x) => x.alias)];
  if (new Set(outputs).size !== outputs.length) refuse('invalid_argument', `output names repeat: ${outputs.join(', ')}`);
  const terms = filterOf(k, filter);
  const request = {
    table: k.name,
    fields: [...groups, ...fields.map((x) => x.field)],
    ...(groups.length ? { group: groups.join(',') } : {}),
    ...(terms ? { filter: render(terms) } : {}),
    ...orderOf(order_by ?? groups, (n) => outputs.includes(n)),
  };
  const { rows, more } = await page(f, request, limit);
  return { columns: outputs, rows: rows.map((r) => ordered(r, outputs)), truncated: more };
}

// ---- Our write tools ----

async function insert(f: FaucetPeer, args: Row) {
  const { table, rows } = args as InsertInput;
  const k = await f.table(table);
  const names = Object.keys(rows[0] ?? {}).sort();
  // Faucet takes the first record's columns for every record: others would be dropped or set null
  if (rows.some((r) => Object.keys(r).sort().join(',') !== names.join(','))) refuse('invalid_argument', 'faucet: every row of one insert must name the same columns');
  for (const n of names) column(k, n, false); // record keys are quoted by Faucet, not validated
  const keysGiven = k.pk.length > 0 && rows.every((r) => k.pk.every((c) => r[c] !== undefined && r[c] !== null));
  if (!keysGiven) {
    const driver = await f.driver();
    if (driver !== undefined && !RETURNING_DRIVERS.has(driver)) {
      refuse('unsupported', `faucet: service ${f.service} (${driver}) has no RETURNING, so faucet_insert answers only a count and the keys it generates stay unknown; nothing was inserted`);
    }
  }
  const answer = await f.call<{ inserted?: Row[]; count?: number }>('faucet_insert', { table: k.name, records: rows });
  if (Array.isArray(answer?.inserted) && answer.inserted.length === rows.length) return { inserted: rows.length, keys: answer.inserted.map((r) => pick(r, k.pk)) };
  if (keysGiven && Number(answer?.count) === rows.length) return { inserted: rows.length, keys: rows.map((r) => pick(r, k.pk)) };
  // written, but which keys is unknown: an uncertain outcome, never a definite failure
  return refuse('internal_error', `faucet_insert answered ${peerText(answer)}: the rows were written, their keys are unknown`);
}

/** Whether the terms pin every primary key column with `=`: at most one row matches. */
const pinsKey = (k: Known, terms: readonly Term[]) => k.pk.length > 0 && k.pk.every((c) => terms.some((t) => t.column === c && t.op === '='));

/**
 * The filter a write sends so that it changes at most `maxRows` rows (Faucet has no such guard):
 * as it is when it pins the key or no cap is asked, else narrowed to the keys read first; null
 * when nothing matches.
 */
async function capped(f: FaucetPeer, k: Known, terms: Term[], maxRows: number | undefined, verb: string): Promise<string | null> {
  if (maxRows === undefined || pinsKey(k, terms)) return render(terms);
  const keys = await readKeys(f, k, terms, maxRows, verb);
  if (keys.length === 0) return null;
  const one = (r: Row) => render(keyTerms(k, pick(r, k.pk)));
  const pinned = k.pk.length === 1 ? `${k.pk[0]} IN (${keys.map((r) => faucetLiteral(r[k.pk[0]!])).join(', ')})` : `(${keys.map((r) => `(${one(r)})`).join(' OR ')})`;
  return `${render(terms)} AND ${pinned}`;
}

/** The rows a write would change (key and `extra` columns), refused past `maxRows`. */
async function readKeys(f: FaucetPeer, k: Known, terms: Term[], maxRows: number, verb: string, extra: string[] = []): Promise<Row[]> {
  if (k.pk.length === 0) refuse('invalid_argument', `faucet: ${k.name} has no primary key to pin the rows of a guarded write`);
  if (maxRows >= PAGE) refuse('invalid_argument', `faucet: max_rows up to ${PAGE - 1} (one faucet_query page checks it)`);
  const rows = await f.records({ table: k.name, filter: render(terms), fields: [...k.pk, ...extra], ...orderOf(k.pk, () => true), limit: maxRows + 1 });
  if (rows.length > maxRows) refuse('limit_exceeded', `the filter matches more than max_rows (${maxRows}) rows of ${k.name}; nothing was ${verb}`);
  return rows;
}

async function update(f: FaucetPeer, args: Row) {
  const { table, set, filter, max_rows } = args as UpdateInput;
  const k = await f.table(table);
  const terms = requiredFilter(k, filter);
  const plain: Row = {};
  const adds: Row = {};
  for (const [name, value] of Object.entries(set)) {
    column(k, name, false);
    if (typeof value === 'object' && value !== null && 'add' in value) adds[name] = value.add;
    else plain[name] = value;
  }
  if (Object.keys(adds).length) return { updated: await addInPlace(f, k, terms, plain, adds, max_rows) };
  const target = await capped(f, k, terms, max_rows, 'updated');
  if (target === null) return { updated: 0 };
  const answer = await f.call<{ count?: number }>('faucet_update', { table: k.name, filter: target, record: plain });
  return { updated: Number(answer?.count ?? 0) };
}

/**
 * `{"add": n}` without an add in the database: each row is read, then written back by key with
 * the sum only if the value is still the one read (compare and set), read again when it changed.
 * Several rows are several calls: a failure after the first leaves an uncertain outcome.
 */
async function addInPlace(f: FaucetPeer, k: Known, terms: Term[], plain: Row, adds: Row, maxRows: number | undefined): Promise<number> {
  const addCols = Object.keys(adds);
  const rows = await readKeys(f, k, terms, maxRows ?? PAGE - 1, 'updated', addCols);
  for (const row of rows) for (const c of addCols) addDecimal(row[c], adds[c]); // every sum checked before the first write
  let updated = 0;
  for (const [i, row] of rows.entries()) {
    try {
      updated += await compareAndSet(f, k, terms, row, plain, adds);
    } catch (error) {
      if (i === 0) throw error;
      refuse('internal_error', `faucet: ${updated} of ${rows.length} rows were updated before a failure (${error instanceof Refusal ? JSON.stringify(error.result.data) : String(error)})`);
    }
  }
  return updated;
}

async function compareAndSet(f: FaucetPeer, k: Known, terms: Term[], first: Row, plain: Row, adds: Row): Promise<number> {
  const addCols = Object.keys(adds);
  let row: Row | undefined = first;
  for (let attempt = 0; attempt < CAS_TRIES && row; attempt++) {
    const mine = [...terms, ...keyTerms(k, pick(row, k.pk))];
    const record = { ...plain, ...Object.fromEntries(addCols.map((c) => [c, addDecimal(row![c], adds[c])])) };
    const still = addCols.map((c) => ({ column: c, op: '=', literal: faucetLiteral(row![c]) }));
    const answer = await f.call<{ count?: number }>('faucet_update', { table: k.name, filter: render([...mine, ...still]), record });
    if (Number(answer?.count) > 0) return 1;
    // changed since it was read, or no longer matching: read it again
    [row] = await f.records({ table: k.name, filter: render(mine), fields: [...k.pk, ...addCols], limit: 1 });
  }
  return row ? refuse('conflict', `faucet: a row of ${k.name} kept changing between its read and its write`) : 0;
}

async function remove(f: FaucetPeer, args: Row) {
  const { table, filter, max_rows } = args as DeleteInput;
  const k = await f.table(table);
  const target = await capped(f, k, requiredFilter(k, filter), max_rows, 'deleted');
  if (target === null) return { deleted: 0 };
  const answer = await f.call<{ deleted?: number }>('faucet_delete', { table: k.name, filter: target });
  return { deleted: Number(answer?.deleted ?? 0) };
}

// ---- The profile ----

/** A handler answering our shape, or the refusal it met (a RangeError is a value Faucet cannot carry). */
const serve =
  (f: FaucetPeer, run: (f: FaucetPeer, args: Row) => Promise<unknown>): Handler =>
  async (args) => {
    try {
      return ok(await run(f, args));
    } catch (error) {
      if (error instanceof Refusal) return error.result;
      if (error instanceof ToolError) return toolError(error.code, error.message);
      if (error instanceof RangeError) return toolError('invalid_argument', error.message);
      throw error;
    }
  };

const takes = (tool: ToolInfo | undefined, arg: string) => (tool?.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties?.[arg] !== undefined;

/** The handlers this Faucet can serve, judged from its tools/list. */
function offered(all: Partial<Record<ToolName, Handler>>, tools: readonly ToolInfo[]): Partial<Record<ToolName, Handler>> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const missing = new Set<string>(WRITE_TOOLS.filter(([, theirs]) => !byName.has(theirs)).map(([ours]) => ours));
  // aggregate fields came with `group` (internal/query/aggregate.go): an older faucet_query has neither
  if (!takes(byName.get('faucet_query'), 'group')) missing.add('aggregate');
  return Object.fromEntries(Object.entries(all).filter(([name]) => !missing.has(name)));
}

export const faucet: Profile = {
  name: 'faucet',
  summary: 'Faucet: faucet_list_tables, faucet_describe_table, faucet_query (aggregates with group), faucet_insert/update/delete on one --service',
  cannot: {
    aggregate: "faucet: no aggregate tool: this Faucet's faucet_query takes no group (aggregate fields and group came in a later Faucet)",
    insert: 'faucet: this Faucet lists no faucet_insert',
    update: 'faucet: this Faucet lists no faucet_update',
    delete: 'faucet: this Faucet lists no faucet_delete',
    transact: 'faucet: no atomic transfer (no transaction across calls)',
    sql: 'faucet: not our sql tool',
    echo: 'faucet: no echo tool',
  },
  takes: ['service'],
  translate(peer: McpClient, options: ProfileOptions): Translation {
    const f = new FaucetPeer(peer, options.service ?? 'main');
    const all: Partial<Record<ToolName, Handler>> = {
      list_tables: serve(f, listTables),
      describe_table: serve(f, describeTable),
      get: serve(f, get),
      query: serve(f, query),
      aggregate: serve(f, aggregate),
      insert: serve(f, insert),
      update: serve(f, update),
      delete: serve(f, remove),
    };
    let served = all;
    return {
      get tools() {
        return served;
      },
      listed(tools) {
        served = offered(all, tools);
      },
      opened() {
        f.forget();
      },
    };
  },
};
