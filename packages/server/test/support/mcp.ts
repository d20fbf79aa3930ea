import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MODERN_REVISION } from '@mcp-db-bench/contract';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startServerProcess } from '../../src/transports/ready.js';

/** The built bin, exactly as `npx @mcp-db-bench/server` runs it. */
export const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

export type Era = 'modern' | 'legacy';
export type TransportKind = 'stdio' | 'http';
export { MODERN_REVISION };

export interface HttpServer {
  endpoint: string;
  process: ChildProcess;
  /** everything the server wrote to stderr so far */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * How a child ended ("code 1", "signal SIGABRT"), or undefined while it runs. A process killed by
 * a signal (V8 aborts on out-of-memory) keeps `exitCode` null, so checking that alone misses it.
 */
export function exitOf(child: ChildProcess): string | undefined {
  if (child.signalCode !== null) return `signal ${child.signalCode}`;
  if (child.exitCode !== null) return `code ${child.exitCode}`;
  return undefined;
}

/**
 * Starts the bin with --http on a free port and waits for its ready line (the server's
 * `startServerProcess`). One process unless the test asks for workers: what a suite checks (pool
 * limits, sessions, memory) is then one process's, and a test run does not fork a worker per core
 * for every server.
 */
export async function startHttpServer(
  dbUrl: string,
  extraArgs: string[] = [],
  env?: Record<string, string>,
): Promise<HttpServer> {
  const workers = extraArgs.some((a) => a.startsWith('--workers')) ? [] : ['--workers', '1'];
  const server = await startServerProcess(['--url', dbUrl, '--http', '--port', '0', ...workers, ...extraArgs], {
    bin: BIN,
    env: { ...process.env, ...env },
  });
  return { endpoint: server.endpoint, process: server.child, stderr: server.stderr, stop: server.stop };
}

/** The `_meta` envelope every 2026-07-28 request carries, as the SDK client sends it. */
export function modernEnvelope(client = 'mcp-db-bench-tests'): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
    'io.modelcontextprotocol/clientInfo': { name: client, version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/**
 * A stateless 2026-07-28 request as a client sends it raw: the body with its `_meta` envelope, and
 * the headers the revision asks for (MCP-Protocol-Version, Mcp-Method, Mcp-Name for a tool call).
 */
export function modernRequest(
  method: string,
  id: number | string = 1,
  params: Record<string, unknown> = {},
): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': MODERN_REVISION,
    'mcp-method': method,
  };
  if (method === 'tools/call' && typeof params.name === 'string') headers['mcp-name'] = params.name;
  return {
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernEnvelope() } }),
  };
}

/** A 2025-03-26 JSON-RPC batch of tool calls as a client sends it raw (the SDK clients never send batches). */
export function batchRequest(calls: readonly { name: string; arguments: Record<string, unknown> }[]): {
  headers: Record<string, string>;
  body: string;
} {
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-03-26',
    },
    body: JSON.stringify(calls.map((params, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params }))),
  };
}

/** A real SDK client over a real transport, pinned to one protocol era. */
export async function connectClient(
  kind: TransportKind,
  era: Era,
  target: { dbUrl: string; endpoint?: string /** more options for a stdio server */; args?: string[] },
): Promise<Client> {
  const client = new Client(
    { name: 'mcp-db-bench-tests', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {},
  );
  const transport =
    kind === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: [BIN, '--url', target.dbUrl, ...(target.args ?? [])],
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(new URL(target.endpoint!));
  await client.connect(transport);
  return client;
}

export interface CallOutcome {
  isError: boolean;
  data: Record<string, unknown>;
}

/**
 * Calls a tool and returns its JSON, after checking that the text block and
 * structuredContent say the same thing (clients differ in which one they read).
 */
export async function callJson(client: Client, name: string, args: Record<string, unknown>): Promise<CallOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  const text = content.find((c) => c.type === 'text')?.text;
  if (text === undefined) throw new Error(`${name}: no text content`);
  const data = JSON.parse(text) as Record<string, unknown>;
  if (!result.isError && JSON.stringify(result.structuredContent) !== text) {
    throw new Error(`${name}: structuredContent and text differ`);
  }
  return { isError: result.isError === true, data };
}
