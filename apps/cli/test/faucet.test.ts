/**
 * The faucet profile against a scripted Faucet that answers in Faucet's real shapes (its
 * source's, see support/faucet-server.ts): every read workload and the write workload run with
 * no errors, their answers agree with our server's and the writes verify; a Faucet from before
 * faucet_query's `group` skips the aggregates with the reason; one that answers wrong rows fails
 * the agreement check; hostile values reach Faucet's filter parser as the values they are. A
 * live Faucet is driven wherever FAUCET_URL points at one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultFile } from '@mcp-db-bench/contract';
import { createClient, type McpClient, PEERS, PeerClient, type WriteVerification } from '@mcp-db-bench/loadgen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { type ScriptedFaucetOptions, startScriptedFaucet } from './support/faucet-server.js';
import { type Peer, startOurs } from './support/peers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-faucet-'));
const db = join(dir, 'faucet.db');
const peers: Peer[] = [];
const run = (args: string[]) => runCli(args, { cwd: dir, timeoutMs: 240_000 });
const faucetAt = async (options: ScriptedFaucetOptions) => {
  const peer = await startScriptedFaucet(db, options);
  peers.push(peer);
  return peer;
};

beforeAll(async () => {
  const seeded = await run(['seed', '--db', `sqlite:${db}`, '--scale', '0.002']);
  expect(seeded.code, seeded.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  for (const peer of peers) await peer.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Step = {
  target: string;
  workload: string;
  agents: number;
  calls: number;
  errors: Record<string, number>;
  operations: Record<string, unknown>;
  verification?: WriteVerification;
};

describe('another server without its profile', () => {
  it('says the server is not ours and names --profile, instead of counting failed calls', async () => {
    const faucet = await faucetAt({ group: true });
    const r = await run([
      'run',
      '--target',
      faucet.url,
      '--workloads',
      'point-read',
      '--agents',
      '1',
      '--duration',
      '300ms',
      '--warmup',
      '100ms',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the server has no list_tables tool \(it lists faucet_/);
    expect(r.stderr).toMatch(/--profile dbhub, faucet or sql-tool/);
  }, 120_000);
});

describe('the faucet profile through `run`', () => {
  it('runs the read workloads and the write workload on a current Faucet: no errors, answers agree, every write verified', async () => {
    const ours = await startOurs(`sqlite:${db}`);
    peers.push(ours);
    const faucet = await faucetAt({ group: true });
    const out = join(dir, 'current.json');
    const r = await run([
      'run',
      ...[
        '--target',
        ours.url,
        '--profile',
        'ours',
        '--target',
        faucet.url,
        '--profile',
        'faucet',
        '--service',
        'main',
      ],
      ...[
        '--workloads',
        'session-init,point-read,filtered,analytical,write',
        '--agents',
        '1,2',
        '--duration',
        '500ms',
        '--warmup',
        '100ms',
        // one pass: this suite checks what the profile serves, not the paired ratios
        '--iterations',
        '1',
      ],
      ...['--check-calls', '15', '--format', 'json', '--out', out],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const raw = JSON.parse(readFileSync(out, 'utf8'));
    const result = resultFile.parse(raw);
    const steps = (raw.steps as Step[]).filter((s) => s.target === 'faucet 2025 session');
    expect(steps.map((s) => `${s.workload} × ${s.agents}`)).toEqual([
      ...['session-init × 1', 'session-init × 2', 'point-read × 1', 'point-read × 2', 'filtered × 1', 'filtered × 2'],
      ...['analytical × 1', 'analytical × 2', 'write × 1', 'write × 2'],
    ]);
    for (const s of steps) {
      expect(s.errors, `${s.workload} × ${s.agents}`).toEqual({});
      expect(s.calls, `${s.workload} × ${s.agents}`).toBeGreaterThan(0);
    }
    // our read-only server has no write tools; the faucet target skips nothing
    expect(result.skipped).toEqual([
      { target: 'ours 2025 session', workload: 'write', reason: 'it has no insert, update, delete tools' },
    ]);
    expect(result.agreement?.map((a) => [a.workload, a.target, a.calls, a.mismatches])).toEqual([
      ['point-read', 'faucet 2025 session', 15, 0],
      ['filtered', 'faucet 2025 session', 15, 0],
      ['analytical', 'faucet 2025 session', 15, 0],
    ]);
    const writes = steps.filter((s) => s.workload === 'write');
    for (const s of writes) {
      const v = s.verification!;
      expect(v, `write × ${s.agents}: ${v.problems.join('; ')}`).toMatchObject({
        ok: true,
        unknown: 0,
        lost: 0,
        phantom: 0,
        wrongValues: 0,
        failed: {},
      });
      expect(Object.keys(s.operations).sort()).toEqual(['write:delete', 'write:insert', 'write:update']);
    }
    for (const op of ['insert', 'update', 'delete'] as const)
      expect(
        writes.reduce((n, s) => n + s.verification!.acknowledged[op], 0),
        op,
      ).toBeGreaterThan(0);
  }, 240_000);

  it('a Faucet whose faucet_query has no group skips the aggregates with the reason, and still reads', async () => {
    const older = await faucetAt({ group: false });
    const out = join(dir, 'older.json');
    const r = await run([
      'run',
      ...[
        '--target',
        older.url,
        '--profile',
        'faucet',
        '--workloads',
        'point-read,analytical',
        '--agents',
        '1',
        '--duration',
        '200ms',
        '--warmup',
        '100ms',
        '--out',
        out,
      ],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.skipped).toEqual([
      {
        target: 'faucet 2025 session',
        workload: 'analytical',
        reason:
          "faucet: no aggregate tool: this Faucet's faucet_query takes no group (aggregate fields and group came in a later Faucet)",
      },
    ]);
    expect(result.steps.map((s) => [s.workload, s.errors])).toEqual([['point-read', {}]]);
    expect(r.stderr).toMatch(/takes no group/);
  }, 240_000);

  it('a server that answers wrong rows fails the agreement check: a warning, and run exits 1', async () => {
    const [ours, liar] = [await startOurs(`sqlite:${db}`), await faucetAt({ wrong: true })];
    peers.push(ours);
    const out = join(dir, 'wrong.json');
    const r = await run([
      'run',
      ...['--target', ours.url, '--profile', 'ours', '--target', liar.url, '--profile', 'faucet', '--service', 'main'],
      ...[
        '--workloads',
        'point-read,filtered',
        '--agents',
        '1',
        '--duration',
        '200ms',
        '--warmup',
        '100ms',
        '--check-calls',
        '10',
        '--out',
        out,
      ],
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /answers disagree: faucet 2025 session vs ours 2025 session on point-read \(\d+ of 10 calls\)/,
    );
    expect(r.stdout).toMatch(
      /warning: faucet 2025 session answered \d+ of 10 point-read calls differently from ours 2025 session/,
    );
    const result = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    const pointRead = result.agreement?.find((a) => a.workload === 'point-read');
    expect(pointRead?.mismatches).toBeGreaterThan(0);
    expect(pointRead?.differences[0]).toMatch(/ours 2025 session 1 row \[\d+\], faucet 2025 session 0 rows \[\]/);
  }, 240_000);

  // a real Faucet (a Go binary, not on npm) wherever FAUCET_URL points at one over HTTP
  it.skipIf(!process.env.FAUCET_URL)(
    'drives a live Faucet at FAUCET_URL (service FAUCET_SERVICE, default main)',
    async () => {
      const out = join(dir, 'faucet-live.json');
      const r = await run([
        'run',
        ...[
          '--target',
          process.env.FAUCET_URL!,
          '--profile',
          'faucet',
          '--service',
          process.env.FAUCET_SERVICE ?? 'main',
        ],
        ...[
          '--workloads',
          'session-init,point-read,filtered',
          '--agents',
          '1',
          '--duration',
          '500ms',
          '--warmup',
          '100ms',
          '--check-calls',
          '10',
          '--out',
          out,
        ],
      ]);
      expect(r.code, r.stderr).toBe(0);
      const result = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
      expect(result.steps.map((s) => s.workload)).toEqual(['session-init', 'point-read', 'filtered']);
      for (const s of result.steps) expect(s.errors, s.workload).toEqual({});
    },
    240_000,
  );
});

describe('the faucet profile’s values and writes against the scripted Faucet', () => {
  const clientOf = (peer: Peer): McpClient =>
    new PeerClient(
      PEERS.faucet!,
      createClient({ kind: 'http', url: peer.url }, { client: 'lean', protocol: 'legacy' }),
      { service: 'main' },
    );
  let client: McpClient;
  let accounts: number[];
  const call = async (tool: string, args: Record<string, unknown>) => client.callTool(tool, args);
  const payment = (memo: string) => ({
    from_account_id: accounts[0],
    to_account_id: accounts[1],
    amount: '1.00',
    status: 'pending',
    memo,
    created_at: '2026-01-01T00:00:00Z',
  });
  const memos = async (filter: string) => {
    const r = await call('query', { table: 'payments', columns: ['id', 'memo'], filter });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    return (r.data as { rows: { id: number; memo: string }[] }).rows;
  };

  beforeAll(async () => {
    client = clientOf(await faucetAt({ group: true }));
    await client.open();
    await client.listTools();
    const r = await call('query', { table: 'accounts', columns: ['id'], limit: 2 });
    accounts = (r.data as { rows: { id: number }[] }).rows.map((row) => row.id);
  }, 60_000);
  afterAll(() => client?.close());

  it('finds each hostile string by equality as exactly the row written with it', async () => {
    const hostile = [
      "O'Brien",
      "'' OR 1=1 --",
      "a\\'b",
      "x' AND memo LIKE '%",
      "') OR ('1'='1",
      '50%_off',
      'line\nbreak\ttab "dq"',
      'emoji 🚀 ü',
    ];
    const inserted = await call('insert', { table: 'payments', rows: hostile.map((m) => payment(`hostile:${m}`)) });
    expect(inserted.isError, JSON.stringify(inserted.data)).toBe(false);
    const keys = (inserted.data as { inserted: number; keys: { id: number }[] }).keys;
    expect(keys).toHaveLength(hostile.length);
    for (const [i, m] of hostile.entries()) {
      const found = await memos(`memo = '${`hostile:${m}`.replaceAll("'", "''")}'`);
      expect(found, m).toEqual([{ id: keys[i]!.id, memo: `hostile:${m}` }]);
    }
    // like keeps its wildcards: every hostile row, and nothing else
    expect((await memos("memo like 'hostile:%'")).map((r) => r.id).sort((a, b) => a - b)).toEqual(
      keys.map((k) => k.id).sort((a, b) => a - b),
    );
    // a key that is SQL inside a string finds nothing
    expect((await call('get', { table: 'payments', key: `${keys[0]!.id} OR 1=1` })).data).toEqual({
      found: false,
      row: null,
    });
  });

  it('refuses values Faucet would read as others, before sending them', async () => {
    for (const [args, why] of [
      [{ table: 'payments', key: 'a\0b' }, /NUL/],
      [{ table: 'payments', key: '\uD800' }, /lone surrogate/],
      [{ table: 'payments', key: 1e21 }, /no form Faucet's filter reads|exactly/],
      [{ table: 'payments', key: 1e-7 }, /no exponent/],
    ] as const) {
      expect(await call('get', args), JSON.stringify(args)).toMatchObject({
        isError: true,
        data: { error: { code: 'invalid_argument', message: expect.stringMatching(why) } },
      });
    }
    expect(await call('query', { table: 'payments', filter: "memo = 'a' or id = 1" })).toMatchObject({
      isError: true,
      data: { error: { code: 'unsupported_filter' } },
    });
  });

  it('holds an update to max_rows, which Faucet itself does not, and adds exactly', async () => {
    const r = await call('insert', { table: 'payments', rows: [payment('cap:a'), payment('cap:b')] });
    const [a] = (r.data as { keys: { id: number }[] }).keys;
    const capped = await call('update', {
      table: 'payments',
      set: { status: 'approved' },
      filter: "memo like 'cap:%'",
      max_rows: 1,
    });
    expect(capped).toMatchObject({ isError: true, data: { error: { code: 'limit_exceeded' } } });
    expect((await memos("memo like 'cap:%' and status = 'approved'")).length).toBe(0);
    const added = await call('update', {
      table: 'payments',
      set: { amount: { add: '-0.05' } },
      filter: `id = ${a!.id}`,
      max_rows: 1,
    });
    expect(added.data).toEqual({ updated: 1 });
    const row = await call('get', { table: 'payments', key: a!.id, columns: ['amount'] });
    expect(row.data).toEqual({ found: true, row: { amount: 0.95 } });
    expect((await call('delete', { table: 'payments', filter: "memo like 'cap:%'", max_rows: 2 })).data).toEqual({
      deleted: 2,
    });
  });

  it('on an engine without RETURNING, refuses an insert whose keys it could not learn, and writes nothing', async () => {
    const mysqlLike = clientOf(await faucetAt({ group: true, driver: 'mysql' }));
    try {
      await mysqlLike.open();
      await mysqlLike.listTools();
      const refused = await mysqlLike.callTool('insert', { table: 'payments', rows: [payment('noreturning:a')] });
      expect(refused).toMatchObject({
        isError: true,
        data: {
          error: {
            code: 'unsupported',
            message: expect.stringMatching(/mysql\) has no RETURNING.*nothing was inserted/),
          },
        },
      });
      expect(await memos("memo like 'noreturning:%'")).toEqual([]);
      // rows that carry their own key need no RETURNING: Faucet's count is enough
      const own = await mysqlLike.callTool('insert', {
        table: 'payments',
        rows: [{ id: 900_001, ...payment('noreturning:b') }],
      });
      expect(own.data).toEqual({ inserted: 1, keys: [{ id: 900_001 }] });
      expect(await memos("memo like 'noreturning:%'")).toEqual([{ id: 900_001, memo: 'noreturning:b' }]);
    } finally {
      await mysqlLike.close();
    }
  });
});
