/**
 * A scripted Faucet: a small MCP server (2025-era JSON-RPC over HTTP, JSON answers) that
 * answers faucet_list_tables, faucet_describe_table and faucet_query in the shapes Faucet's
 * MCP docs give, from a real SQLite file. The issue allows this fake (Faucet is a Go binary
 * not on npm); `wrong` makes it drop the first record of every answer, a fast wrong server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import type { Peer } from './peers.js';

const TOOLS = ['faucet_list_services', 'faucet_list_tables', 'faucet_describe_table', 'faucet_query', 'faucet_insert', 'faucet_update', 'faucet_delete'];
/** what the scripted server accepts as a filter: Faucet's SQL-like comparisons, nothing else */
const FILTER = /^[A-Za-z_]\w* (=|!=|<>|<=|>=|<|>) (-?\d+(\.\d+)?|'([^']|'')*')( AND [A-Za-z_]\w* (=|!=|<>|<=|>=|<|>) (-?\d+(\.\d+)?|'([^']|'')*'))*$/;

export async function startScriptedFaucet(file: string, options: { wrong?: boolean; service?: string } = {}): Promise<Peer> {
  const db = new Database(file, { readonly: true });
  const service = options.service ?? 'main';
  const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const tables = () => (db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`).all() as { name: string }[]).map((t) => t.name);
  const columns = (table: string) =>
    db.prepare('select name, type, "notnull", pk from pragma_table_info(?) order by cid').all(table) as { name: string; type: string; notnull: number; pk: number }[];

  const tools: Record<string, (args: Record<string, unknown>) => unknown> = {
    faucet_list_services: () => [{ name: service, label: service, driver: 'sqlite', is_active: true, read_only: true, raw_sql_allowed: false }],
    faucet_list_tables: () =>
      tables().map((name) => ({
        name,
        type: 'table',
        row_count: (db.prepare(`select count(*) as n from ${q(name)}`).get() as { n: number }).n,
        columns: columns(name).map((c) => ({ name: c.name, type: c.type.toLowerCase(), ...(c.pk ? { pk: true } : {}) })),
      })),
    faucet_describe_table: (args) => {
      const table = String(args.table);
      if (!tables().includes(table)) throw new Error(`table ${table} not found; available tables: ${tables().join(', ')}`);
      const cols = columns(table);
      return {
        name: table,
        columns: cols.map((c) => ({ name: c.name, type: c.type.toLowerCase(), nullable: c.notnull === 0, pk: c.pk > 0 })),
        primary_key: cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
        foreign_keys: (db.prepare('select "from", "table", "to" from pragma_foreign_key_list(?)').all(table) as { from: string; table: string; to: string }[]).map((f) => ({
          column: f.from,
          ref_table: f.table,
          ref_column: f.to,
        })),
        indexes: [],
      };
    },
    faucet_query: (args) => {
      const table = String(args.table);
      if (!tables().includes(table)) throw new Error(`table ${table} not found`);
      const names = new Set(columns(table).map((c) => c.name));
      const fields = (args.fields as string[] | undefined) ?? [];
      if (fields.some((f) => !names.has(f))) throw new Error(`invalid fields; available columns: ${[...names].join(', ')}`);
      const filter = args.filter as string | undefined;
      if (filter !== undefined && !FILTER.test(filter)) throw new Error(`invalid filter: ${filter}`);
      const order = args.order as string | undefined;
      if (order !== undefined && !/^[A-Za-z_]\w* (ASC|DESC)(, [A-Za-z_]\w* (ASC|DESC))*$/.test(order)) throw new Error(`invalid order: ${order}`);
      const limit = Math.min(Number(args.limit ?? 25), 1000);
      const select = fields.length ? fields.map(q).join(', ') : '*';
      let records = db.prepare(`select ${select} from ${q(table)}${filter ? ` where ${filter}` : ''}${order ? ` order by ${order}` : ''} limit ${limit}`).all() as Record<string, unknown>[];
      if (options.wrong) records = records.slice(1);
      return { records, count: records.length, limit, offset: 0 };
    },
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
      return answer(res, message.id, { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'faucet (scripted)', version: '0' } });
    }
    if (message.method === 'tools/list') {
      return answer(res, message.id, { tools: TOOLS.map((name) => ({ name, description: `${name} (scripted)`, inputSchema: { type: 'object', properties: { service: { type: 'string' } } } })) });
    }
    if (message.method === 'tools/call') {
      const name = String(message.params?.name);
      const args = (message.params?.arguments ?? {}) as Record<string, unknown>;
      try {
        if (!tools[name] || (name !== 'faucet_list_services' && args.service !== service)) throw new Error(`service ${String(args.service)} not found; available services: ${service}`);
        return answer(res, message.id, { content: [{ type: 'text', text: JSON.stringify(tools[name](args)) }] });
      } catch (error) {
        return answer(res, message.id, { isError: true, content: [{ type: 'text', text: (error as Error).message }] });
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no method ${message.method}` } }));
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
