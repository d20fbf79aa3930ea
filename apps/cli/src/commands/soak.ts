import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, errorTotal, runPlan, summarize, WORKLOADS } from '@mcp-db-bench/agent';
import { Command, InvalidArgumentError, Option } from 'commander';
import { LEGACY_REVISION, MODERN_REVISION } from '@mcp-db-bench/contract';
import { DB_ENV, examples, type Format, formatOption, scaleOption, seedOption, workersOption } from '../options.js';
import { callsPerSecond, median } from '../render/numbers.js';
import { REFUSED } from '../render/report.js';
import { logLine, progress } from '../render/progress.js';
import { type Section, toMarkdown, toTerminal } from '../render/table.js';
import { parseDuration, parsePositiveInt } from '../parse/durations.js';
import { treeMemory } from '../serving/process-memory.js';
import { workersFor } from '../serving/database.js';
import { cleanUpOnSignals, makeTempDir, removeTempDir } from '../serving/interrupt.js';
import { seedIfMissing } from '../serving/seed-if-missing.js';
import { startServer } from '../serving/server-process.js';
import type { ProtocolChoice } from '../serving/labels.js';
import { testDelayWarning } from '../warnings.js';

interface SoakFlags {
  db?: string;
  agents: number;
  duration: number;
  warmup: number;
  every: number;
  workloads: string;
  workload?: string;
  workers: number;
  protocol: ProtocolChoice;
  scale: number;
  seed: number;
  format: Format;
  out?: string;
}

/** A memory sample: milliseconds since the measured part began, resident bytes of the server's processes. */
interface MemorySample {
  atMs: number;
  rss: number;
}

export function soakCommand(): Command {
  return new Command('soak')
    .description(
      "hold N agents against our server for a long time and watch the server's memory (all its processes): peak, and growth from the start to the end; the load is run's, as --stages 0s:N,DURATION:N",
    )
    .addOption(new Option('--db <url>', 'database to serve (default: a new SQLite file in a temporary directory)').env(DB_ENV))
    .addOption(new Option('--agents <n>', 'concurrent agents').default(50).argParser(parsePositiveInt('agents')))
    .addOption(new Option('--duration <time>', 'measured time').default(600_000, '10m').argParser(parseDuration))
    .addOption(new Option('--warmup <time>', 'load before memory is watched (the heap settles)').default(30_000, '30s').argParser(parseDuration))
    .addOption(new Option('--every <time>', 'memory sampling interval, in whole seconds').default(5000, '5s').argParser((v: string) => Math.ceil(parseDuration(v) / 1000) * 1000))
    .addOption(new Option('--workloads <name>', 'what the agents do: one workload, for the whole soak').default('mixed').argParser(parseOneWorkload))
    // the old spelling, kept for scripts
    .addOption(new Option('--workload <name>').argParser(parseOneWorkload).hideHelp())
    .addOption(
      new Option('--protocol <era>', `the agents' MCP era: modern (${MODERN_REVISION}, stateless) or legacy (${LEGACY_REVISION}: a session per agent, or per operation with session-churn)`)
        .choices(['modern', 'legacy'])
        .default('modern'),
    )
    .addOption(workersOption())
    .addOption(scaleOption('dataset scale when seeding (0.01 = 25,600 rows)'))
    .addOption(seedOption())
    .addOption(formatOption('on stdout: the tables, or the samples (json, as --out writes them)'))
    .option('--out <file>', 'also write the samples (JSON)')
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench soak --duration 1m',
        'mcp-db-bench soak --agents 200 --workloads point-read --duration 30m --out soak.json',
        'mcp-db-bench soak --workloads session-churn --protocol legacy --duration 10m',
      ),
    )
    .action(async (flags: SoakFlags) => {
      flags.workloads = flags.workload ?? flags.workloads;
      delete flags.workload;
      cleanUpOnSignals();
      const result = await soak(flags);
      const raw = `${JSON.stringify({ flags, ...result }, null, 2)}\n`;
      if (flags.out) writeFileSync(flags.out, raw);
      if (result.errors > 0) process.exitCode = 1;
      if (flags.format === 'json') return void process.stdout.write(raw);
      const sections = render(result, flags);
      process.stdout.write(flags.format === 'markdown' ? toMarkdown(sections) : toTerminal(sections));
    });
}

/** Soak holds one workload: a name, not a list. */
function parseOneWorkload(name: string): string {
  if (name.includes(',')) throw new InvalidArgumentError('soak runs one workload at a time');
  if (!(name in WORKLOADS)) throw new InvalidArgumentError(`unknown workload ${name}; workloads: ${Object.keys(WORKLOADS).join(', ')}`);
  return name;
}

