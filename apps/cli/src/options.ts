import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { INDEX_SETS, type IndexSet, MAX_SCALE, rowCounts, TABLES } from '@mcp-db-bench/dataset';
import { engineForGivenUrl, URL_FORMS } from '@mcp-db-bench/engines';
import type { ReportFormat } from '@mcp-db-bench/report';
import { autoWorkerCount } from '@mcp-db-bench/server';
import { InvalidArgumentError, Option } from 'commander';
import { UsageError } from './errors.js';
import { parseList, parsePositiveInt } from './parse/durations.js';

/**
 * The CLI's grammar, defined once: the same idea has the same flag on every command, and its
 * value the same syntax. A flag names the idea (`--db`, `--indexes`, `--workloads`, `--agents`);
 * a command that takes one value where others take a list accepts a list of one (`soak
 * --agents 50`, `seed --indexes optimized`). Old spellings stay as hidden aliases.
 */

/** The default database of seed, index and serve: an embedded SQLite file in the working directory. */
export const DEFAULT_DB = 'sqlite:mcp-db-bench.db';
/** Every command that takes a database reads it from here when --db is not given. */
export const DB_ENV = 'MCP_DB_BENCH_DB';

export type Format = 'table' | 'markdown' | 'json';
/** report and compare also write a self-contained HTML page; report writes one run for Prometheus too. */
export type { ReportFormat };

/** Rows seed makes at `scale`, all its tables counted (the study's 8 and the write workloads' 3). */
const rowsAt = (scale: number) => Object.values(rowCounts(scale)).reduce((sum, n) => sum + n, 0);
/** What a scale means, from the dataset itself: `1 = 2.61 million rows in 11 tables, 0.01 = 26,100`. */
const SCALE_ROWS = `1 = ${(rowsAt(1) / 1e6).toFixed(2)} million rows in ${TABLES.length} tables, 0.01 = ${rowsAt(0.01).toLocaleString('en-US')}`;

export function parseScale(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > MAX_SCALE) {
    throw new InvalidArgumentError(`scale must be above 0 and at most ${MAX_SCALE} (${SCALE_ROWS})`);
  }
  return n;
}

export function parseSeed(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1)
    throw new InvalidArgumentError('seed must be a whole number from 0 to 2147483647');
  return n;
}

export function parseIndexSet(value: string): IndexSet {
  if (!(value in INDEX_SETS))
    throw new InvalidArgumentError(`index set must be one of: ${Object.keys(INDEX_SETS).join(', ')}`);
  return value as IndexSet;
}

/** A database URL whose scheme no engine takes, or that its engine refuses as written, is a command-line mistake (exit 2), found before any work. */
export function parseDbUrl(value: string): string {
  try {
    engineForGivenUrl(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return value;
}

/** One database, with the working directory's SQLite file as the default (seed, index, serve). */
export const dbOption = (description = `database URL: ${URL_FORMS}`) =>
  new Option('--db <url>', description).env(DB_ENV).default(DEFAULT_DB).argParser(parseDbUrl);

/**
 * Databases a benchmark starts our server on; without one it seeds a new SQLite file in a
 * temporary directory, removed afterwards. `checked: false` takes any text (doctor reports each).
 */
export const dbListOption = (description: string, checked = true) => {
  const option = new Option('--db <url...>', description).env(DB_ENV);
  return checked
    ? option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), parseDbUrl(value)])
    : option;
};

/** --band: the claims rules' practical band, a percentage (10: ±10%), as the factor the rules take (1.1). */
export function parseBand(value: string): number {
  const n = Number(value.replace(/%$/, ''));
  if (!Number.isFinite(n) || n <= 0 || n > 100)
    throw new InvalidArgumentError('--band must be a percentage above 0 and at most 100 (e.g. 10 for ±10%)');
  return 1 + n / 100;
}

/** `run --band`, `study --band`: how far from 1 a ratio must be to be a difference worth claiming. */
export const bandOption = () =>
  new Option(
    '--band <pct>',
    'a ratio within ±pct% of 1 is no difference worth claiming: only one whose interval lies wholly outside it is ' +
      'a difference (default 10; the result file keeps it)',
  ).argParser(parseBand);

export const scaleOption = (what = 'dataset size') =>
  new Option('--scale <n>', `${what}: ${SCALE_ROWS}`).default(0.01).argParser(parseScale);

