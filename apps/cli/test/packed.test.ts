import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The packages as npm users get them. Every workspace package is packed with `pnpm pack` (which
 * turns `workspace:*` and `catalog:` into real versions), the six tarballs are installed with npm
 * into an empty directory outside the workspace, and the installed bins are run from there:
 *
 *   npx mcp-db-bench --version
 *   npx mcp-db-bench run --duration 2s --warmup 500ms --agents 1 --workloads point-read --html report.html ...
 *   npx @modelcontextprotocol/inspector --cli --method tools/list -- node node_modules/@mcp-db-bench/server/dist/bin.js --url sqlite:shop.db
 *
 * The server's database drivers are optional peer dependencies; the CLI depends on
 * better-sqlite3, which npm hoists beside the server: the last step proves the packed server
 * finds it. Needs each package's dist (the test run builds it first), pnpm and npm on PATH and
 * the npm registry for the third-party dependencies. Everything is written under one temporary
 * directory, removed at the end.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = [
  'packages/contract',
  'packages/engines',
  'packages/server',
  'packages/report',
  'packages/loadgen',
  'packages/dataset',
  'apps/cli',
];
const READ_TOOLS = ['aggregate', 'describe_table', 'get', 'list_tables', 'query'];
const CLI_VERSION = (JSON.parse(readFileSync(join(ROOT, 'apps/cli/package.json'), 'utf8')) as { version: string })
  .version;

/** The environment for npm and the bins: no npm_* variables a pnpm script run sets, temp files in our directory. */
function childEnv(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && !key.startsWith('VITEST')) env[key] = value;
  }
  return {
    ...env,
    TMPDIR: tmp,
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

interface Result {
  stdout: string;
  stderr: string;
}

/** Runs a command; a failure names the command, its exit and both of its outputs. */
function sh(
  cmd: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const how = error.killed
            ? `killed after ${options.timeoutMs} ms`
            : `exit ${String(error.code ?? error.signal)}`;
          reject(
            new Error(
              `${cmd} ${args.join(' ')} (in ${options.cwd}): ${how}\n--- stdout ---\n${tail(stdout)}\n--- stderr ---\n${tail(stderr)}`,
            ),
          );
        } else {
          resolve({ stdout, stderr });
        }
      },
    );
  });
}

function tail(text: string, max = 8000): string {
  return text.length > max ? `...${text.slice(-max)}` : text;
}

/** The Inspector's launcher (its `mcp-inspector` bin): the server's devDependency, never downloaded. */
function inspectorLauncher(): string {
  const require = createRequire(join(ROOT, 'packages/server/package.json'));
  const pkgJson = require.resolve('@modelcontextprotocol/inspector/package.json');
  const pkg = require(pkgJson) as { bin: Record<string, string> };
  return join(dirname(pkgJson), pkg.bin['mcp-inspector']!);
}

let work = '';
let app = '';
let env: NodeJS.ProcessEnv = {};
const tarballs: string[] = [];

