import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { enginesCompared } from '../src/findings/engines.js';
import { studyFindings } from '../src/findings/findings.js';
import { findingsMarkdown } from '../src/findings/page.js';
import { studyClaims } from '../src/findings/rerun.js';
import { serverShares } from '../src/findings/server-share.js';
import { spreadThroughServers } from '../src/findings/server-spread.js';
import { serversCompared } from '../src/findings/servers.js';
import { timeShares } from '../src/findings/time.js';
import { overview } from '../src/render/overview.js';
import { result, stats, step } from '../src/testing.js';
import { type Judged, judge } from '../src/verdicts.js';

/**
 * Servers compared, a pure function of a result file as `run --peer` writes it: our server and
 * two peers on each of two databases, point reads at 1 agent in 5 iterations, with known rates.
 */

const of = <T>(find: (files: ResultFile[], j: Judged) => T, files: ResultFile[]): T => find(files, judge(files));
const text = (c: unknown) => (typeof c === 'string' ? c : (c as { text: string }).text);

const ERA = '2025 session';
const DATABASES = [
  { engine: 'sqlite', url: 'sqlite:shop.db' },
  { engine: 'postgres', url: 'postgres://bench:***@127.0.0.1:5432/bench' },
];
const SERVERS = ['ours', 'faucet', 'dbhub'] as const;
const label = (server: string, engine: string) =>
  server === 'ours' ? `${engine} ${ERA}` : `${server} ${engine} ${ERA}`;

/**
 * Calls per 1 s step: through ours SQLite is twice PostgreSQL; through Faucet PostgreSQL is 1.5
 * times SQLite (the server changes which database looks fastest); through DBHub they are alike.
 */
const CALLS: Record<string, Record<string, number>> = {
  ours: { sqlite: 1000, postgres: 500 },
  faucet: { sqlite: 800, postgres: 1200 },
  dbhub: { sqlite: 400, postgres: 396 },
};

/** DBHub on PostgreSQL overran its steps in the first three iterations: its ratio is withheld, with why. */
const overranAt = (server: string, engine: string, iteration: number) =>
  server === 'dbhub' && engine === 'postgres' && iteration <= 3;

function peerFile(): ResultFile {
  const steps: StepResult[] = DATABASES.flatMap(({ engine }) =>
    SERVERS.flatMap((server) =>
      [1, 2, 3, 4, 5].map((iteration) =>
        step({
          target: label(server, engine),
          iteration,
          workload: 'point-read',
          agents: 1,
          calls: CALLS[server]![engine]! + iteration,
          ...(overranAt(server, engine, iteration) ? { overrun: { calls: 1, lastEndedAfterMs: 900 } } : {}),
        }),
      ),
    ),
  );
  const rounds = (raw: number, echo: number, full: number) =>
    [0, 1, 2, 3, 4].map((i) => ({ raw, echo, full: full + i }));
  return result(steps, {
    config: {
      ...result([]).config,
      targets: DATABASES.flatMap(({ engine, url }) =>
        SERVERS.map((server) => ({
          label: label(server, engine),
          engine,
          url,
          ...(server === 'ours' ? {} : { profile: server, peer: { name: server, command: server } }),
        })),
      ),
      workloads: ['point-read'],
      agents: [1],
      iterations: 5,
      indexes: ['optimized'],
      command: 'mcp-db-bench run --peer faucet=./faucet --peer dbhub --workloads point-read --agents 1',
    },
    decomposition: [
      {
        target: label('ours', 'sqlite'),
        operation: 'get orders by id',
        raw: stats([10]),
        echo: stats([40]),
        full: stats([100]),
        rounds: rounds(10, 40, 100),
      },
      {
        target: label('faucet', 'sqlite'),
        operation: 'get orders by id',
        raw: stats([10]),
        echo: stats([50]),
        full: stats([400]),
        rounds: rounds(10, 50, 400),
        floor: 'ping',
      },
    ],
    tokens: ['ours', 'faucet'].map((server) => ({
      target: label(server, 'sqlite'),
      tokenizer: 't',
      toolsList: { bytes: 1, tokens: 600 },
      sessionStart: { bytes: 1, tokens: server === 'ours' ? 2055 : 10675 },
      calls: [
        {
          workload: 'point-read',
          calls: 30,
          bytes: { p50: 1, max: 1 },
          tokens: { p50: server === 'ours' ? 55 : 102, max: 200 },
        },
      ],
    })),
  });
}

const row = (rows: unknown[][], ...lead: string[]) =>
  rows.find((r) => lead.every((x, i) => text(r[i]) === x))!.map(text);

