import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseThreshold } from '@mcp-db-bench/report';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildCli } from '../../../packages/server/src/options.js';
import { buildProgram, parseCli } from '../src/program.js';
import { type DocCommand, docCommands, invocation, shellCommands } from './support/doc-commands.js';

// Every command line a user would copy from the docs, parsed by the real grammar (commander's, with
// each command's action replaced by a recorder, so nothing runs): a renamed flag, a value an
// argParser refuses, an unknown command or a missing argument fails here with the doc's file and line.

const ROOT = resolve(import.meta.dirname, '../../..');

/** The docs a user reads: the README, docs/, and each package's README (npm shows it). */
function docFiles(): string[] {
  const readmes = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(ROOT, group)).map((name) => join(group, name, 'README.md')),
  );
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs, ...readmes].filter((file) => {
    try {
      return readFileSync(join(ROOT, file)).length > 0;
    } catch {
      return false;
    }
  });
}

/** An example value for each variable the docs use; a line with any other is skipped, and counted. */
function exampleValues(now = Date.now()): Record<string, string> {
  const soon = new Date(now + 120_000).toISOString().replace(/\.\d+Z$/, 'Z'); // date -u -d +2min +%FT%TZ
  return {
    PG_URL: 'postgres://bench:bench@127.0.0.1:5432/bench',
    MYSQL_URL: 'mysql://bench:bench@127.0.0.1:3306/bench',
    DATABASE_URL: 'postgres://bench:bench@127.0.0.1:5432/bench',
    TOKEN: 'change-me-to-a-long-random-string',
    KEY: '0123456789abcdef0123456789abcdef',
    AT: soon,
    START: soon,
    I: '3',
    i: '1',
    BASE: 'base-1.json,base-2.json',
    NEW: 'new-1.json,new-2.json',
    '<token>': 'change-me-to-a-long-random-string',
  };
}

/** At most this many lines may be skipped (an ellipsis or an unknown placeholder); each is listed. */
const MAX_SKIPS = 3;

