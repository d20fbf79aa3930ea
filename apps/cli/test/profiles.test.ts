/**
 * Peer servers driven through their own tools: our server and DBHub (from npm) side by side on
 * the same database, their answers compared and their token cost counted; a profile that
 * cannot do an intent skips it with its reason; a server that answers wrong rows is caught.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Random, type ResultFile, resultFile } from '@mcp-db-bench/contract';
import {
  checkTargets,
  createClient,
  type McpClient,
  PEERS,
  PeerClient,
  type PeerProfile,
  SimAgent,
  WORKLOADS,
} from '@mcp-db-bench/loadgen';
import { freshDatabase } from '@mcp-db-bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { type Peer, startDbhub, startOurs } from './support/peers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-profiles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runCli(args, { cwd: dir, timeoutMs: 240_000 });

interface Setup {
  name: string;
  /** our URL for the database, and DBHub's DSN for the same one */
  db: () => Promise<{ ours: string; dsn: string }>;
}

const setups: Setup[] = [
  {
    name: 'SQLite',
    db: async () => ({ ours: `sqlite:${join(dir, 'shop.db')}`, dsn: `sqlite://${join(dir, 'shop.db')}` }),
  },
  ...(process.env.PG_URL
    ? [
        {
          name: 'PostgreSQL',
          db: async () => {
            const url = await freshDatabase({ engine: 'postgres', baseUrl: process.env.PG_URL! }, 'bench_profiles');
            return { ours: url, dsn: `${url}${url.includes('?') ? '&' : '?'}sslmode=disable` };
          },
        },
      ]
    : []),
  ...(process.env.MYSQL_URL
    ? [
        {
          name: 'MariaDB',
          db: async () => {
            const url = await freshDatabase({ engine: 'mariadb', baseUrl: process.env.MYSQL_URL! }, 'bench_profiles');
            // DBHub names the engine by the scheme; our URL's mysql:// works for both servers
            return { ours: url, dsn: url };
          },
        },
      ]
    : []),
];

