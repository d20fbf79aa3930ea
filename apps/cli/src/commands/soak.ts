import {
  failedCalls,
  LEGACY_REVISION,
  MODERN_REVISION,
  type ResultFile,
  type RunDescription,
  type ServerMemory,
} from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import { createClient, runPlan, WORKLOADS } from '@mcp-db-bench/loadgen';
import { soakReport, toMarkdown, toTerminal, writeResultFile } from '@mcp-db-bench/report';
import { Command, Option } from 'commander';
import { eraLabel, type ProtocolChoice } from '../labels.js';
import {
  checkOutputPath,
  DB_ENV,
  examples,
  type Format,
  formatOption,
  outOption,
  parseDbUrl,
  scaleOption,
  seedOption,
  workersOption,
} from '../options.js';
import { parseDuration, parsePositiveInt } from '../parse/durations.js';
import { parseOneWorkload } from '../parse/values.js';
import { logLine, progress, stdoutColumns } from '../render/progress.js';
import { commandLine, resultOf } from '../results.js';
import { engineName } from '../serving/facts.js';
import { withServing } from '../serving/lifecycle.js';
import { treeMemory } from '../serving/process-memory.js';
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

export function soakCommand(): Command {
  return (
    new Command('soak')
      .description(
        "hold N agents against our server for a long time and watch the server's memory (all its processes): peak, " +
          "and growth from the start to the end; the load is run's, as --stages 0s:N,DURATION:N",
      )
      .addOption(
        new Option('--db <url>', 'database to serve (default: a new SQLite file in a temporary directory)')
          .env(DB_ENV)
          .argParser(parseDbUrl),
      )
      .addOption(new Option('--agents <n>', 'concurrent agents').default(50).argParser(parsePositiveInt('agents')))
      .addOption(new Option('--duration <time>', 'measured time').default(600_000, '10m').argParser(parseDuration))
      .addOption(
        new Option('--warmup <time>', 'load before memory is watched (the heap settles)')
          .default(30_000, '30s')
          .argParser(parseDuration),
      )
      .addOption(
        new Option('--every <time>', 'memory sampling interval, in whole seconds')
          .default(5000, '5s')
          .argParser((v: string) => Math.ceil(parseDuration(v) / 1000) * 1000),
      )
      .addOption(
        new Option('--workloads <name>', 'what the agents do: one workload, for the whole soak')
          .default('mixed')
          .argParser(parseOneWorkload),
      )
      // the old spelling, kept for scripts
      .addOption(new Option('--workload <name>').argParser(parseOneWorkload).hideHelp())
      .addOption(
        new Option(
          '--protocol <era>',
          `the agents' MCP era: modern (${MODERN_REVISION}, stateless) or legacy (${LEGACY_REVISION}: a session per ` +
            `agent, or per operation with session-churn)`,
        )
          .choices(['modern', 'legacy'])
          .default('modern'),
      )
      .addOption(workersOption())
      .addOption(scaleOption('dataset scale when seeding'))
      .addOption(seedOption())
      .addOption(formatOption('on stdout: the tables, or the result file (json, as --out writes it)'))
      .addOption(outOption('also write the result file (report and compare read it)'))
      .addHelpText(
        'after',
        examples(
          'mcp-db-bench soak --duration 1m',
          'mcp-db-bench soak --agents 200 --workloads point-read --duration 30m --out soak.json',
          'mcp-db-bench soak --workloads session-churn --protocol legacy --duration 10m',
        ),
      )
      .action(async (flags: SoakFlags) => {
        checkOutputPath('--out', flags.out);
        // the old spelling wins when given: a new configuration, the parsed flags left as they are
        const result = await soak({ ...flags, workloads: flags.workload ?? flags.workloads });
        if (flags.out) writeResultFile(flags.out, result);
        if (result.steps.some((s) => failedCalls(s) > 0)) process.exitCode = 1;
        if (flags.format === 'json') return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        const sections = soakReport(result);
        process.stdout.write(
          flags.format === 'markdown' ? toMarkdown(sections) : toTerminal(sections, stdoutColumns()),
        );
      })
  );
}

function soak(flags: SoakFlags): Promise<ResultFile> {
  const log = logLine;
  return withServing({ db: flags.db === undefined ? undefined : [flags.db], temporary: true }, async (serving) => {
    const db = serving.databases[0]!;
    await serving.prepare(db, { scale: flags.scale, seed: flags.seed, indexes: 'optimized' });
    const name = await engineName(db);
    const server = await serving.server(db, { workers: flags.workers });
    const pid = server.child.pid!;
    if (treeMemory(pid) === undefined) throw new Error('soak reads memory from /proc: it runs on Linux only');
    const label = eraLabel(name, flags.protocol);
    const memory: ServerMemory = { target: label, everyMs: flags.every, samples: [] };
    const show = progress();
    // a preset of `run --stages`: one stage that jumps to the agents and holds them (0s:N,DURATION:N)
    const hold = [
      { durationMs: 0, target: flags.agents },
      { durationMs: flags.duration, target: flags.agents },
    ];
    const stages = { kind: 'agents' as const, stages: hold };
    // the run as its result file says it: the runner takes what it runs from it
    const config: RunDescription = {
      targets: [{ label, engine: name, url: redactUrl(db.url) }],
      workloads: [flags.workloads],
      agents: [flags.agents],
      durationMs: flags.duration,
      warmupMs: flags.warmup,
      iterations: 1,
      protocol: flags.protocol,
      client: 'lean',
      scale: flags.scale,
      seed: flags.seed,
      indexes: [],
      rate: null,
      stages,
      command: commandLine('soak'),
      workers: flags.workers,
    };
    const client = () =>
      createClient(
        { kind: 'http', url: server.endpoint },
        { client: 'lean', protocol: flags.protocol, timeoutMs: 30_000 },
      );
    const measured = await runPlan(
      { config, targets: [{ label, client }], workloads: [WORKLOADS[flags.workloads]!] },
      {
        on: (event) => {
          show(event);
          // The measured part starts after the warm-up: memory is sampled on its seconds.
          if (event.type === 'interval') sample(memory, event.atMs, pid, log);
        },
      },
    );
    // soak always starts our server, which inherits the test-only delay: say so, as run does
    const delayed = testDelayWarning({});
    if (delayed) measured.warnings.push(delayed);
    return { ...resultOf(measured), memory: [memory] };
  });
}

/** A sample when the window opens, then each `everyMs` of it (on the whole second at or after). */
function sample(memory: ServerMemory, atMs: number, pid: number, log: (line: string) => void): void {
  const last = memory.samples.at(-1);
  if (last !== undefined && atMs < last.atMs + memory.everyMs) return;
  const rss = treeMemory(pid) ?? 0;
  memory.samples.push({ atMs, rss });
  if (atMs > 0) log(`${(atMs / 1000).toFixed(0)} s: server ${(rss / 1024 / 1024).toFixed(1)} MB`);
}
