/**
 * DBHub (`@bytebase/dbhub`): `search_objects` lists tables and their columns, row counts and
 * primary key; everything else is SQL through `execute_sql`, written for the engine behind it
 * (`--profile dbhub:postgres`; without one, the engine DBHub names in its tool description).
 */
import type { DescribeTableOutput } from '@mcp-db-bench/contract';
import type { McpClient, ToolInfo } from '../clients/client.js';
import { DIALECTS, type SqlDialect } from './dialects/index.js';
import type { Profile, ProfileOptions, Translation } from './profile.js';
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

export const dbhub: Profile = {
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
  check: (options) => (options.engine && !DIALECTS[options.engine] ? `dbhub: unknown engine ${options.engine}; engines: ${Object.keys(DIALECTS).join(', ')}` : undefined),
  translate(peer: McpClient, options: ProfileOptions): Translation {
    let dialect: SqlDialect | undefined = options.engine ? DIALECTS[options.engine] : undefined;
    const call = async <T>(tool: string, args: Record<string, unknown>): Promise<T | { error: string }> => {
      const result = await peer.callTool(tool, args);
      const answer = result.data as DbhubAnswer<T>;
      if (result.isError || answer?.success === false) return { error: answer?.error ?? JSON.stringify(result.data).slice(0, 300) };
      return answer.data as T;
    };
    const run: RunSql = async (sql) => {
      const r = await call<{ statements: { rows: Rows }[] }>('execute_sql', { sql });
      return 'error' in r ? r : { rows: r.statements[0]?.rows ?? [] };
    };
    const search = async (args: Record<string, unknown>) => {
      const r = await call<{ results: SearchTable[] }>('search_objects', { object_type: 'table', limit: 1000, ...args });
      if ('error' in r) throw new Error(`dbhub search_objects failed: ${r.error}`);
      return r.results;
    };
    const tools = sqlTools(
      run,
      () => {
        if (!dialect) throw new Error('dbhub: the engine is unknown: name it as --profile dbhub:ENGINE');
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
            columns: t.columns.map((c) => ({ name: c.name, type: portableType(c.type), precision: null, scale: null, nullable: c.nullable, default: null, auto_increment: false })),
            primary_key: t.indexes?.find((i) => i.primary)?.columns ?? [],
          };
        },
      },
    );
    return {
      tools,
      listed(list: readonly ToolInfo[]) {
        // "Execute SQL queries on the sqlite database"
        const named = /on the (\w+) database/i.exec(list.find((t) => t.name === 'execute_sql')?.description ?? '')?.[1]?.toLowerCase();
        dialect ??= named ? DIALECTS[named] : undefined;
      },
    };
  },
};
