/**
 * Any server with one raw-SQL tool (the reference PostgreSQL server's `query`, for one):
 * `--profile sql-tool:postgres --sql-tool query --sql-arg sql`. Discovery runs the engine's
 * catalog queries through it; the answer is rows as JSON (an array, or `{ rows }`).
 */
import type { McpClient } from '../clients/client.js';
import { DIALECTS } from './dialects/index.js';
import type { PeerOptions, PeerProfile, Translation } from './profile.js';
import { type Rows, type RunSql, sqlTools } from './sql.js';

export const sqlToolProfile: PeerProfile = {
  name: 'sql-tool',
  summary:
    'any server with one raw-SQL tool (--sql-tool NAME --sql-arg ARG), SQL written per engine (--profile sql-tool:ENGINE)',
  cannot: {
    insert: 'sql-tool: writes are not mapped (servers of one SQL tool are usually read-only)',
    update: 'sql-tool: writes are not mapped',
    delete: 'sql-tool: writes are not mapped',
    transact: 'sql-tool: no atomic transfer',
    sql: 'sql-tool: not our sql tool',
    echo: 'sql-tool: no echo tool',
  },
  takes: ['engine', 'sqlTool', 'sqlArg'],
  check: (options) =>
    !options.engine || !DIALECTS[options.engine]
      ? `sql-tool needs the engine: --profile sql-tool:ENGINE, one of ${Object.keys(DIALECTS).join(', ')}`
      : undefined,
  translate(peer: McpClient, options: PeerOptions): Translation {
    const dialect = DIALECTS[options.engine!]!;
    const tool = options.sqlTool ?? 'query';
    const arg = options.sqlArg ?? 'sql';
    const run: RunSql = async (sql) => {
      const result = await peer.callTool(tool, { [arg]: sql });
      if (result.isError)
        return { error: typeof result.data === 'string' ? result.data : JSON.stringify(result.data).slice(0, 300) };
      const data = result.data as Rows | { rows?: Rows };
      const rows = Array.isArray(data) ? data : data?.rows;
      return Array.isArray(rows)
        ? { rows }
        : { error: `${tool} answered no rows: ${JSON.stringify(result.data).slice(0, 200)}` };
    };
    return sqlTools(run, () => dialect);
  },
};
