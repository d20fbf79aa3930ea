#!/usr/bin/env node
// What tools/list and the instructions cost in tokens over one database and over two
// (`--url NAME=URL` twice), counted as the benchmark's token check counts them: o200k_base over
// each tool's name, description and input schema (hosts hand the model nothing else of a tool).
//
//   node bench/tools-tokens.mjs [-- more server options, e.g. --allow-writes --sql]
//
// It seeds two small SQLite files, starts the built bin (dist/bin.js) once per case with --echo
// (as `mcp-db-bench serve` does) and prints one line per case.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { client, LEGACY, seed, startServer } from './support.mjs';

const extra = process.argv.slice(2).filter((a) => a !== '--');
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-'));
const [a, b] = [join(dir, 'shop.db'), join(dir, 'crm.db')];
seed(a, 100);
seed(b, 100);
/** @type {[string, string, string[]][]} */
const cases = [
  ['one database', `sqlite:${a}`, []],
  ['two databases', `shop=sqlite:${a}`, ['--url', `crm=sqlite:${b}`]],
];
try {
  for (const [label, url, args] of cases) {
    const server = await startServer(url, { args: [...args, '--echo', ...extra] });
    try {
      const tools = (await client(server.endpoint, 'modern').request('tools/list', {})).result.tools;
      const shown = JSON.stringify(
        tools.map((/** @type {{ name: string, description: string, inputSchema: unknown }} */ t) => ({
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema,
        })),
      );
      const init = await client(server.endpoint, 'legacy').request('initialize', {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: 'bench', version: '0' },
      });
      const instructions = init.result.instructions ?? '';
      console.log(
        `${label}: ${tools.length} tools, tools/list ${countTokens(shown)} tokens (${Buffer.byteLength(shown)} bytes), instructions ${countTokens(instructions)} tokens`,
      );
    } finally {
      await server.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