describe.each(setups)('our server and DBHub side by side on $name', ({ db }) => {
  let ours: Peer;
  let dbhub: Peer;
  let result: ResultFile;
  let stderr: string;

  beforeAll(async () => {
    const urls = await db();
    const seeded = await run(['seed', '--db', urls.ours, '--scale', '0.002']);
    expect(seeded.code, seeded.stderr).toBe(0);
    [ours, dbhub] = await Promise.all([startOurs(urls.ours), startDbhub(urls.dsn)]);
    const out = join(dir, `side-by-side-${Date.now()}.json`);
    const r = await run([
      'run',
      ...['--target', ours.url, '--profile', 'ours', '--target', dbhub.url, '--profile', 'dbhub'],
      ...[
        '--workloads',
        'session-init,point-read,filtered,analytical,write',
        '--agents',
        '1,2',
        '--duration',
        '300ms',
        '--warmup',
        '100ms',
        // one pass: this suite checks what each profile serves, not the paired ratios
        '--iterations',
        '1',
      ],
      ...['--check-calls', '15', '--format', 'json', '--out', out],
    ]);
    stderr = r.stderr;
    expect(r.code, r.stderr).toBe(0);
    result = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
  }, 240_000);

  afterAll(async () => {
    await ours?.stop();
    await dbhub?.stop();
  });

  it('measures both servers on every read workload, without errors', () => {
    expect(result.config.targets.map((t) => [t.label, t.profile])).toEqual([
      ['ours 2025 session', 'ours'],
      ['dbhub 2025 session', 'dbhub'],
    ]);
    for (const target of ['ours 2025 session', 'dbhub 2025 session']) {
      for (const workload of ['session-init', 'point-read', 'filtered', 'analytical']) {
        const steps = result.steps.filter((s) => s.target === target && s.workload === workload);
        expect(
          steps.map((s) => s.agents),
          `${target} ${workload}`,
        ).toEqual([1, 2]);
        for (const s of steps) {
          expect(s.errors, `${target} ${workload}`).toEqual({});
          expect(s.calls).toBeGreaterThan(0);
        }
      }
    }
  });

  it('skips what a profile cannot do, with its reason, never as errors', () => {
    expect(result.skipped).toContainEqual({
      target: 'dbhub 2025 session',
      workload: 'write',
      reason: expect.stringMatching(/^dbhub: writes are not mapped/),
    });
    // our server is read-only here: it lists no write tools
    expect(result.skipped).toContainEqual({
      target: 'ours 2025 session',
      workload: 'write',
      reason: expect.stringMatching(/^it has no insert, update, delete tools$/),
    });
    expect(result.steps.some((s) => s.workload === 'write')).toBe(false);
    expect(stderr).toMatch(/dbhub: writes are not mapped/);
  });

  it('replays the same calls on both and finds their answers agree', () => {
    expect(result.agreement?.map((a) => [a.workload, a.reference, a.target, a.calls, a.mismatches])).toEqual([
      ['point-read', 'ours 2025 session', 'dbhub 2025 session', 15, 0],
      ['filtered', 'ours 2025 session', 'dbhub 2025 session', 15, 0],
      ['analytical', 'ours 2025 session', 'dbhub 2025 session', 15, 0],
    ]);
  });

  it('counts token cost per server: DBHub’s two tools list smaller than ours', () => {
    const [o, d] = ['ours 2025 session', 'dbhub 2025 session'].map((t) => result.tokens?.find((x) => x.target === t));
    if (!o || !d) throw new Error(`no token cost for both servers: ${JSON.stringify(result.tokens)}`);
    expect(o.tokenizer).toMatch(/o200k_base/);
    expect(d.toolsList.bytes).toBeLessThan(o.toolsList.bytes);
    // As hosts pass tools/list to the model: our five read tools (592 tokens: lean schemas, the filter grammar in the
    // instructions) stay within 600, plus the echo tool `serve` registers for benchmarks (30).
    expect(o.toolsList.tokens).toBeLessThanOrEqual(630);
    for (const t of [o, d]) {
      expect(t.toolsList.tokens).toBeGreaterThan(0);
      expect(t.toolsList.tokens).toBeLessThan(t.toolsList.bytes);
      expect(t.sessionStart.bytes).toBeGreaterThan(t.toolsList.bytes);
      expect(t.calls.map((c) => c.workload)).toEqual(['point-read', 'filtered', 'analytical']);
      for (const c of t.calls) expect(c.tokens.max).toBeGreaterThanOrEqual(c.tokens.p50);
    }
  });

  it('renders the agreement and token sections in the report', async () => {
    const file = join(dir, 'rendered.json');
    await import('node:fs').then((fs) => fs.writeFileSync(file, JSON.stringify(result)));
    const md = await run(['report', file, '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/\| point-read \| ours 2025 session \| dbhub 2025 session \| 15 \| 0 \| agree \|/);
    expect(md.stdout).toMatch(/### Token cost: what each server sends/);
    expect(md.stdout).toMatch(
      /### Servers compared \(as found indexes\): calls\/s, p50 ms, calls\/s against ours 2025 session\n/,
    );
    expect(md.stdout).toMatch(/skipped on dbhub 2025 session: write \(dbhub: writes are not mapped/);
  });

  it('fails the agreement check when a server answers wrong rows', async () => {
    // DBHub's answers, with every point read's row replaced by the next key's: fast, and wrong
    const dbhubProfile = PEERS.dbhub!;
    const liar: PeerProfile = {
      ...dbhubProfile,
      name: 'liar',
      translate(peer, options) {
        const t = dbhubProfile.translate!(peer, options);
        const get = t.tools.get!;
        return { ...t, tools: { ...t.tools, get: (args) => get({ ...args, key: Number(args.key) + 1 }) } };
      },
    };
    const client = (url: string, profile: PeerProfile) => () =>
      new PeerClient(profile, createClient({ kind: 'http', url }, { client: 'lean', protocol: 'legacy' }));
    const checked = await checkTargets(
      [
        { label: 'ours', client: client(ours.url, PEERS.ours!) },
        { label: 'liar', client: client(dbhub.url, liar) },
      ],
      [WORKLOADS['point-read']!, WORKLOADS.filtered!],
      42,
      10,
      () => true,
    );
    const [pointRead, filtered] = checked.agreement;
    expect(pointRead).toMatchObject({ workload: 'point-read', calls: 10, mismatches: expect.any(Number) });
    expect(pointRead!.mismatches).toBeGreaterThan(0);
    expect(pointRead!.differences[0]).toMatch(/^get \{.*\}: ours 1 row \[\d+\], liar (1 row|0 rows) \[/);
    // the calls it did not tamper with still agree
    expect(filtered).toMatchObject({ workload: 'filtered', mismatches: 0 });
  });

  /** DBHub's lean client, every call it is sent counted by tool. */
  const countedDbhub = (calls: string[]) => {
    const peer = createClient({ kind: 'http', url: dbhub.url }, { client: 'lean', protocol: 'legacy' });
    const counted: McpClient = {
      open: () => peer.open(),
      listTools: () => peer.listTools(),
      abandon: () => peer.abandon(),
      reinitialized: 0,
      close: () => peer.close(),
      callTool: (name, args) => {
        calls.push(name);
        return peer.callTool(name, args);
      },
    };
    return new PeerClient(PEERS.dbhub!, counted);
  };

  it('starts an agent session on DBHub with what an agent would spend: one listing, one search per table described', async () => {
    const calls: string[] = [];
    const client = countedDbhub(calls);
    try {
      const agent = new SimAgent(client, new Random(1));
      await agent.init(['customers', 'orders', 'order_items']);
      // list_tables, a full search per described table, the foreign keys once: as our server's 1 + 3 calls, plus the catalog query
      expect([...calls].sort()).toEqual([
        'execute_sql',
        'search_objects',
        'search_objects',
        'search_objects',
        'search_objects',
      ]);
      expect(agent.tables.get('orders')?.foreignKeys.map((f) => f.table)).toContain('customers');
      // a new session discovers again, as a new agent would
      calls.length = 0;
      await agent.init(['orders']);
      expect([...calls].sort()).toEqual(['execute_sql', 'search_objects', 'search_objects']);
    } finally {
      await client.close();
    }
  });

  it('counts DBHub’s answers as it sent them: its indented JSON text, not our re-serialisation', async () => {
    const client = countedDbhub([]);
    const seen: string[] = [];
    client.tap((kind, text) => kind === 'call' && seen.push(text));
    try {
      await new SimAgent(client, new Random(1)).init(['customers']);
      seen.length = 0;
      await client.callTool('get', { table: 'customers', key: 1 });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(/^\{\n {2}"success": true,\n/);
      expect(JSON.parse(seen[0]!).data.statements[0].rows).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe('the sql-tool profile: a server with one raw-SQL tool', () => {
  let ours: Peer;
  let withSql: Peer;
  afterAll(async () => {
    await ours?.stop();
    await withSql?.stop();
  });

  it('drives our own server through its sql tool alone, and its answers agree with our tools’', async () => {
    const db = `sqlite:${join(dir, 'sql-tool.db')}`;
    const seeded = await run(['seed', '--db', db, '--scale', '0.002']);
    expect(seeded.code, seeded.stderr).toBe(0);
    [ours, withSql] = await Promise.all([startOurs(db), startOurs(db, { sql: true })]);
    const out = join(dir, 'sql-tool.json');
    const r = await run([
      'run',
      ...[
        '--target',
        ours.url,
        '--target',
        withSql.url,
        '--profile',
        'sql-tool:sqlite',
        '--sql-tool',
        'sql',
        '--sql-arg',
        'sql',
      ],
      ...[
        '--workloads',
        'point-read,filtered,analytical,transfer',
        '--agents',
        '1',
        '--duration',
        '200ms',
        '--warmup',
        '100ms',
        '--iterations',
        '1',
        '--check-calls',
        '10',
        '--out',
        out,
      ],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    // a --target without --profile is our own server, named as before profiles
    expect(result.config.targets.map((t) => [t.label, t.profile])).toEqual([
      ['target 2025 session', 'ours'],
      ['sql-tool 2025 session', 'sql-tool'],
    ]);
    for (const s of result.steps) expect(s.errors, `${s.target} ${s.workload}`).toEqual({});
    expect(result.steps.filter((s) => s.target === 'sql-tool 2025 session').map((s) => s.workload)).toEqual([
      'point-read',
      'filtered',
      'analytical',
    ]);
    expect(result.skipped).toContainEqual({
      target: 'sql-tool 2025 session',
      workload: 'transfer',
      reason: 'sql-tool: no atomic transfer',
    });
    expect(result.agreement?.map((a) => [a.workload, a.mismatches])).toEqual([
      ['point-read', 0],
      ['filtered', 0],
      ['analytical', 0],
    ]);
  }, 240_000);
});

describe('profile usage errors', () => {
  const failure = async (args: string[]) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    return r.stderr.trim();
  };

  it('a --profile before any target, two for one target, an unknown one, sql-tool without its engine', async () => {
    expect(await failure(['run', '--profile', 'dbhub', '--target', 'http://127.0.0.1:1/mcp'])).toMatch(
      /--profile dbhub comes after the --target or --target-cmd it applies to/,
    );
    expect(
      await failure(['run', '--target', 'http://127.0.0.1:1/mcp', '--profile', 'dbhub', '--profile', 'ours']),
    ).toMatch(/two profiles \(dbhub, ours\) for one target/);
    expect(await failure(['run', '--target', 'http://127.0.0.1:1/mcp', '--profile', 'nope'])).toMatch(
      /unknown profile nope; profiles: ours, dbhub, faucet, sql-tool/,
    );
    expect(await failure(['run', '--target', 'http://127.0.0.1:1/mcp', '--profile', 'sql-tool'])).toMatch(
      /sql-tool needs the engine: --profile sql-tool:ENGINE/,
    );
  });

  it('an engine for a profile that reads none, an empty one, and a profile flag no target’s profile reads', async () => {
    const target = ['--target', 'http://127.0.0.1:1/mcp'];
    expect(await failure(['run', ...target, '--profile', 'ours:postgres'])).toMatch(
      /^.*--profile ours:postgres: ours takes no engine \(only dbhub, sql-tool do\)/m,
    );
    expect(await failure(['run', ...target, '--profile', 'faucet:sqlite'])).toMatch(
      /--profile faucet:sqlite: faucet takes no engine/,
    );
    expect(await failure(['run', ...target, '--profile', 'dbhub:'])).toMatch(
      /--profile dbhub:: name the engine after the colon/,
    );
    expect(await failure(['run', ...target, '--profile', 'dbhub', '--sql-tool', 'query'])).toMatch(
      /--sql-tool is for the sql-tool profile, and no --target uses it/,
    );
    expect(await failure(['run', ...target, '--sql-arg', 'text'])).toMatch(
      /--sql-arg is for the sql-tool profile, and no --target uses it/,
    );
    expect(await failure(['run', ...target, '--profile', 'ours', '--service', 'main'])).toMatch(
      /--service is for the faucet profile, and no --target uses it/,
    );
  });
});
