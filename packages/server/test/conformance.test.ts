import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freshDatabase } from '@mcp-db-bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, a pinned dev
 * dependency) against the built bin's Streamable HTTP endpoint, once per requirement set:
 *
 *   conformance server --url http://127.0.0.1:PORT/mcp --requirements 2025-11-25
 *   conformance server --url http://127.0.0.1:PORT/mcp --requirements 2026-07-28
 *
 * Every check that does not pass (FAILURE or WARNING) must be listed, with its reason, in
 * clients/conformance-expected-failures.json; every listed check must still not pass. The
 * harness runs with that list as its own baseline and must agree.
 */
const run = promisify(execFile);
const require = createRequire(import.meta.url);
const EXPECTED = fileURLToPath(new URL('./clients/conformance-expected-failures.json', import.meta.url));
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}
const NOT_PASSING = new Set<Check['status']>(['FAILURE', 'WARNING']);

const expected = JSON.parse(readFileSync(EXPECTED, 'utf8')) as Record<Revision, { reason: string; checks: string[] }[]>;

/** The harness's bin, run with this very node. */
function harness(): string {
  const pkgJson = require.resolve('@modelcontextprotocol/conformance/package.json');
  const pkg = require(pkgJson) as { bin: Record<string, string> };
  return join(dirname(pkgJson), pkg.bin.conformance!);
}

async function conformance(args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, [harness(), ...args], {
      timeout: 120_000,
      maxBuffer: 32 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as Error & { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw new Error(`conformance ${args.join(' ')}: ${e.message}\n${e.stderr}`);
    return { code: e.code, stdout: `${e.stdout}\n${e.stderr}` };
  }
}

/** Server scenarios a requirement set runs, scored or not, from `conformance list --requirements`. */
async function requiredScenarios(revision: Revision): Promise<string[]> {
  const { code, stdout } = await conformance(['list', '--requirements', revision]);
  if (code !== 0) throw new Error(`conformance list --requirements ${revision} exited ${code}:\n${stdout}`);
  const scored = /Server scenarios[^\n]*\n((?: {2}- \S+\n)+)/.exec(stdout)![1]!.match(/(?<=- )\S+/g)!;
  const unscored = [...stdout.matchAll(/- (\S+) \[server\]/g)].map((m) => m[1]!);
  return [...scored, ...unscored].sort();
}

/** checks.json of each scenario in a results directory (`server-<scenario>-<timestamp>/`). */
function readResults(dir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    results.set(scenario, JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

const sorted = (s: Iterable<string>) => [...s].sort();
const listed = (revision: Revision) => new Set(expected[revision].flatMap((g) => g.checks));

interface Outcome {
  code: number;
  output: string;
  scenarios: string[];
  results: Map<string, Check[]>;
}

/** Runs one requirement set with the expected failures as the harness's own baseline. */
async function runSuite(endpoint: string, dir: string, revision: Revision): Promise<Outcome> {
  const baseline = join(dir, `baseline-${revision}.yml`);
  writeFileSync(
    baseline,
    `server:\n${sorted(listed(revision))
      .map((c) => `  - ${c}\n`)
      .join('')}`,
  );
  const out = join(dir, `results-${revision}`);
  const [scenarios, { code, stdout }] = await Promise.all([
    requiredScenarios(revision),
    conformance([
      'server',
      '--url',
      endpoint,
      '--requirements',
      revision,
      '--expected-failures',
      baseline,
      '--output-dir',
      out,
    ]),
  ]);
  return { code, output: stdout, scenarios, results: readResults(out) };
}

let dir = '';
let http: HttpServer | undefined;
/** Both requirement sets, started together (the harness's start-up dominates). */
const suites = new Map<Revision, Promise<Outcome>>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-db-conformance-'));
  const dbUrl = await freshDatabase({ engine: 'sqlite', baseUrl: 'sqlite:' }, 'bench_conformance');
  await loadShop(dbUrl);
  http = await startHttpServer(dbUrl);
  for (const revision of REVISIONS) {
    const pending = runSuite(http.endpoint, dir, revision);
    pending.catch(() => {}); // awaited (and reported) by its own describe block
    suites.set(revision, pending);
  }
});
afterAll(async () => {
  await Promise.allSettled(suites.values());
  await http?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(REVISIONS)('MCP conformance suite, requirements %s, over HTTP', (revision) => {
  const expectedChecks = listed(revision);
  let outcome: Outcome;
  let notPassing = new Map<string, string>();

  beforeAll(async () => {
    outcome = await suites.get(revision)!;
    notPassing = new Map(
      [...outcome.results].flatMap(([scenario, checks]) =>
        checks
          .filter((c) => NOT_PASSING.has(c.status))
          .map((c) => [`${scenario}:${c.id}`, `${c.status}: ${c.errorMessage ?? ''}`] as const),
      ),
    );
  });

  it('lists each expected failure once, under a stated reason', () => {
    expect(expected[revision].flatMap((g) => g.checks)).toHaveLength(expectedChecks.size);
    expect(expected[revision].filter((g) => g.reason.trim().length < 40 || g.checks.length === 0)).toEqual([]);
  });

  it('ran every server scenario of the requirement set', () => {
    expect(sorted(outcome.results.keys())).toEqual(outcome.scenarios);
  });

  it('every check that does not pass is listed with its reason', () => {
    const unexpected = [...notPassing]
      .filter(([check]) => !expectedChecks.has(check))
      .map(([check, why]) => `${check} (${why})`);
    expect(unexpected).toEqual([]);
  });

  it('every listed check still does not pass (remove entries that now pass)', () => {
    expect(sorted([...expectedChecks].filter((check) => !notPassing.has(check)))).toEqual([]);
  });

  it('the harness agrees, with the list as its baseline', () => {
    expect(outcome.code, outcome.output.slice(-4000)).toBe(0);
  });
});