/** Each table's rows at scale 1, for help, in lines of at most 100 characters. */
export function rowsAtScaleOne(): string {
  const lines = [''];
  for (const [table, n] of Object.entries(rowCounts(1))) {
    const entry = `${table} ${n.toLocaleString('en-US')}`;
    if (lines.at(-1)!.length + entry.length > 96) lines.push('');
    lines[lines.length - 1] += `${lines.at(-1) ? '; ' : ''}${entry}`;
  }
  return lines.join(';\n');
}

export const seedOption = (description = 'random seed: the same seed gives the same rows on every engine') =>
  new Option('--seed <n>', description).default(42).argParser(parseSeed);

export const indexesOption = (
  description = 'baseline (primary keys only) or optimized (foreign-key and filter columns)',
) => new Option('--indexes <set>', description).default('optimized').argParser(parseIndexSet);

/** Concurrent agents: a comma-separated list, the default shown as it is typed. */
export const agentsOption = (
  defaults: number[],
  description = 'concurrent agents per step, comma-separated, e.g. 1,2,5,10,25,50',
) =>
  new Option('--agents <list>', description)
    .default(defaults, defaults.join(','))
    .argParser(parseList(parsePositiveInt('agents')));

/** Server worker processes: as many as mcp-db-server's own `auto` unless told, and help says so. */
export const workersOption = (description = 'server worker processes (mcp-db-server --workers)') => {
  const workers = autoWorkerCount();
  return new Option('--workers <n>', description)
    .default(workers, `one per core but one: ${workers} here`)
    .argParser(parsePositiveInt('workers'));
};

/** What a command prints on stdout: the same three formats everywhere, a table unless told. */
export const formatOption = (
  description = 'output on stdout',
  choices: readonly ReportFormat[] = ['table', 'markdown', 'json'],
) => new Option('--format <format>', description).choices(choices).default('table');

/** The old `--json`: `--format json`, kept so scripts do not break. */
export const jsonAlias = () => new Option('--json', 'same as --format json').implies({ format: 'json' }).hideHelp();

/** Examples at the end of a command's help. */
export const examples = (...lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/** Every output file is `-o, --out` (report and compare also take their old `--output`, hidden). */
export const outOption = (description: string) => new Option('-o, --out <file>', description);

/** A file a command will write, checked before the work that fills it: a finished run must not die at its last line. */
export function checkOutputPath(flag: string, path: string | undefined): void {
  if (path === undefined) return;
  const dir = dirname(resolve(path));
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`${flag} ${path}: there is no directory ${dir}`);
  const exists = existsSync(path);
  if (exists && statSync(path).isDirectory()) throw new UsageError(`${flag} ${path} is a directory: name a file`);
  const why = exists ? cannotOpen(path, 'a') : cannotCreateIn(dir);
  if (why) throw new UsageError(`${flag} ${path}: cannot write ${exists ? 'this file' : `in ${dir}`} (${why})`);
}

/** A directory a command will write files in (made if missing), checked the same way before the work. */
export function checkOutputDir(flag: string, dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new UsageError(`${flag} ${dir}: cannot make this directory (${codeOf(error)})`);
  }
  if (!statSync(dir).isDirectory()) throw new UsageError(`${flag} ${dir} is a file: name a directory`);
  const why = cannotCreateIn(dir);
  if (why) throw new UsageError(`${flag} ${dir}: cannot write in this directory (${why})`);
}

/**
 * Why a new file cannot be made in `dir`, or undefined: one is made and removed, since the
 * permission bits do not say (root passes them; a read-only or special file system does not).
 */
function cannotCreateIn(dir: string): string | undefined {
  const probe = join(dir, `.mcp-db-bench-${process.pid}-${Date.now()}.tmp`);
  const why = cannotOpen(probe, 'wx');
  if (why === undefined) rmSync(probe, { force: true });
  return why;
}

/** Why `path` cannot be opened with `flags` (nothing is written), or undefined. */
function cannotOpen(path: string, flags: string): string | undefined {
  try {
    closeSync(openSync(path, flags));
    return undefined;
  } catch (error) {
    return codeOf(error);
  }
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;
export const outputAlias = () => new Option('--output <file>').hideHelp();
