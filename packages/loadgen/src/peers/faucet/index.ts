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
import { ToolError, type ToolName } from '@mcp-db-bench/contract';
import type { McpClient, ToolInfo } from '../../clients/client.js';
import { type Handler, ok, type PeerOptions, type PeerProfile, type Translation, toolError } from '../profile.js';
import { FaucetPeer, Refusal } from './peer.js';
import { aggregate, describeTable, get, listTables, query } from './read.js';
import { type Row, WRITE_TOOLS } from './shapes.js';
import { insert, remove, update } from './write.js';

export { addDecimal } from './decimal.js';
export { faucetFilter, faucetLiteral } from './filter.js';

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

const takes = (tool: ToolInfo | undefined, arg: string) =>
  (tool?.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties?.[arg] !== undefined;

/** The handlers this Faucet can serve, judged from its tools/list. */
function offered(
  all: Partial<Record<ToolName, Handler>>,
  tools: readonly ToolInfo[],
): Partial<Record<ToolName, Handler>> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const missing = new Set<string>(WRITE_TOOLS.filter(([, theirs]) => !byName.has(theirs)).map(([ours]) => ours));
  // aggregate fields came with `group` (internal/query/aggregate.go): an older faucet_query has neither
  if (!takes(byName.get('faucet_query'), 'group')) missing.add('aggregate');
  return Object.fromEntries(Object.entries(all).filter(([name]) => !missing.has(name)));
}

export const faucet: PeerProfile = {
  name: 'faucet',
  summary:
    'Faucet: faucet_list_tables, faucet_describe_table, faucet_query (aggregates with group), faucet_insert/update/delete on one --service',
  cannot: {
    aggregate:
      "faucet: no aggregate tool: this Faucet's faucet_query takes no group (aggregate fields and group came in a later Faucet)",
    insert: 'faucet: this Faucet lists no faucet_insert',
    update: 'faucet: this Faucet lists no faucet_update',
    delete: 'faucet: this Faucet lists no faucet_delete',
    transact: 'faucet: no atomic transfer (no transaction across calls)',
    sql: 'faucet: not our sql tool',
    echo: 'faucet: no echo tool',
  },
  takes: ['service'],
  translate(peer: McpClient, options: PeerOptions): Translation {
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
