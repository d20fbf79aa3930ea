/**
 * Faucet (faucetdb): `faucet_list_tables`, `faucet_describe_table` and `faucet_query` (filter,
 * fields, order, limit) on one `service` (`--service NAME`, default `main`). It has no
 * aggregate tool (its `faucet_raw_sql` is off unless a service allows it) and no transaction.
 * Shapes follow Faucet's MCP docs: list_tables answers `[{ name, type, row_count, columns }]`,
 * query `{ records, count, limit, offset }`. describe_table's "full table schema object" is not
 * spelled out there: the profile reads `columns` (`pk`, `nullable`), `primary_key` and
 * `foreign_keys` (`column`/`columns`, `ref_table`/`referenced_table`, `ref_column`/`referenced_column`).
 */
import type { DescribeTableOutput, GetInput, QueryInput } from '@mcp-db-bench/contract';
import type { McpClient, ToolCallResult } from '../clients/client.js';
import { sqlLiteral } from './dialects/index.js';
import { ok, type Profile, type ProfileOptions, type Translation, toolError } from './profile.js';
import { COMPARISON, portableType, splitAnd } from './sql.js';

interface FaucetColumn {
  name: string;
  type?: string;
  pk?: boolean;
  nullable?: boolean;
}

interface FaucetTable {
  name: string;
  type?: string;
  row_count?: number | null;
  columns?: FaucetColumn[];
  primary_key?: string[];
  foreign_keys?: Record<string, unknown>[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_LIMIT = 100;

/** Our filter as Faucet's (SQL-like, bare names): the same comparisons, names checked against the table's columns. */
export function faucetFilter(filter: string, columns: ReadonlySet<string>): string | undefined {
  const out: string[] = [];
  for (const part of splitAnd(filter)) {
    const m = COMPARISON.exec(part);
    if (!m || !columns.has(m[1]!) || !IDENTIFIER.test(m[1]!)) return undefined;
    const raw = m[3]!;
    out.push(`${m[1]} ${m[2]} ${sqlLiteral(raw.startsWith("'") ? raw.slice(1, -1).replaceAll("''", "'") : Number(raw))}`);
  }
  return out.join(' AND ');
}

const first = (fk: Record<string, unknown>, ...names: string[]): string | undefined => {
  for (const n of names) {
    const v = fk[n];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string') return v[0];
  }
  return undefined;
};

export const faucet: Profile = {
  name: 'faucet',
  summary: 'Faucet: faucet_list_tables, faucet_describe_table, faucet_query on one --service',
  cannot: {
    aggregate: 'faucet: no aggregate tool (faucet_raw_sql is off unless the service allows raw SQL)',
    insert: 'faucet: writes are not mapped yet',
    update: 'faucet: writes are not mapped yet',
    delete: 'faucet: writes are not mapped yet',
    transact: 'faucet: no atomic transfer (no transaction across calls)',
    sql: 'faucet: not our sql tool',
    echo: 'faucet: no echo tool',
  },
  translate(peer: McpClient, options: ProfileOptions): Translation {
    const service = options.service ?? 'main';
    let tables: Promise<FaucetTable[] | ToolCallResult> | undefined;
    let schemas: Promise<Map<string, FaucetTable>> | undefined;
    const call = async <T>(tool: string, args: Record<string, unknown>): Promise<T | ToolCallResult> => {
      const r = await peer.callTool(tool, { service, ...args });
      return r.isError ? toolError('peer_error', typeof r.data === 'string' ? r.data : JSON.stringify(r.data).slice(0, 300)) : (r.data as T);
    };
    const failed = (x: unknown): x is ToolCallResult => typeof x === 'object' && x !== null && 'isError' in x;
    const list = () => (tables ??= call<FaucetTable[]>('faucet_list_tables', {}));
    /** every table described once: the reverse foreign keys (referenced_by) need them all */
    const describeAll = () =>
      (schemas ??= (async () => {
        const all = await list();
        const map = new Map<string, FaucetTable>();
        if (failed(all)) return map;
        for (const t of all.filter((t) => (t.type ?? 'table') === 'table')) {
          const d = await call<FaucetTable>('faucet_describe_table', { table: t.name });
          if (!failed(d)) map.set(t.name, { ...d, row_count: t.row_count });
        }
        return map;
      })());
    const foreignKeys = (t: FaucetTable) =>
      (t.foreign_keys ?? []).flatMap((fk) => {
        const column = first(fk, 'column', 'columns', 'from');
        const table = first(fk, 'ref_table', 'referenced_table', 'table');
        const references = first(fk, 'ref_column', 'referenced_column', 'to');
        return column && table && references ? [{ columns: [column], table, references: [references] }] : [];
      });
    const primaryKey = (t: FaucetTable) => t.primary_key ?? (t.columns ?? []).filter((c) => c.pk).map((c) => c.name);
    const known = async (table: unknown) => {
      const t = (await describeAll()).get(String(table));
      return t ? { t, columns: new Set((t.columns ?? []).map((c) => c.name)), pk: primaryKey(t) } : toolError('unknown_table', `no table ${String(table)}`);
    };
    const records = async (args: Record<string, unknown>) => {
      const r = await call<{ records?: Record<string, unknown>[] }>('faucet_query', args);
      if (failed(r)) return r;
      return Array.isArray(r.records) ? r.records : toolError('peer_error', `faucet_query answered no records: ${JSON.stringify(r).slice(0, 200)}`);
    };
    const fields = (columns: unknown, allowed: ReadonlySet<string>) => {
      const list = columns as string[] | undefined;
      return list?.find((c) => !allowed.has(c)) ?? (list ? { fields: list } : {});
    };
    return {
      tools: {
        list_tables: async () => {
          const all = await list();
          if (failed(all)) return all;
          return ok({ tables: all.map((t) => ({ name: t.name, kind: t.type === 'view' ? 'view' : 'table', rows: t.row_count ?? null, summary: '' })) });
        },
        describe_table: async (args) => {
          const k = await known(args.table);
          if (failed(k)) return k;
          const all = [...(await describeAll()).values()];
          const out: DescribeTableOutput = {
            name: k.t.name,
            kind: 'table',
            rows: k.t.row_count ?? null,
            columns: (k.t.columns ?? []).map((c) => ({ name: c.name, type: portableType(c.type ?? ''), precision: null, scale: null, nullable: c.nullable ?? true, default: null, auto_increment: false })),
            primary_key: k.pk,
            foreign_keys: foreignKeys(k.t),
            referenced_by: all.flatMap((other) => foreignKeys(other).filter((f) => f.table === k.t.name).map((f) => ({ table: other.name, columns: f.columns, references: f.references }))),
            indexes: [],
          };
          return ok(out);
        },
        get: async (args) => {
          const { table, key, columns } = args as GetInput;
          const k = await known(table);
          if (failed(k)) return k;
          if (k.pk.length !== 1 || typeof key === 'object') return toolError('invalid_argument', 'faucet: get by a single-column key only');
          const f = fields(columns, k.columns);
          if (typeof f === 'string') return toolError('unknown_column', `no column ${f}`);
          const rows = await records({ table, filter: `${k.pk[0]} = ${sqlLiteral(key)}`, limit: 1, ...f });
          return failed(rows) ? rows : ok({ found: rows.length > 0, row: rows[0] ?? null });
        },
        query: async (args) => {
          const { table, columns, filter, order_by, limit = DEFAULT_LIMIT } = args as QueryInput;
          const k = await known(table);
          if (failed(k)) return k;
          const f = fields(columns, k.columns);
          if (typeof f === 'string') return toolError('unknown_column', `no column ${f}`);
          const where = filter === undefined ? undefined : faucetFilter(String(filter), k.columns);
          if (filter !== undefined && where === undefined) return toolError('unsupported_filter', `the profile translates column = literal comparisons joined by and, not: ${filter}`);
          const order = (order_by ?? k.pk).map((o) => o.trim().split(/\s+/));
          if (order.some(([name, dir = 'asc', ...rest]) => !k.columns.has(name!) || rest.length || !/^(asc|desc)$/i.test(dir))) return toolError('invalid_argument', `cannot order by ${order_by}`);
          const rows = await records({ table, ...(where ? { filter: where } : {}), ...f, order: order.map(([n, d = 'asc']) => `${n} ${d.toUpperCase()}`).join(', '), limit: limit + 1 });
          if (failed(rows)) return rows;
          const page = rows.slice(0, limit);
          return ok({ columns: Object.keys(page[0] ?? {}), rows: page, truncated: rows.length > limit, next_cursor: null });
        },
      },
    };
  },
};
