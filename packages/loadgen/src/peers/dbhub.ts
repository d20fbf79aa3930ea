/**
 * DBHub (`@bytebase/dbhub`): `search_objects` lists tables and their columns, row counts and
 * primary key; everything else is SQL through `execute_sql`, written for the engine behind it
 * (`--profile dbhub:postgres`; without one, the engine DBHub names in its tool description).
 * With several sources DBHub names its tools per source (`execute_sql_<id>`): the profile
 * drives the first it lists.
 */
import type { DescribeTableOutput } from '@mcp-db-bench/contract';
import type { McpClient, ToolInfo } from '../clients/client.js';
import { DIALECTS, type SqlDialect } from './dialects/index.js';
import type { PeerOptions, PeerProfile, Translation } from './profile.js';
import { portableType, type Rows, type RunSql, sqlTools } from './sql.js';

interface DbhubAnswer<T> {
  success?: boolean;
  data?: T;
  error?: string;
}

interface SearchTable {
  name: string;
  row_count?: number | null;
  columns?: { name: string; type: string; nullable: boolean }[];
  indexes?: { columns: string[]; primary: boolean }[];
}

/**
 * The engine DBHub names in execute_sql's description: "Execute SQL queries on the sqlite
 * database", or with several sources "... on the 'id' postgres database" (after the source's own
 * description, if it has one, and before " [READ-ONLY MODE]" or a row-limit note).
 */
export function dbhubEngine(description: string): string | undefined {
  return /Execute SQL queries on the (?:'.*' )?(\w+) database/s.exec(description)?.[1]?.toLowerCase();
}

/** DBHub's SQL tool and the search tool of the same source: unsuffixed with one source, `_<id>` with several. */
export function dbhubTools(list: readonly ToolInfo[]): { sql: ToolInfo; search: string } | undefined {
  const sql = list.find((t) => t.name === 'execute_sql') ?? list.find((t) => t.name.startsWith('execute_sql_'));
  return sql && { sql, search: `search_objects${sql.name.slice('execute_sql'.length)}` };
}

/** Why there is no dialect: the engine unnamed and undetected, or one the profile has no SQL for. */
export function dbhubNoDialect(engine: string | undefined): string {
  const known = Object.keys(DIALECTS).join(', ');
  return engine
    ? `dbhub: the database behind DBHub is ${engine}, which this profile does not support (it writes SQL for ${known})`
    : `dbhub: the engine is unknown (DBHub did not name it in execute_sql's description): name it as --profile dbhub:ENGINE, one of ${known}`;
}

export const dbhub: PeerProfile = {
  name: 'dbhub',
  summary: 'DBHub: search_objects for discovery, execute_sql with SQL written per engine',
  cannot: {
    insert: 'dbhub: writes are not mapped (execute_sql could run them, but not verified as our write tools are)',
    update: 'dbhub: writes are not mapped',
    delete: 'dbhub: writes are not mapped',
    transact: 'dbhub: no atomic transfer (no transaction across calls)',
    sql: 'dbhub: its execute_sql is not our sql tool',
    echo: 'dbhub: no echo tool',
  },
  takes: ['engine'],
  check: (options) =>
    options.engine !== undefined && !DIALECTS[options.engine]
      ? `dbhub: unknown engine ${options.engine}; engines: ${Object.keys(DIALECTS).join(', ')}`
      : undefined,
  translate(peer: McpClient, options: PeerOptions): Translation {
    let dialect: SqlDialect | undefined = options.engine ? DIALECTS[options.engine] : undefined;
    /** the engine DBHub named, when it is one without a dialect */
    let named: string | undefined;
    let tools = { sql: 'execute_sql', search: 'search_objects' };
    const call = async <T>(tool: string, args: Record<string, unknown>): Promise<T | { error: string }> => {
      const result = await peer.callTool(tool, args);
      const answer = result.data as DbhubAnswer<T>;
      if (result.isError || answer?.success === false)
        return { error: answer?.error ?? JSON.stringify(result.data).slice(0, 300) };
      return answer.data as T;
    };
    const run: RunSql = async (sql) => {
      const r = await call<{ statements: { rows: Rows }[] }>(tools.sql, { sql });
      return 'error' in r ? r : { rows: r.statements[0]?.rows ?? [] };
    };
    const search = async (args: Record<string, unknown>) => {
      const r = await call<{ results: SearchTable[] }>(tools.search, { object_type: 'table', limit: 1000, ...args });
      if ('error' in r) throw new Error(`dbhub ${tools.search} failed: ${r.error}`);
      return r.results;
    };
    const translation = sqlTools(
      run,
      () => {
        if (!dialect) throw new Error(dbhubNoDialect(named));
        return dialect;
      },
      {
        tables: async () => (await search({})).map((t) => t.name).sort(),
        table: async (name): Promise<Pick<DescribeTableOutput, 'columns' | 'primary_key' | 'rows'> | undefined> => {
          // LIKE pattern: escape nothing, match the exact name among the answers
          const t = (await search({ pattern: name, detail_level: 'full' })).find((r) => r.name === name);
          if (!t?.columns) return undefined;
          return {
            rows: t.row_count ?? null,
            columns: t.columns.map((c) => ({
              name: c.name,
              type: portableType(c.type),
              precision: null,
              scale: null,
              nullable: c.nullable,
              default: null,
              auto_increment: false,
            })),
            primary_key: t.indexes?.find((i) => i.primary)?.columns ?? [],
          };
        },
      },
    );
    return {
      ...translation,
      listed(list: readonly ToolInfo[]) {
        const found = dbhubTools(list);
        if (!found) return;
        tools = { sql: found.sql.name, search: found.search };
        const engine = dbhubEngine(found.sql.description ?? '');
        dialect ??= engine ? DIALECTS[engine] : undefined;
        named = engine;
      },
    };
  },
};
