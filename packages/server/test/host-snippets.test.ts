import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReady } from '../src/transports/ready.js';

/**
 * Every agent-host snippet of the README and docs/hosts.md, run as written: the clone's path,
 * the database and the port replaced, nothing else. A stdio entry is spawned as the host would
 * (its command, args and env), an HTTP entry is reached with its headers, and the SDK client
 * lists the tools through each. The npx forms cannot run before the packages are published;
 * the test checks they all sit under the "Once the packages are published" heading.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = ['README.md', 'docs/hosts.md'];
const PUBLISHED_HEADING = 'Once the packages are published';
const READ_TOOLS = ['aggregate', 'describe_table', 'get', 'list_tables', 'query'];
const PG_PLACEHOLDER = 'postgres://user:pass@127.0.0.1:5432/db';

type Snippet =
  | { kind: 'stdio'; where: string; published: boolean; command: string; args: string[]; env: Record<string, string> }
  | { kind: 'http'; where: string; published: boolean; url: string; headers: Record<string, string> }
  | { kind: 'serve'; where: string; published: boolean; script: string };

interface Block {
  lang: string;
  text: string;
  where: string;
  published: boolean;
}

function blocks(file: string): Block[] {
  const out: Block[] = [];
  let heading = '';
  let open: { lang: string; line: number; lines: string[] } | undefined;
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (open) {
        if (line.startsWith('```')) {
          out.push({
            lang: open.lang,
            text: open.lines.join('\n'),
            where: `${file}:${open.line}`,
            published: heading === PUBLISHED_HEADING,
          });
          open = undefined;
        } else open.lines.push(line);
      } else if (line.startsWith('```')) open = { lang: line.slice(3).trim(), line: i + 1, lines: [] };
      else if (line.startsWith('#')) heading = line.replace(/^#+\s*/, '');
    });
  return out;
}

/** Shell words: double and single quotes, a `#` comment; enough for the docs' lines. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(#.*)|(\S+)/g)) {
    if (m[3] !== undefined) break;
    out.push(m[1] ?? m[2] ?? m[4]!);
  }
  return out;
}

/** `claude mcp add [--transport http] NAME URL [--header H]` or `claude mcp add NAME [-e K=V] -- CMD ARGS`. */
function claudeAdd(line: string, where: string, published: boolean): Snippet {
  const w = words(line).slice(3);
  const dashes = w.indexOf('--');
  const head = dashes < 0 ? w : w.slice(0, dashes);
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const positional: string[] = [];
  let transport = 'stdio';
  for (let i = 0; i < head.length; i++) {
    const word = head[i]!;
    if (word === '-e' || word === '--env') {
      const [k, ...v] = head[++i]!.split('=');
      env[k!] = v.join('=');
    } else if (word === '--header' || word === '-H') {
      const [k, ...v] = head[++i]!.split(':');
      headers[k!.trim()] = v.join(':').trim();
    } else if (word === '--transport' || word === '-t') transport = head[++i]!;
    else if (word === '--scope' || word === '-s') i++;
    else positional.push(word);
  }
  if (transport === 'http') return { kind: 'http', where, published, url: positional[1]!, headers };
  const [command, ...args] = w.slice(dashes + 1);
  return { kind: 'stdio', where, published, command: command!, args, env };
}

function snippets(): Snippet[] {
  const out: Snippet[] = [];
  for (const file of DOCS) {
    for (const { lang, text, where, published } of blocks(file)) {
      if (lang === 'json') {
        const config = JSON.parse(text) as {
          mcpServers?: Record<string, Record<string, unknown>>;
          servers?: Record<string, Record<string, unknown>>;
        };
        for (const entry of Object.values(config.mcpServers ?? config.servers ?? {})) {
          if (typeof entry.command === 'string')
            out.push({
              kind: 'stdio',
              where,
              published,
              command: entry.command,
              args: (entry.args as string[] | undefined) ?? [],
              env: (entry.env as Record<string, string> | undefined) ?? {},
            });
          else
            out.push({
              kind: 'http',
              where,
              published,
              url: entry.url as string,
              headers: (entry.headers as Record<string, string> | undefined) ?? {},
            });
        }
      } else if (lang === 'sh') {
        const lines = text.split('\n');
        for (const line of lines) {
          if (line.startsWith('claude mcp add ')) out.push(claudeAdd(line, where, published));
        }
        // a server started in a shell for hosts to reach: the block as a script
        if (lines.some((l) => /^(node|npx) .*(mcp-db-server|dist\/bin\.js) .*--http/.test(l) && !l.includes('--url')))
          out.push({ kind: 'serve', where, published, script: text });
      }
    }
  }
  return out;
}

const all = snippets();
const runnable = all.filter((s) => !s.published);