/** Parses one command line with the real grammar and runs nothing: the error, or what was reached. */
async function check(command: Pick<DocCommand, 'program' | 'args' | 'env'>): Promise<string> {
  const saved = { ...process.env };
  // Only the line's own VAR=value prefixes: a variable of this machine must not decide the result.
  for (const name of Object.keys(process.env)) if (/^MCP_DB_|^DATABASE_URL$/.test(name)) delete process.env[name];
  Object.assign(process.env, command.env);
  const output = { writeOut: () => {}, writeErr: () => {} };
  try {
    if (command.program === 'mcp-db-server') {
      buildCli()
        .exitOverride()
        .configureOutput(output)
        .parse(['node', 'mcp-db-server', ...command.args]);
      return 'mcp-db-server';
    }
    const program = buildProgram();
    const reached: string[] = [];
    for (const sub of [program, ...program.commands]) {
      sub.exitOverride().configureOutput(output); // a usage error throws, never exits the test
      if (sub !== program) sub.action(() => void reached.push(sub.name()));
    }
    await parseCli(['node', 'mcp-db-bench', ...command.args], program);
    if (reached.length !== 1) throw new Error(`reached ${reached.length} actions`);
    return reached[0]!;
  } catch (error) {
    // --help and --version end with exit code 0: the line is right
    if (error instanceof CommanderError && error.exitCode === 0) return error.code;
    throw error;
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

/** The line's failure as `file:line: message`, or undefined when the grammar takes it. */
async function failure(command: DocCommand): Promise<string | undefined> {
  try {
    await check(command);
    return undefined;
  } catch (error) {
    return `${command.file}:${command.line}: ${(error as Error).message} (in: ${command.text})`;
  }
}

const values = exampleValues();
const found = docFiles().flatMap((file) => docCommands(file, readFileSync(join(ROOT, file), 'utf8'), values));
const checked = found.filter((c) => !c.skip);
const skipped = found.filter((c) => c.skip);

describe('the command lines in the docs', () => {
  it('are found in the README, docs/ and the packages', () => {
    const files = new Set(found.map((c) => c.file));
    for (const file of ['README.md', 'docs/benchmark.md', 'docs/server.md', 'apps/cli/README.md'])
      expect(files, file).toContain(file);
    expect(checked.filter((c) => c.program === 'mcp-db-bench').length).toBeGreaterThan(40);
    expect(checked.filter((c) => c.program === 'mcp-db-server').length).toBeGreaterThan(5);
  });

  it.each(checked.map((c) => [`${c.file}:${c.line} ${c.text}`, c] as const))('%s', async (_, command) => {
    expect(await failure(command)).toBeUndefined();
  });

  it(`are skipped rarely (at most ${MAX_SKIPS}), and each skip is named`, () => {
    const list = skipped.map((c) => `${c.file}:${c.line}: ${c.skip}: ${c.text}`);
    if (list.length > 0) console.log(`skipped ${list.length} doc command line(s):\n  ${list.join('\n  ')}`);
    expect(list.length, list.join('\n')).toBeLessThanOrEqual(MAX_SKIPS);
  });
});

describe('the check itself', () => {
  const snippet = [
    'Some prose with mcp-db-bench in it, not a command.',
    '```sh',
    'mcp-db-bench run --agents 1,4 --duration 5s   # fine',
    'mcp-db-bench run --agnets 4                   # a misspelt flag',
    'mcp-db-bench run --agents 1 \\',
    '  --duration soon                             # a value the argParser refuses',
    'mcp-db-bench sed --db sqlite:shop.db          # an unknown command',
    'mcp-db-bench compare base.json                # a missing argument',
    'npx -y -p @mcp-db-bench/server mcp-db-server --port 99999',
    'MCP_DB_MAX_ROWS=0 node packages/server/dist/bin.js --url sqlite:shop.db',
    'mcp-db-bench run --target-cmd "mcp-db-server --url sqlite:shop.db --http --frobnicate"',
    'mcp-db-bench run --db postgres://…/bench     # an outline: skipped',
    '```',
    '```json',
    '{ "command": "mcp-db-bench --no-such-flag" }',
    '```',
  ].join('\n');

  it('fails a bad flag, a bad value, an unknown command and a missing argument, naming file and line', async () => {
    const commands = docCommands('docs/fake.md', snippet, exampleValues());
    const failures = await Promise.all(commands.filter((c) => !c.skip).map(failure));
    expect(commands.map((c) => [c.line, c.program, c.skip !== undefined])).toEqual([
      [3, 'mcp-db-bench', false],
      [4, 'mcp-db-bench', false],
      [5, 'mcp-db-bench', false],
      [7, 'mcp-db-bench', false],
      [8, 'mcp-db-bench', false],
      [9, 'mcp-db-server', false],
      [10, 'mcp-db-server', false],
      [11, 'mcp-db-bench', false],
      [11, 'mcp-db-server', false],
      [12, 'mcp-db-bench', true],
    ]);
    expect(failures[0]).toBeUndefined();
    expect(failures[1]).toMatch(/^docs\/fake\.md:4: .*unknown option '--agnets'/);
    expect(failures[2]).toMatch(/^docs\/fake\.md:5: .*--duration.*soon/);
    expect(failures[3]).toMatch(/^docs\/fake\.md:7: .*unknown command 'sed'/);
    expect(failures[4]).toMatch(/^docs\/fake\.md:8: .*missing required argument 'new'/);
    expect(failures[5]).toMatch(/^docs\/fake\.md:9: .*port must be 0-65535/);
    expect(failures[6]).toMatch(/^docs\/fake\.md:10: .*MCP_DB_MAX_ROWS.*max-rows must be a positive integer/);
    expect(failures[7]).toBeUndefined();
    expect(failures[8]).toMatch(/^docs\/fake\.md:11: .*unknown option '--frobnicate'/);
  });

  it('reaches the command the line names, and --help and --version pass', async () => {
    const none = { env: {} };
    expect(await check({ ...none, program: 'mcp-db-bench', args: ['--agents', '2'] })).toBe('run');
    expect(await check({ ...none, program: 'mcp-db-bench', args: ['merge', 'a.json', 'b.json'] })).toBe('merge');
    expect(await check({ ...none, program: 'mcp-db-bench', args: ['report', '--help'] })).toBe(
      'commander.helpDisplayed',
    );
    expect(await check({ ...none, program: 'mcp-db-server', args: ['--version'] })).toBe('commander.version');
    await expect(check({ ...none, program: 'mcp-db-server', args: ['--url', 'sqlite:x.db', 'extra'] })).rejects.toThrow(
      /too many arguments|unknown/,
    );
  });
});

describe('the shell-words splitter', () => {
  const words = (line: string, vars: Record<string, string> = {}) => shellCommands(line, vars);

  it('reads quotes, escapes, comments and VAR=value prefixes', () => {
    expect(words(`A=1 B='two words' cmd 'x y' "a \\"b\\" $V" c\\ d # a comment`, { V: 'v' })).toEqual([
      { env: { A: '1', B: 'two words' }, words: ['cmd', 'x y', 'a "b" v', 'c d'], placeholders: [], ellipsis: false },
    ]);
    expect(words(`"A=1" cmd '$V' x#y`)[0]!.words).toEqual(['A=1', 'cmd', '$V', 'x#y']);
  });

  it('starts a new command at | || && ; & and drops what a redirection names', () => {
    const commands = words('a 1 | b 2 && c 3; d 4 & e 5 > out.txt 2>&1 || f 6 2> err.txt');
    expect(commands.map((c) => c.words)).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
      ['d', '4'],
      ['e', '5'],
      ['f', '6'],
    ]);
  });

  it('notes unknown placeholders and ellipses, and fills known ones', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    const [command] = words('x $PG_URL "${PG_URL}" $OTHER <url> <token> $(date -u | tr a b) ... …', {
      PG_URL: 'pg',
      '<token>': 't',
    });
    expect(command!.words.slice(0, 3)).toEqual(['x', 'pg', 'pg']);
    expect(command!.placeholders).toEqual(['$OTHER', '<url>', '$(date -u | tr a b)']);
    expect(command!.ellipsis).toBe(true);
  });

  it('finds the program after npx, node, pnpm and --', () => {
    const call = (line: string) => invocation(shellCommands(line)[0]!.words);
    expect(call('npx -y -p @mcp-db-bench/server -p pg mcp-db-server --http')).toEqual({
      program: 'mcp-db-server',
      args: ['--http'],
    });
    expect(call('npx @mcp-db-bench/server --url x')?.program).toBe('mcp-db-server');
    expect(call('node ../base/apps/cli/dist/bin.js run')).toEqual({ program: 'mcp-db-bench', args: ['run'] });
    expect(call('pnpm mcp-db-bench report r.json')?.args).toEqual(['report', 'r.json']);
    expect(call('claude mcp add db -e A=b -- npx mcp-db-server')?.program).toBe('mcp-db-server');
    expect(call('do mcp-db-bench run')?.program).toBe('mcp-db-bench');
    expect(call('kubectl logs job/mcp-db-bench-merge')).toBeUndefined();
    expect(call('npx some-mcp-server --db x')).toBeUndefined();
  });

  it('joins continuation lines and reads console fences by their prompt only', () => {
    const md = [
      '```console',
      '$ mcp-db-bench report a.json \\',
      '  --format json',
      'mcp-db-bench 0.1.0 · output',
      '```',
    ];
    expect(docCommands('x.md', md.join('\n'), {})).toEqual([
      {
        file: 'x.md',
        line: 2,
        text: 'mcp-db-bench report a.json --format json',
        program: 'mcp-db-bench',
        args: ['report', 'a.json', '--format', 'json'],
        env: {},
      },
    ]);
  });
});

describe("docs/reports.md's thresholds example", () => {
  const example = found.find((c) => c.file === 'docs/reports.md' && c.args.includes('--threshold'));
  /** Every value of `flag` in the example's arguments. */
  const values = (flag: string) => example!.args.flatMap((arg, i, args) => (arg === flag ? [args[i + 1]!] : []));

  it('judges one index round, so the baseline round cannot fail it', () => {
    expect(example, 'the example is in docs/reports.md').toBeDefined();
    expect(values('--indexes')).toEqual(['optimized']);
  });

  it('names only workloads and agent counts it runs: a threshold that names no step exits 1', () => {
    const workloads = values('--workloads').flatMap((v) => v.split(','));
    const agents = values('--agents').flatMap((v) => v.split(',').map(Number));
    const thresholds = values('--threshold').map((text) => parseThreshold(text, workloads));
    expect(thresholds.length).toBeGreaterThan(1);
    for (const t of thresholds) {
      if (t.workload !== undefined) expect(workloads, t.text).toContain(t.workload);
      if (t.agents !== undefined) expect(agents, t.text).toContain(t.agents);
    }
  });
});
