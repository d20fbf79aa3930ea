import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rowCounts, TABLES } from '@mcp-db-bench/dataset';
import { freePort } from '@mcp-db-bench/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, type CliRun, runCli, serversOn } from './support/cli.js';

/**
 * The CLI's errors as a user meets them: one line on stderr naming the file, URL or value it is
 * about, exit 2 for a mistake on the command line and 1 for a failure while running, and
 * Ctrl-C leaving nothing behind.
 */
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, timeoutMs: 60_000 });
}

/** The one line a failure prints, after checking it is the only one, with no stack and the given exit code. */
function failure(r: CliRun, code: 1 | 2): string {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^mcp-db-bench: \S/);
  return lines[0]!;
}

describe('report names the file it cannot use (exit 1)', () => {
  it('a missing file', async () => {
    expect(failure(await run(['report', 'missing.json']), 1)).toBe(
      'mcp-db-bench: cannot read the result file missing.json: no such file',
    );
  });

  it('a directory', async () => {
    mkdirSync(join(dir, 'results'), { recursive: true });
    expect(failure(await run(['report', 'results']), 1)).toBe(
      'mcp-db-bench: cannot read the result file results: it is a directory',
    );
  });

  it('broken JSON', async () => {
    writeFileSync(join(dir, 'broken.json'), '{"version": 1,');
    expect(failure(await run(['report', 'broken.json']), 1)).toMatch(
      /^mcp-db-bench: broken\.json is not JSON \(.+\): is it a result file written by run, floor or soak --out\?$/,
    );
  });

  it('JSON that is not a result file', async () => {
    writeFileSync(join(dir, 'other.json'), '{"name": "something else"}');
    expect(failure(await run(['report', 'other.json']), 1)).toMatch(
      /^mcp-db-bench: other\.json is not an mcp-db-bench result file: version: /,
    );
  });
});

