import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SERVER_BIN } from '@mcp-db-bench/server';
import { MIN_NODE, nodeVersionProblem } from '@mcp-db-bench/server/node-version';
import { describe, expect, it } from 'vitest';

/**
 * Both bins on a Node.js older than the minimum: one line naming both versions and exit 1, before
 * any dependency loads (on Node 20 undici threw `reading 'bind'` and better-sqlite3 segfaulted).
 * It needs an old node: OLD_NODE names one, else the system's /usr/bin/node when it is older.
 */
const CLI_BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const versionOf = (node: string): string => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().slice(1);
const oldNode = [process.env.OLD_NODE, '/usr/bin/node'].find(
  (node): node is string => !!node && existsSync(node) && nodeVersionProblem('x', versionOf(node)) !== undefined,
);

describe('every package states the same minimum Node.js', () => {
  it.each(['package.json', 'apps/cli/package.json', 'packages/server/package.json', 'packages/engines/package.json'])(
    '%s',
    (file) => {
      const pkg = JSON.parse(readFileSync(`${ROOT}${file}`, 'utf8')) as { engines: { node: string } };
      expect(pkg.engines.node).toBe(`>=${MIN_NODE}`);
    },
  );
});

it("the current Node.js passes pnpm start's check", () => {
  expect(spawnSync(process.execPath, [`${ROOT}scripts/check-node.mjs`]).status).toBe(0);
});

describe.skipIf(!oldNode)(`the bins on an old Node.js (${oldNode ?? 'none found: set OLD_NODE'})`, () => {
  const cases: [string, string, string[]][] = [
    ['mcp-db-bench', CLI_BIN, ['--help']],
    ['mcp-db-bench', CLI_BIN, ['run', '--scale', '0.001']],
    ['mcp-db-server', SERVER_BIN, ['--url', 'sqlite::memory:']],
    // pnpm start's first step, before the build
    ['mcp-db-bench', `${ROOT}scripts/check-node.mjs`, []],
  ];
  it.each(cases)('%s %s %s says which version it needs and exits 1', (program, bin, args) => {
    const result = spawnSync(oldNode!, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });
    expect(result.stderr).toBe(`${program} needs Node.js ${MIN_NODE} or newer; this is ${versionOf(oldNode!)}\n`);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
  });
});