describe('Servers compared', () => {
  it('gives each peer against ours on the same database, judged by the claims rules, tokens beside', () => {
    const f = of(serversCompared, [peerFile()])!;
    expect(f.head).toEqual([
      'database',
      'workload',
      'agents',
      'ours /s',
      'faucet /s',
      'faucet/ours',
      'dbhub /s',
      'dbhub/ours',
      'tokens per answer (ours · faucet · dbhub)',
    ]);
    const sqlite = row(f.rows, 'sqlite', 'point-read', '1');
    // faucet (800 + i) over ours (1000 + i): 0.80 in every iteration, a claim
    expect(sqlite[5]).toMatch(/^0\.80x \[0\.\d+–0\.\d+\]$/);
    expect((f.rows.find((r) => text(r[0]) === 'sqlite')![5] as { tone: string }).tone).toBe('bad');
    expect(sqlite[7]).toMatch(/^0\.40x \[/);
    expect(sqlite[8]).toBe('55 · 102 · –');
    const postgres = row(f.rows, 'postgres', 'point-read', '1');
    expect(postgres[5]).toMatch(/^2\.\d+x \[/);
    // three of five iterations overran on DBHub: withheld with its reason, never "no difference"
    expect(postgres[7]).toMatch(/^withheld \(2 of 5 iterations: 3 × /);
    expect(f.chart!.series.map((s) => s.label)).toEqual(['faucet/ours', 'dbhub/ours']);
  });

  it('never pairs a peer on one database with ours on another: engines per server, servers per database', () => {
    const file = peerFile();
    const whats = of(studyClaims, [file]).map((c) => c.what);
    expect(whats).toContain('faucet/ours postgres point-read × 1');
    expect(whats).toContain('faucet postgres / sqlite point-read × 1');
    expect(whats.filter((w) => w.includes('faucet') && w.includes('dbhub'))).toEqual([]);
    // judged together: 3 servers on each of 2 databases and 2 databases through each of 3 servers,
    // not the 6 pairs of a peer on one database with another server on the other
    expect(judge([file]).family).toBe(9);
    // Engines compared: our server's databases alone
    expect(of(enginesCompared, [file])!.head).toEqual(['workload', 'agents', 'postgres / sqlite']);
    const summary = overview(file, 200);
    expect(summary).toContain('engines compared through faucet, postgres/sqlite at 1 agent:');
    expect(summary).toContain('servers compared on postgres, faucet/ours at 1 agent:');
    expect(summary).not.toMatch(/engines compared, faucet/);
    expect(summary).not.toContain(`faucet postgres ${ERA}/sqlite`);
  });

  it('shows which database looks fastest through each server', () => {
    const f = of(spreadThroughServers, [peerFile()])!;
    expect(f.head).toEqual(['workload', 'agents', 'server', 'fastest first, calls/s', 'postgres / sqlite']);
    const ours = row(f.rows, 'point-read', '1', 'ours');
    expect(ours[3]).toMatch(/^sqlite 1,00\d > postgres 50\d$/);
    expect(ours[4]).toMatch(/^0\.50x \[/);
    const faucet = row(f.rows, 'point-read', '1', 'faucet');
    expect(faucet[3]).toMatch(/^postgres 1,20\d > sqlite 80\d$/);
    expect(faucet[4]).toMatch(/^1\.50x \[/);
    // DBHub's PostgreSQL pairs overran: withheld, not an order read into noise
    expect(row(f.rows, 'point-read', '1', 'dbhub')[4]).toMatch(/^withheld/);
  });

  it("gives each server's share of a call: all of it but the statement through the driver", () => {
    const f = serverShares([peerFile()])!;
    const ours = row(f.rows, 'sqlite', 'ours');
    // (100..104 - 10) / (100..104): median 90.2%
    expect(ours[6]).toMatch(/^90% \[90%–90%\]$/);
    expect(ours[5]).toMatch(/\(echo\)$/);
    const faucet = row(f.rows, 'sqlite', 'faucet');
    expect(faucet[6]).toMatch(/^98% \[/);
    expect(faucet[5]).toMatch(/\(ping\)$/);
    expect(faucet[8]).toBe('10,675');
    // "Where the time goes" keeps to our server's calls: the peers' are here, beside ours
    expect(timeShares([peerFile()])!.rows.map((r) => text(r[0]))).toEqual([`sqlite ${ERA}`]);
  });

  it('adds nothing when no peer ran', () => {
    const file = peerFile();
    const ours = {
      ...file,
      config: { ...file.config, targets: file.config.targets.filter((t) => !t.peer) },
      steps: file.steps.filter((s) => !/^(faucet|dbhub) /.test(s.target)),
    };
    const ids = studyFindings([ours]).map((f) => f.id);
    expect(ids).not.toContain('servers');
    expect(ids).not.toContain('server-share');
    expect(ids).not.toContain('server-spread');
    expect(studyFindings([file]).map((f) => f.id)).toEqual(
      expect.arrayContaining(['engines', 'servers', 'server-share', 'server-spread']),
    );
    expect(findingsMarkdown([file])).toContain('## Servers compared');
  });

  it('names each database’s scale when they hold different ones, our server’s targets only', () => {
    const file = peerFile();
    const held = (engine: string) => ({
      version: engine,
      settings: {},
      scale: engine === 'sqlite' ? 0.01 : 0.002,
      seed: 42,
      indexes: {},
    });
    file.config = {
      ...file.config,
      scale: null,
      targets: file.config.targets.map((t) => ({ ...t, database: held(t.engine ?? '') })),
    };
    expect(findingsMarkdown([file])).toContain(
      `Scale as each database holds it: sqlite ${ERA} 0.01, postgres ${ERA} 0.002, seed`,
    );
  });
});