describe('usage errors exit 2 and say what was meant', () => {
  it('a duration without its unit (1500 read as seconds was 25 minutes a step) names the units', async () => {
    expect(failure(await run(['run', '--duration', '1500']), 2)).toBe(
      'mcp-db-bench: --duration: a duration needs its unit, ms, s or m (1500ms or 1500s): 1500; see mcp-db-bench run --help',
    );
    expect(failure(await run(['run', '--stages', '5:1,2s:4']), 2)).toBe(
      'mcp-db-bench: --stages: "5:1": a duration needs its unit, ms, s or m (5ms or 5s): 5:1,2s:4; see mcp-db-bench run --help',
    );
  });

  it.each([
    ['report', 'r.json'],
    ['compare', 'a.json', 'b.json'],
    ['merge', 'a.json', 'b.json'],
  ])('%s -o into a missing directory, before reading anything', async (...args) => {
    expect(failure(await run([...args, '-o', 'nowhere/out.txt']), 2)).toBe(
      `mcp-db-bench: --out nowhere/out.txt: there is no directory ${join(dir, 'nowhere')}`,
    );
  });

  describe('an output that cannot be written, before any work: every command that writes a file', () => {
    // Root passes the permission bits: there, a file system that makes no files (sysfs) stands in.
    const locked = process.getuid?.() === 0 ? '/sys' : join(dir, 'locked');
    if (locked !== '/sys') {
      mkdirSync(locked, { recursive: true });
      chmodSync(locked, 0o555);
    }
    const file = join(locked, 'out.file');
    it.each([
      ['run', '--out'],
      ['run', '--html'],
      ['run', '--junit'],
      ['run', '--prometheus'],
      ['run --replay trace.jsonl', '--out'],
      ['floor', '--out'],
      ['soak', '--out'],
      ['record --target http://127.0.0.1:9/mcp', '--out'],
      ['report r.json', '--out'],
      ['compare a.json b.json', '--out'],
      ['merge a.json b.json', '--out'],
    ])('%s %s', async (command, flag) => {
      const line = failure(await run([...command.split(' '), flag, file]), 2);
      expect(line).toMatch(new RegExp(`^mcp-db-bench: ${flag} ${file}: cannot write in ${locked} \\(E[A-Z]+\\)$`));
    });

    it('study --out, a directory', async () => {
      const line = failure(await run(['study', '--out', join(locked, 'study')]), 2);
      expect(line).toMatch(
        new RegExp(`^mcp-db-bench: --out ${locked}/study: cannot make this directory \\(E[A-Z]+\\)$`),
      );
    });

    it('a file that exists and cannot be written', async () => {
      if (locked === '/sys') {
        const line = failure(await run(['floor', '--out', '/sys/kernel/notes']), 2);
        expect(line).toMatch(/^mcp-db-bench: --out \/sys\/kernel\/notes: cannot write this file \(E[A-Z]+\)$/);
      } else {
        const readOnly = join(dir, 'read-only.json');
        writeFileSync(readOnly, '');
        chmodSync(readOnly, 0o444);
        const line = failure(await run(['floor', '--out', readOnly]), 2);
        expect(line).toMatch(/cannot write this file \(EACCES\)$/);
      }
    });
  });

  it('an unknown command is not an argument of run: it lists the commands', async () => {
    expect(failure(await run(['frobnicate']), 2)).toBe(
      "mcp-db-bench: unknown command 'frobnicate' (commands: run, report, compare, merge, seed, index, serve, doctor, floor, soak, record, study); see mcp-db-bench --help",
    );
  });

  it('a mistyped command gets the closest one, also after options of run', async () => {
    expect(failure(await run(['sed', '--db', 'sqlite:x.db']), 2)).toBe(
      "mcp-db-bench: unknown command 'sed' (did you mean seed?); see mcp-db-bench --help",
    );
    expect(failure(await run(['--agents', '1', 'repot']), 2)).toBe(
      "mcp-db-bench: unknown command 'repot' (did you mean report?)",
    );
  });

  it('a mistyped option gets the closest one', async () => {
    expect(failure(await run(['run', '--agent', '1']), 2)).toBe(
      "mcp-db-bench: unknown option '--agent' (did you mean --agents?); see mcp-db-bench run --help",
    );
  });

  it('a bad value names the option and the value', async () => {
    expect(failure(await run(['seed', '--scale', '-1']), 2)).toMatch(
      /^mcp-db-bench: --scale must be above 0 .*: -1; see mcp-db-bench seed --help$/,
    );
  });

  it('--target not-a-url', async () => {
    expect(failure(await run(['run', '--target', 'not-a-url']), 2)).toBe(
      'mcp-db-bench: --target must be an http(s) URL: not-a-url; see mcp-db-bench run --help',
    );
  });

  it('--token without --target, before anything is seeded or started', async () => {
    const tmp = mkdtempSync(join(dir, 'token-'));
    expect(failure(await run(['run', '--token', 'abc'], { TMPDIR: tmp }), 2)).toBe(
      'mcp-db-bench: --token needs --target: it is the bearer token sent to that HTTP server',
    );
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('--db with --target', async () => {
    expect(failure(await run(['run', '--db', 'sqlite:x.db', '--target', 'http://127.0.0.1:1/mcp']), 2)).toMatch(
      /--db and --target cannot be used together/,
    );
  });

  it('a MySQL URL that names no database, before anything is seeded or started', async () => {
    expect(failure(await run(['run', '--db', 'mysql://bench:pw@127.0.0.1:1']), 2)).toBe(
      'mcp-db-bench: --db: the MySQL/MariaDB URL names no database: add it to the path, as in mysql://USER:PASS@HOST:3306/DB: mysql://bench:***@127.0.0.1:1; see mcp-db-bench run --help',
    );
  });

  it('a missing argument', async () => {
    expect(failure(await run(['report']), 2)).toBe(
      "mcp-db-bench: missing required argument 'file'; see mcp-db-bench report --help",
    );
  });

  it('index without a profile', async () => {
    expect(failure(await run(['index']), 2)).toBe(
      'mcp-db-bench: index needs --indexes baseline or --indexes optimized',
    );
  });

  it('soak takes one workload', async () => {
    expect(failure(await run(['soak', '--workloads', 'point-read,filtered']), 2)).toMatch(
      /--workloads: soak runs one workload at a time: point-read,filtered/,
    );
  });
});

describe('runtime failures exit 1 and name their target', () => {
  it('an unreachable --target: the URL and the reason in words', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    expect(failure(await run(['run', '--target', url, '--duration', '100ms']), 1)).toBe(
      `mcp-db-bench: cannot reach the target ${url}: connection refused`,
    );
  });

  it('--target-cmd of a command that is not an MCP server: what it did, not our own error echoed back', async () => {
    expect(failure(await run(['run', '--target-cmd', 'cat', '--duration', '100ms']), 1)).toBe(
      'mcp-db-bench: cat sent our initialize request back unchanged: it echoes its input and does not speak MCP over stdio',
    );
  });

  it('a database URL with a password: redacted in the message', async () => {
    const r = await run(['seed', '--db', 'postgres://bench:s3cret@127.0.0.1:1/bench']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('s3cret');
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^mcp-db-bench: postgres:\/\/bench:\*\*\*@127\.0\.0\.1:1\/bench: Cannot reach the PostgreSQL server/,
    );
  });

  it('run reads MCP_DB_BENCH_DB like seed, index and serve', async () => {
    const path = join(dir, 'no-such-dir', 'x.db');
    expect(failure(await run(['run', '--duration', '100ms'], { MCP_DB_BENCH_DB: `sqlite:${path}` }), 1)).toContain(
      `cannot open SQLite database ${path}`,
    );
  });
});

describe('help', () => {
  it.each([
    'run',
    'report',
    'compare',
    'merge',
    'seed',
    'index',
    'serve',
    'doctor',
    'floor',
    'soak',
    'record',
    'study',
  ])('%s --help ends with examples', async (command) => {
    const r = await run([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nExamples:\n( {2}\$ .*mcp-db-bench.*\n)+\n?$/);
    if (command !== 'run') expect(r.stdout).toMatch(new RegExp(`\\$ (MCP_DB_BENCH_DB=\\S+ )?mcp-db-bench ${command}`));
  });

  it.each(['run', 'report', 'compare', 'merge', 'floor', 'soak', 'record'])(
    '%s names its output file -o, --out',
    async (command) => {
      const help = (await run([command, '--help'])).stdout;
      expect(help).toMatch(/^ {2}-o, --out <file> /m);
      expect(help).not.toMatch(/--output/);
    },
  );

  it('prints defaults as they are typed and as the code uses them', async () => {
    const runHelp = (await run(['run', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(runHelp).toContain('(default: 1,4,16)');
    expect(runHelp).toMatch(/--format <format> .*\(choices: "table", "markdown", "json", default: "table"\)/);
    expect(runHelp).toContain('env: MCP_DB_BENCH_DB');
    for (const command of ['floor', 'soak']) {
      const help = (await run([command, '--help'])).stdout.replace(/\s+/g, ' ');
      expect(help).toMatch(/--workers <n> .*\(default: one per core but one: \d+ here\)/);
      expect(help).toContain('default: "table"');
      expect(help).toContain('env: MCP_DB_BENCH_DB');
    }
  });
});

describe('help counts the rows and tables seed makes', () => {
  // 0.01 seeds 26,100 rows in 11 tables (the study's 8 and the write workloads' 3), as seed's report says
  const rows = Object.values(rowCounts(0.01))
    .reduce((sum, n) => sum + n, 0)
    .toLocaleString('en-US');

  it.each(['seed', 'run', 'serve', 'floor', 'soak'])('%s --help', async (command) => {
    const help = (await run([command, '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain(`million rows in ${TABLES.length} tables, 0.01 = ${rows}`);
  });

  it('seed --help lists every table it makes', async () => {
    const help = (await run(['seed', '--help'])).stdout;
    for (const table of TABLES) expect(help).toMatch(new RegExp(`\\b${table.name} [\\d,]+[;.]`));
  });
});

describe('Ctrl-C', () => {
  it('in the first index round of a default run: the summary shows the steps it finished', async () => {
    // both index rounds, as the default runs them: Ctrl-C after the first step, which is baseline's
    // (the passes take turns and the last runs in plan order: with an odd count the first does too)
    const args = [
      'run',
      '--scale',
      '0.001',
      '--agents',
      '1',
      '--workloads',
      'point-read',
      '--indexes',
      'baseline,optimized',
    ];
    const child = spawn(
      process.execPath,
      [BIN, ...args, '--duration', '500ms', '--warmup', '100ms', '--iterations', '21'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no step within 60 s: ${stderr}`)), 60_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk;
        if (/\(baseline\) point-read × 1: [\d,]+ calls\/s/.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`run ended early: ${stderr}`)));
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code, stderr).toBe(130);
    expect(stdout).toMatch(/^partial: the run was interrupted; these are the \d+ step\(s\) it finished$/m);
    expect(stderr).not.toMatch(/\(optimized\) point-read × 1: /);
    expect(stdout).toMatch(/Summary \(baseline indexes/);
    expect(stdout).toMatch(/│ point-read │/);
  }, 120_000);

  it('stops the server run started, removes its temporary database and exits 130', async () => {
    const tmp = mkdtempSync(join(dir, 'sigint-'));
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--scale',
        '0.001',
        '--agents',
        '1',
        '--workloads',
        'point-read',
        '--duration',
        '60s',
        '--warmup',
        '100ms',
      ],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', TMPDIR: tmp },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no server within 60 s: ${stderr}`)), 60_000);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk;
        if (/our MCP server at/.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`run ended early: ${stderr}`)));
    });
    const made = readdirSync(tmp);
    expect(made).toHaveLength(1);
    expect(serversOn(join(tmp, made[0]!))).not.toEqual([]);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted: stopping \d+ process\(es\) and removing 1 temporary directory/);
    // the database's directory is gone; what is left is the kept result file of a run given no --out
    expect(readdirSync(tmp).filter((f) => f !== 'mcp-db-bench-results')).toEqual([]);
    expect(serversOn(join(tmp, made[0]!))).toEqual([]);
  }, 120_000);
});

describe('Ctrl-C', () => {
  it('writes every file asked for from the steps finished, marked partial, and prints their report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-partial-'));
    try {
      const [out, html, junit, prom] = ['partial.json', 'partial.html', 'partial.xml', 'partial.prom'].map((f) =>
        join(dir, f),
      ) as [string, string, string, string];
      const args = [
        'run',
        '--scale',
        '0.001',
        '--agents',
        '1,2',
        '--workloads',
        'point-read',
        '--indexes',
        'optimized',
      ];
      const child = spawn(
        process.execPath,
        [
          BIN,
          ...args,
          '--duration',
          '500ms',
          '--warmup',
          '100ms',
          '--iterations',
          '20',
          '--out',
          out,
          '--html',
          html,
          '--junit',
          junit,
          '--prometheus',
          prom,
        ],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      let stdout = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk;
      });
      // the first measured step's line, then the signal
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no step within 60 s: ${stderr}`)), 60_000);
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk;
          if (/point-read × 1: [\d,]+ calls\/s/.test(stderr)) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', () => reject(new Error(`run ended early: ${stderr}`)));
      });
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect(code, stderr).toBe(130);
      expect(stderr).toMatch(
        /\d+ finished step\(s\) written to .*partial\.json, .*partial\.html, .*partial\.xml, .*partial\.prom, marked partial/,
      );
      const file = JSON.parse(readFileSync(out, 'utf8')) as { partial?: boolean; steps: unknown[] };
      expect(file.partial).toBe(true);
      expect(file.steps.length).toBeGreaterThanOrEqual(1);
      expect(readFileSync(html, 'utf8')).toMatch(
        /partial: the run was interrupted; these are the \d+ step\(s\) it finished/,
      );
      expect(readFileSync(junit, 'utf8')).toMatch(/<property name="partial" value="true/);
      expect(readFileSync(prom, 'utf8')).toMatch(/^mcp_db_bench_run_partial 1$/m);
      // the report of the steps finished, on stdout
      expect(stdout).toMatch(/^partial: the run was interrupted; these are the \d+ step\(s\) it finished$/m);
      expect(stdout).toMatch(/Summary \(optimized indexes/);
      const report = await runCli(['report', out], { timeoutMs: 30_000 });
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout).toMatch(/^partial: the run was interrupted; these are the \d+ step\(s\) it finished$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