async function soak(flags: SoakFlags) {
  const tempDir = flags.db ? undefined : makeTempDir('mcp-db-bench-soak-');
  const url = flags.db ?? `sqlite:${join(tempDir!, 'bench.db')}`;
  const log = logLine;
  try {
    await seedIfMissing(url, { scale: flags.scale, seed: flags.seed, indexes: 'optimized' }, log);
    const server = await startServer(url, ['--workers', String(workersFor(url, flags.workers, log))]);
    try {
      const pid = server.child.pid!;
      if (treeMemory(pid) === undefined) throw new Error('soak reads memory from /proc: it runs on Linux only');
      const samples: MemorySample[] = [];
      const show = progress();
      // a preset of `run --stages`: one stage that jumps to the agents and holds them (0s:N,DURATION:N)
      const hold = [
        { durationMs: 0, target: flags.agents },
        { durationMs: flags.duration, target: flags.agents },
      ];
      const result = await runPlan(
        {
          targets: [{ label: 'soak', client: () => createClient({ kind: 'http', url: server.endpoint }, { client: 'lean', protocol: flags.protocol, timeoutMs: 30_000 }) }],
          indexes: [],
          workloads: [WORKLOADS[flags.workloads]!],
          agents: [flags.agents],
          stages: { kind: 'agents', stages: hold },
          iterations: 1,
          warmupMs: flags.warmup,
          durationMs: flags.duration,
          seed: flags.seed,
        },
        {
          on: (event) => {
            show(event);
            // The measured part starts after the warm-up: memory is sampled on its seconds.
            if (event.type === 'interval') sample(samples, event.atMs, flags.every, pid, log);
          },
        },
      );
      const m = result.steps[0]!;
      // per second: what the server served while its memory was sampled (histograms left to run's result file)
      const intervals = m.intervals.map(({ atMs, agents, calls, errors }) => ({ atMs, agents, calls, errors }));
      // soak always starts our server, which inherits the test-only delay: say so, as run does
      const delayed = testDelayWarning({});
      const warnings = [...result.warnings, ...(delayed ? [delayed] : [])];
      // errors by kind (a refused session start is `http_503`) and sessions the server ended under the agents
      const sessions = { refused: m.errors[REFUSED] ?? 0, reinitialized: m.reinitialized ?? 0 };
      return { samples, calls: m.calls, errors: errorTotal(m), errorKinds: m.errors, ...sessions, durationMs: m.durationMs, latency: summarize(m.all.histogram), intervals, warnings };
    } finally {
      await server.stop();
    }
  } finally {
    if (tempDir) removeTempDir(tempDir);
  }
}

/** A sample when the window opens, then each `every` ms of it (on the whole second at or after). */
function sample(samples: MemorySample[], atMs: number, every: number, pid: number, log: (line: string) => void): void {
  const last = samples.at(-1);
  if (last !== undefined && atMs < last.atMs + every) return;
  samples.push({ atMs, rss: treeMemory(pid) ?? 0 });
  if (atMs > 0) log(`${(atMs / 1000).toFixed(0)} s: server ${mb(samples.at(-1)!.rss)} MB`);
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Growth: the median of the last tenth of the samples against the median of the first tenth. */
function growth(samples: MemorySample[]): { start: number; end: number; ratio: number } {
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  // memory moves with every collection, so the ends are compared as medians
  const start = median(samples.slice(0, tenth).map((s) => s.rss));
  const end = median(samples.slice(-tenth).map((s) => s.rss));
  return { start, end, ratio: start ? end / start - 1 : 0 };
}

function render(r: Awaited<ReturnType<typeof soak>>, flags: SoakFlags): Section[] {
  const g = growth(r.samples);
  const peak = Math.max(...r.samples.map((s) => s.rss));
  const command = `mcp-db-bench soak ${process.argv.slice(3).join(' ')}`.trim();
  const minute = Math.max(1, Math.round(60_000 / flags.every));
  return [
    ...(r.warnings.length ? [{ title: 'Warnings', head: ['warning'], rows: r.warnings.map((w) => [w]) }] : []),
    {
      title: `Server memory under ${flags.agents} agents (${flags.workloads}, ${flags.protocol} protocol), ${flags.workers} worker process(es)`,
      note: `\`${command}\`: ${(r.durationMs / 1000).toFixed(0)} s measured after ${(flags.warmup / 1000).toFixed(0)} s of warm-up; memory of the server and its workers (each process's anonymous pages, plus the shared file pages once)`,
      head: ['operations', 'calls/s', 'errors', 'refused', 're-initialized', 'p50 ms', 'p99 ms', 'start MB', 'end MB', 'peak MB', 'growth'],
      rows: [
        [
          r.calls.toLocaleString('en-US'),
          callsPerSecond(r).toFixed(0),
          String(r.errors),
          String(r.refused),
          String(r.reinitialized),
          (r.latency.p50 / 1000).toFixed(2),
          (r.latency.p99 / 1000).toFixed(2),
          mb(g.start),
          mb(g.end),
          mb(peak),
          `${(g.ratio * 100).toFixed(1)}%`,
        ],
      ],
    },
    {
      title: 'Memory over time (one sample a minute)',
      head: ['at', 'MB'],
      rows: r.samples.filter((_, i) => i % minute === 0 || i === r.samples.length - 1).map((s) => [`${(s.atMs / 1000).toFixed(0)} s`, mb(s.rss)]),
    },
  ];
}