describe('the host snippets in the docs', () => {
  it('run from a clone, except the npx forms, which all sit under the published heading', () => {
    const npx = all.filter((s) => JSON.stringify(s).includes('npx'));
    expect(npx.length).toBeGreaterThan(0);
    expect(npx.filter((s) => !s.published).map((s) => s.where)).toEqual([]);
    // Claude Desktop (2), Claude Code, Cursor, VS Code over stdio; 3 plain and 3 bearer HTTP entries; the bearer server
    expect(runnable.filter((s) => s.kind === 'stdio').length).toBeGreaterThanOrEqual(6);
    expect(runnable.filter((s) => s.kind === 'http').length).toBeGreaterThanOrEqual(6);
    expect(runnable.filter((s) => s.kind === 'serve')).toHaveLength(1);
  });
});

describe('each host snippet, run as written, lists the tools', () => {
  const postgres = liveTargets().find((t) => t.engine === 'postgres');
  let dir = '';
  let dbFile = '';
  let pgUrl: string | undefined;
  let plainPort = 0;
  let tokenPort = 0;
  let plain: ChildProcess | undefined;
  let bearer: ChildProcess | undefined;
  let token = '';

  /** The snippet's text with this clone, the test's database and ports in place of the placeholders. */
  const local = (text: string, port = plainPort): string =>
    text
      .replaceAll('/path/to/mcp-db-bench/', ROOT)
      .replaceAll('/path/to/example.db', dbFile)
      .replaceAll(`\${workspaceFolder}`, dir)
      .replaceAll(PG_PLACEHOLDER, pgUrl ?? PG_PLACEHOLDER)
      .replaceAll(`\${input:mcp-db-token}`, token)
      .replaceAll('127.0.0.1:7400', `127.0.0.1:${port}`)
      .replaceAll('--port 7400', `--port ${port}`);

  const waitReady = (child: ChildProcess): Promise<string> =>
    new Promise((resolve, reject) => {
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk;
        const endpoint = parseReady(stderr);
        if (endpoint) resolve(endpoint);
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'host-snippets-'));
    dbFile = join(dir, 'example.db');
    execFileSync(process.execPath, [join(ROOT, 'packages/server/examples/create-shop-db.mjs'), dbFile]);
    if (postgres) pgUrl = await freshDatabase(postgres, 'bench_host_snippets');
    plainPort = await freePort();
    tokenPort = await freePort();
    // the running --http server the plain HTTP entries point at, started as the docs say
    plain = spawn(
      'node',
      [join(ROOT, 'packages/server/dist/bin.js'), '--url', `sqlite:${dbFile}`, '--http', '--port', String(plainPort)],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const serve = runnable.find((s) => s.kind === 'serve')!;
    token = /MCP_DB_TOKEN=(\S+)/.exec(serve.script)![1]!;
    // the bearer block as a script, in a process group of its own so the server ends with it
    bearer = spawn('bash', ['-c', local(serve.script, tokenPort)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    await Promise.all([waitReady(plain), waitReady(bearer)]);
  }, 60_000);

  afterAll(() => {
    plain?.kill();
    if (bearer?.pid) process.kill(-bearer.pid, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  const listTools = async (transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<string[]> => {
    const client = new Client({ name: 'host-snippet', version: '0.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      return tools.map((t) => t.name).sort();
    } finally {
      await client.close().catch(() => {});
    }
  };

  for (const snippet of runnable) {
    if (snippet.kind === 'stdio') {
      const needsPg = JSON.stringify(snippet).includes(PG_PLACEHOLDER);
      it.skipIf(needsPg && !postgres)(`${snippet.where}: ${snippet.command} ${snippet.args.join(' ')}`, async () => {
        const env = Object.fromEntries(Object.entries(snippet.env).map(([k, v]) => [k, local(v)]));
        const transport = new StdioClientTransport({
          command: snippet.command,
          args: snippet.args.map((a) => local(a)),
          env: { ...getDefaultEnvironment(), ...env },
          stderr: 'pipe',
        });
        expect(await listTools(transport)).toEqual(READ_TOOLS);
      });
    } else if (snippet.kind === 'http') {
      const bearerEntry = Object.keys(snippet.headers).length > 0;
      it(`${snippet.where}: ${snippet.url}${bearerEntry ? ' with its Authorization header' : ''}`, async () => {
        const port = bearerEntry ? tokenPort : plainPort;
        const headers = Object.fromEntries(Object.entries(snippet.headers).map(([k, v]) => [k, local(v)]));
        const url = new URL(local(snippet.url, port));
        expect(await listTools(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))).toEqual(
          READ_TOOLS,
        );
        // the header is what lets it in: the bearer server refuses the same client without it
        if (bearerEntry) await expect(listTools(new StreamableHTTPClientTransport(url))).rejects.toThrow();
      });
    }
  }
});
