/**
 * Discovery through a peer's SQL tool, kept for one session: the table list, foreign keys and
 * each described table, as an agent keeps them in context, forgotten when a new session opens
 * (a describe does not list the tables again, and a new session pays its own discovery).
 */
import type { DescribeTableOutput, PortableType } from '@mcp-db-bench/contract';
import type { ToolCallResult } from '../clients/client.js';
import { literal, type SqlDialect } from './dialects/index.js';
import { toolError } from './profile.js';
import type { Rows, SqlDiscovery } from './sql.js';

/** One statement through the peer: its rows, or the peer's error as our tool error. */
export type Query = (sql: string) => Promise<Rows | ToolCallResult>;

export const failed = (r: Rows | ToolCallResult): r is ToolCallResult => !Array.isArray(r);

/** What statements may name in a described table. */
export interface KnownTable {
  columns: Set<string>;
  primaryKey: string[];
}

type Shape = Pick<DescribeTableOutput, 'columns' | 'primary_key' | 'rows'>;

/** A declared SQL type as one of our portable types, for the choices workloads make (numeric measures). */
export function portableType(declared: string): PortableType {
  const t = declared.toLowerCase();
  if (/int|serial/.test(t)) return 'integer';
  if (/dec|numeric|money/.test(t)) return 'decimal';
  if (/real|float|double/.test(t)) return 'float';
  if (/bool/.test(t)) return 'boolean';
  if (/timestamp|datetime/.test(t)) return 'timestamp';
  if (/^date/.test(t)) return 'date';
  if (/json/.test(t)) return 'json';
  return 'text';
}

export class SqlCatalog {
  readonly #query: Query;
  readonly #dialect: () => SqlDialect;
  readonly #discovery: SqlDiscovery;
  readonly #known = new Map<string, KnownTable>();
  #tables: string[] | undefined;
  #foreignKeys: Promise<Rows> | undefined;

  /** `dialect` is a function: some profiles learn the engine from tools/list. */
  constructor(query: Query, dialect: () => SqlDialect, discovery: SqlDiscovery) {
    this.#query = query;
    this.#dialect = dialect;
    this.#discovery = discovery;
  }

  /** A new session: it discovers again. */
  forget(): void {
    this.#known.clear();
    this.#tables = undefined;
    this.#foreignKeys = undefined;
  }

  /** The peer's tables, asked for each list_tables (the agent's own call) and kept for the session. */
  async listTables(): Promise<string[] | ToolCallResult> {
    if (this.#discovery.tables) {
      this.#tables = await this.#discovery.tables();
      return this.#tables;
    }
    const r = await this.#query(this.#dialect().tables);
    if (failed(r)) return r;
    this.#tables = r.map((t) => String(t.name));
    return this.#tables;
  }

  async describe(table: string): Promise<DescribeTableOutput | ToolCallResult> {
    // the list this session already has; listed here only when describe comes first
    const names = this.#tables ?? (await this.listTables());
    if (!Array.isArray(names)) return names;
    if (!names.includes(table)) return toolError('unknown_table', `no table ${table}`);
    const d = this.#dialect();
    const shape = (await this.#discovery.table?.(table)) ?? (await this.#shape(table, d));
    if ('isError' in shape) return shape;
    // one catalog query per session, shared by every describe; a failed one leaves no foreign keys
    this.#foreignKeys ??= this.#query(d.foreignKeys).then((r) => (failed(r) ? [] : r));
    const fks = single(await this.#foreignKeys);
    this.#known.set(table, { columns: new Set(shape.columns.map((c) => c.name)), primaryKey: shape.primary_key });
    return {
      name: table,
      kind: 'table',
      ...shape,
      foreign_keys: fks
        .filter((f) => f.table === table)
        .map((f) => ({ columns: [f.column], table: f.ref_table, references: [f.ref_column] })),
      referenced_by: fks
        .filter((f) => f.ref_table === table)
        .map((f) => ({ table: f.table, columns: [f.column], references: [f.ref_column] })),
      indexes: [],
    } as DescribeTableOutput;
  }

  /** A table's columns and key, described first if the agent has not yet. */
  async table(table: unknown): Promise<KnownTable | ToolCallResult> {
    if (typeof table !== 'string') return toolError('invalid_argument', 'table must be a string');
    const k = this.#known.get(table);
    if (k) return k;
    const d = await this.describe(table);
    return 'isError' in d ? d : this.#known.get(table)!;
  }

  /** Columns, key and row count from the dialect's catalog query and a count. */
  async #shape(table: string, d: SqlDialect): Promise<Shape | ToolCallResult> {
    const cols = await this.#query(d.columns(literal(d, table)));
    if (failed(cols)) return cols;
    const count = await this.#query(`select count(*) as n from ${d.quote(table)}`);
    if (failed(count)) return count;
    return {
      rows: Number(count[0]?.n ?? 0),
      columns: cols.map((c) => column(String(c.name), String(c.type), Boolean(Number(c.nullable)))),
      primary_key: cols
        .filter((c) => Number(c.pk) > 0)
        .sort((a, b) => Number(a.pk) - Number(b.pk))
        .map((c) => String(c.name)),
    };
  }
}

const column = (name: string, type: string, nullable: boolean): DescribeTableOutput['columns'][number] => ({
  name,
  type: portableType(type),
  precision: null,
  scale: null,
  nullable,
  default: null,
  auto_increment: false,
});

interface ForeignKey {
  table: string;
  column: string;
  ref_table: string;
  ref_column: string;
}

/** Single-column foreign keys (composite ones are left out, as the workloads follow single columns). */
function single(rows: Rows): ForeignKey[] {
  const byKey = new Map<string, Rows>();
  for (const r of rows) {
    const id = `${r.table}\u0000${r.fk}`;
    byKey.set(id, [...(byKey.get(id) ?? []), r]);
  }
  return [...byKey.values()]
    .filter((g) => g.length === 1)
    .map((g) => {
      const r = g[0]!;
      return {
        table: String(r.table),
        column: String(r.column),
        ref_table: String(r.ref_table),
        ref_column: String(r.ref_column),
      };
    });
}