describe('the packed packages, installed with npm outside the workspace', () => {
  beforeAll(async () => {
    for (const pkg of PACKAGES) {
      if (!existsSync(join(ROOT, pkg, 'dist'))) throw new Error(`${pkg}/dist is missing: run pnpm build first`);
    }
    work = mkdtempSync(join(tmpdir(), 'mcp-db-bench-packed-'));
    const packs = join(work, 'tarballs');
    const tmp = join(work, 'tmp');
    app = join(work, 'app');
    for (const dir of [packs, tmp, app]) mkdirSync(dir);
    env = childEnv(tmp);
    for (const tool of ['pnpm', 'npm', 'npx', 'tar']) {
      await sh(tool, ['--version'], { cwd: work, env, timeoutMs: 30_000 }).catch((error: Error) => {
        throw new Error(
          `this test needs ${tool} on PATH (.ci/run installs npm and npx where the machine has none): ${error.message}`,
        );
      });
    }

    for (const pkg of PACKAGES) {
      await sh('pnpm', ['pack', '--pack-destination', packs], { cwd: join(ROOT, pkg), env, timeoutMs: 60_000 });
    }
    tarballs.push(...readdirSync(packs).map((name) => join(packs, name)));

    await sh('npm', ['init', '-y'], { cwd: app, env, timeoutMs: 60_000 });
    await sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], {
      cwd: app,
      env,
      timeoutMs: 300_000,
    });
  }, 420_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs six tarballs, each with its README, the LICENSE and dist, and no workspace: or catalog: versions', async () => {
    expect(tarballs).toHaveLength(PACKAGES.length);
    for (const tarball of tarballs) {
      const { stdout: list } = await sh('tar', ['-tzf', tarball], { cwd: work, env, timeoutMs: 30_000 });
      const files = list.split('\n').filter(Boolean);
      const missing = ['package/package.json', 'package/README.md', 'package/LICENSE'].filter(
        (f) => !files.includes(f),
      );
      expect(missing, `${tarball} lacks`).toEqual([]);
      expect(
        files.some((f) => f.startsWith('package/dist/') && f.endsWith('.js')),
        `${tarball} ships dist/*.js`,
      ).toBe(true);
      expect(
        files.some((f) => f.startsWith('package/src/') || f.startsWith('package/test/')),
        `${tarball} ships no src or test`,
      ).toBe(false);
      const { stdout: manifest } = await sh('tar', ['-xzOf', tarball, 'package/package.json'], {
        cwd: work,
        env,
        timeoutMs: 30_000,
      });
      expect(manifest, tarball).not.toMatch(/"(workspace|catalog):/);
      const meta = JSON.parse(manifest) as { license?: string; repository?: { directory?: string }; version?: string };
      expect(meta.license).toBe('Apache-2.0');
      expect(meta.version).toBe(CLI_VERSION);
      expect(PACKAGES).toContain(meta.repository?.directory);
    }
  });

  it('npx mcp-db-bench --version prints the CLI version', async () => {
    const { stdout } = await sh('npx', ['--no', '--', 'mcp-db-bench', '--version'], {
      cwd: app,
      env,
      timeoutMs: 60_000,
    });
    expect(stdout.trim()).toBe(CLI_VERSION);
  });

  it('npx mcp-db-bench run: a 2-second run on embedded SQLite prints its latency table', async () => {
    const args = [
      '--no',
      '--',
      'mcp-db-bench',
      'run',
      '--duration',
      '2s',
      '--warmup',
      '500ms',
      '--agents',
      '1',
      '--iterations',
      '1',
      '--full',
    ];
    args.push('--workloads', 'point-read', '--indexes', 'baseline', '--html', 'report.html');
    const { stdout, stderr } = await sh('npx', args, { cwd: app, env, timeoutMs: 180_000 });
    expect(stdout, stderr).toContain(`mcp-db-bench ${CLI_VERSION}`);
    expect(stdout, stderr).toMatch(/Latency and throughput per workload/);
    expect(stdout, stderr).toMatch(/│\s*point-read\s*│\s*1\s*│/);
    expect(stdout, stderr).toMatch(/p50 ms/);
    // the HTML report inlines uPlot from the installed dependency
    const html = readFileSync(join(app, 'report.html'), 'utf8');
    expect(html).toMatch(/var uPlot=function/);
    expect(html).toContain('data-chart="spectrum-point-read"');
  }, 240_000);

  it('the packed server over stdio, listed by the MCP Inspector CLI, has the five read tools', async () => {
    const db = join(work, 'shop.db');
    await sh('npx', ['--no', '--', 'mcp-db-bench', 'seed', '--db', `sqlite:${db}`, '--scale', '0.001'], {
      cwd: app,
      env,
      timeoutMs: 120_000,
    });
    const server = join(app, 'node_modules/@mcp-db-bench/server/dist/bin.js');
    expect(existsSync(server), server).toBe(true);
    const { stdout } = await sh(
      process.execPath,
      [
        inspectorLauncher(),
        '--cli',
        '--format',
        'json',
        '--method',
        'tools/list',
        '--',
        process.execPath,
        server,
        '--url',
        `sqlite:${db}`,
      ],
      { cwd: app, env, timeoutMs: 120_000 },
    );
    const listed = JSON.parse(stdout) as { result?: { tools?: { name: string }[] } };
    expect(listed.result?.tools?.map((t) => t.name).sort(), stdout).toEqual(READ_TOOLS);
  }, 180_000);
});
