import { spawn } from 'node:child_process';
import type { AgentLoop } from '@mcp-db-bench/loadgen';
import { Client } from 'undici';
import { pinnedCommand } from './cpus.js';
import { trackChild } from './interrupt.js';

/**
 * The floor under every MCP measurement: a bare node:http server answering a JSON-RPC-shaped
 * POST with a constant, driven by the same engine and HTTP stack as the MCP calls. If MCP echo
 * comes close to this, the load generator, not the server, is the limit.
 */
const SERVER = `
const http = require('node:http');
const answer = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ping' }] } }));
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer));
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => process.stderr.write('listening on ' + server.address().port + '\\n'));
`;

const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { message: 'ping' } },
});

export interface HttpFloor {
  /** its process */
  pid: number;
  /** one agent: raw echo POSTs on its own connection, no MCP */
  agent(): Promise<AgentLoop>;
  stop(): void;
}

/** The echo server in its own process (on `cpus` when given), for the runner to drive like a target, again and again. */
export async function startHttpFloor(cpus?: string): Promise<HttpFloor> {
  const [command, args] = pinnedCommand(process.execPath, ['-e', SERVER], cpus);
  const child = trackChild(spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] }));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c;
        const m = /listening on (\d+)/.exec(err);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => reject(new Error(`the node:http echo server exited: ${err}`)));
    });
    return { pid: child.pid!, agent: async () => bareAgent(port), stop: () => child.kill('SIGTERM') };
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
}

function bareAgent(port: number): AgentLoop {
  const client = new Client(`http://127.0.0.1:${port}`, { keepAliveTimeout: 60_000 });
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  return {
    async next() {
      const res = await client.request({ path: '/', method: 'POST', headers, body: BODY });
      await res.body.text();
      return { op: 'http-echo', ok: true };
    },
    close: () => client.close(),
  };
}
