import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINES } from '@mcp-db-bench/engines';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { buildCli } from '../src/options.js';

/**
 * The sql tool's own connections and the logins it accepts, as options: flags, variables and the
 * config file's `sql:` map, and what each engine offers for them. Live behaviour is in
 * sql-connections.test.ts and sql-privileged.test.ts.
 */

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-sql-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The options a command line parses to (commander's, without exiting). */
function parsed(args: string[]): Record<string, unknown> {
  const cli = buildCli().exitOverride();
  cli.parse(['node', 'mcp-db-server', '--url', 'sqlite:x.db', ...args]);
  return cli.opts();
}

describe('the sql options', () => {
  it('every engine with the sql tool opens connections of its own for it', () => {
    const withTool = ENGINES.filter((e) => e.readOnlyStatement);
    expect(withTool.length).toBeGreaterThan(3);
    for (const engine of withTool) expect(engine.connectSql, engine.name).toBeDefined();
    // a login with rights to refuse comes with the login to create instead
    for (const engine of withTool.filter((e) => e.excessRights))
      expect(engine.leastPrivilege, engine.name).toBeDefined();
  });

  it('defaults: a pool of 3, a wait of 5 s, no privileged login, no role', () => {
    expect(parsed(['--sql'])).toMatchObject({ sql: true, sqlPoolSize: 3, sqlWaitTimeout: 5000 });
    expect(parsed(['--sql']).sqlPrivilegedLogin).toBeUndefined();
    expect(parsed(['--sql']).sqlRole).toBeUndefined();
    expect(
      parsed([
        '--sql',
        '--sql-pool-size',
        '2',
        '--sql-wait-timeout',
        '250',
        '--sql-privileged-login',
        '--sql-role',
        'mcp_sql',
      ]),
    ).toMatchObject({ sqlPoolSize: 2, sqlWaitTimeout: 250, sqlPrivilegedLogin: true, sqlRole: 'mcp_sql' });
  });

  it('refuses a pool of none and a wait of none', () => {
    const quiet = { writeErr: () => {} };
    const parse = (args: string[]) => () =>
      buildCli()
        .exitOverride()
        .configureOutput(quiet)
        .parse(['node', 'mcp-db-server', ...args]);
    expect(parse(['--sql-pool-size', '0'])).toThrow(/sql-pool-size must be a positive integer/);
    expect(parse(['--sql-wait-timeout', '0'])).toThrow(/sql-wait-timeout must be a positive integer/);
  });

  it('the help lists them', () => {
    const help = buildCli().helpInformation();
    for (const flag of ['--sql-pool-size', '--sql-wait-timeout', '--sql-privileged-login', '--sql-role'])
      expect(help).toContain(flag);
  });

  it('the config file: sql is true, or a map of its settings (which serves it)', () => {
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    expect(loadConfig(file('plain.yaml', 'url: sqlite:x.db\nsql: true\n'), {}).options).toEqual({ sql: true });
    expect(
      loadConfig(
        file(
          'map.yaml',
          'url: sqlite:x.db\nsql:\n  poolSize: 2\n  waitTimeout: 250\n  privilegedLogin: true\n  role: mcp_sql\n',
        ),
        {},
      ).options,
    ).toEqual({ sql: true, sqlPoolSize: 2, sqlWaitTimeout: 250, sqlPrivilegedLogin: true, sqlRole: 'mcp_sql' });
    const mistake = file('mistake.yaml', 'url: sqlite:x.db\nsql:\n  poolSize: 0\n  privileged: true\n');
    expect(() => loadConfig(mistake, {})).toThrow(ConfigError);
    expect(() => loadConfig(mistake, {})).toThrow(/mistake\.yaml:3: sql\.poolSize: Too small/);
    expect(() => loadConfig(mistake, {})).toThrow(/mistake\.yaml:4: sql\.privileged: unknown key/);
  });
});
