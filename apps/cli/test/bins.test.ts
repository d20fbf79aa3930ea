import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The bins pnpm links at install are checked-in files (bin/<name>.js), so they exist before any
 * build and install warns about none; each runs the built dist/bin.js, or says to build first.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = [
  ['apps/cli', 'mcp-db-bench'],
  ['packages/server', 'mcp-db-server'],
] as const;

describe.each(PACKAGES)('%s: the %s bin', (dir, name) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    files: string[];
  };
  const shim = join(ROOT, dir, pkg.bin[name]!);

  it('is a checked-in, executable file that the package publishes', () => {
    expect(pkg.bin[name]).toBe(`./bin/${name}.js`);
    expect(statSync(shim).mode & 0o111).not.toBe(0);
    expect(pkg.files).toContain('bin');
    const tracked = spawnSync('git', ['ls-files', '--error-unmatch', shim], { cwd: ROOT });
    expect(tracked.status).toBe(0);
  });

  it('runs the built bin', () => {
    const result = spawnSync(process.execPath, [shim, '--help'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`Usage: ${name}`));
  });

  it('says to build first where nothing is built', () => {
    const copy = mkdtempSync(join(tmpdir(), 'bin-shim-'));
    try {
      mkdirSync(join(copy, 'bin'));
      copyFileSync(shim, join(copy, 'bin', `${name}.js`));
      expect(existsSync(join(copy, 'dist'))).toBe(false);
      const result = spawnSync(process.execPath, [join(copy, 'bin', `${name}.js`), '--help'], { encoding: 'utf8' });
      expect(result.stderr).toBe(`${name} is not built yet: run \`pnpm build\` in the repository first\n`);
      expect(result.status).toBe(1);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("the root package.json's scripts", () => {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

  it.each(PACKAGES)(
    '%s: `pnpm %s` runs the bin, which says to build first before a build (not a stack trace)',
    (dir, name) => {
      expect(root.scripts[name]).toBe(`node ${dir}/bin/${name}.js`);
    },
  );

  it('`pnpm start` ends by running the bin, after its build', () => {
    expect(root.scripts.start).toMatch(/turbo run build .*&& node apps\/cli\/bin\/mcp-db-bench\.js$/);
  });
});
