import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type PlanTarget, runPlan, summarize, WORKLOADS } from '@mcp-db-bench/agent';
import { LEGACY_REVISION, MODERN_REVISION, type StepResult } from '@mcp-db-bench/contract';
import { engineForUrl, redactUrl } from '@mcp-db-bench/server';
import { Command, InvalidArgumentError, Option } from 'commander';
import { agentsOption, dbListOption, examples, type Format, formatOption, scaleOption, seedOption, workersOption } from '../options.js';
import { callsPerSecond, int, median, spread } from '../render/numbers.js';
import { type Section, toMarkdown, toTerminal } from '../render/table.js';
import { parseDuration, parseList, parsePositiveInt } from '../parse/durations.js';
import { ownedDatabase, workersFor } from '../serving/database.js';
import { environment } from '../serving/environment.js';
import { FLOOR_LABEL, startHttpFloor } from '../serving/http-floor.js';
import { cleanUpOnSignals, makeTempDir, removeTempDir } from '../serving/interrupt.js';
import { eraLabel } from '../serving/labels.js';
import { seedIfMissing } from '../serving/seed-if-missing.js';
import { startServer } from '../serving/server-process.js';

type Era = 'legacy' | 'modern';

interface FloorFlags {
  db?: string[];
  protocol: Era[];
  agents: number[];
  iterations: number;
  duration: number;
  warmup: number;
  slices: number;
  workers: number;
  scale: number;
  seed: number;
  format: Format;
  out?: string;
}

/** The workloads the floor table compares: a point read and a foreign-key filter. */
const WORKLOAD_NAMES = ['point-read', 'filtered'] as const;

/** Calls and latencies of one side of a comparison, over all its slices. */
interface Side {
  calls: number;
  durationMs: number;
  /** the load generator's CPU per call, microseconds: when ours is far above the floor's, the client is part of the gap */
  clientCpuUs: number;
  /** encoded HdrHistogram, microseconds */
  histogram: string;
}

/** One warm session start: describing the task's tables, and every table. */
interface Session {
  target: string;
  iteration: number;
  p50Us: number;
  p99Us: number;
  fullP50Us: number;
}

/** One lookup at 1 agent, p50: the same statement through the database driver alone, and as the whole MCP call. */
interface Cost {
  target: string;
  operation: string;
  rawUs: number;
  fullUs: number;
}

interface Sample {
  target: string;
  workload: string;
  agents: number;
  iteration: number;
  ours: Side;
  floor: Side;
}

export function floorCommand(): Command {
  return new Command('floor')
    .description(
      'the protocol floor table: our server (lean client, each protocol era in turn) against a bare node:http echo measured in the same run, ' +
        'per database and agent count, with each iteration\'s floor measured right before the calls it is compared with',
    )
    .addOption(dbListOption('databases to measure, in turn (default: a new SQLite file in a temporary directory)'))
    .addOption(
      new Option('--protocol <list>', `protocol eras, alternated within each step: legacy (${LEGACY_REVISION} initialize and a session, what hosts speak), modern (${MODERN_REVISION})`)
        .default(['legacy', 'modern'] as Era[], 'legacy,modern')
        .argParser(parseList(parseEra)),
    )
    .addOption(agentsOption([1, 10], 'agent counts, comma-separated'))
    .addOption(new Option('--iterations <n>', 'repetitions; the table shows the median and the range').default(3).argParser(parsePositiveInt('iterations')))
    .addOption(new Option('--duration <time>', 'measured time per step').default(3000, '3s').argParser(parseDuration))
    .addOption(new Option('--warmup <time>', 'unmeasured warm-up before each step').default(1000, '1s').argParser(parseDuration))
    .addOption(
      new Option('--slices <n>', 'each step alternates the floor and our server this many times, so drift on a shared machine hits both alike')
        .default(3)
        .argParser(parsePositiveInt('slices')),
    )
    .addOption(workersOption())
    .addOption(scaleOption('dataset scale when seeding (0.01 = 25,600 rows)'))
    .addOption(seedOption())
    .addOption(formatOption('on stdout: the tables, or the raw samples (json, as --out writes them)'))
    .option('--out <file>', 'also write the raw samples (JSON)')
    .addHelpText(
      'after',
      examples('mcp-db-bench floor', 'mcp-db-bench floor --agents 1 --protocol modern --format markdown', 'mcp-db-bench floor --db postgres://bench:bench@127.0.0.1:5432/bench --workers 2 --out floor.json'),
    )
    .action(async (flags: FloorFlags) => {
      cleanUpOnSignals();
      const { samples, sessions, costs } = await measure(flags);
      const raw = `${JSON.stringify({ environment: environment(), flags, samples, sessions, costs }, null, 2)}\n`;
      if (flags.out) writeFileSync(flags.out, raw);
      if (flags.format === 'json') return void process.stdout.write(raw);
      const sections = render(samples, sessions, costs, flags);
      process.stdout.write(flags.format === 'markdown' ? toMarkdown(sections) : toTerminal(sections));
    });
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function parseEra(value: string): Era {
  if (value !== 'legacy' && value !== 'modern') throw new InvalidArgumentError(`protocol must be legacy or modern, not ${value}`);
  return value;
}

/** Each era's own floor: measured in the turn right before it, so each is compared with the floor of its moment. */
const floorLabel = (era: string) => `${FLOOR_LABEL} before ${era}`;

async function measure(flags: FloorFlags) {
  const tempDir = flags.db ? undefined : makeTempDir('mcp-db-bench-floor-');
  const dbs = flags.db ?? [`sqlite:${join(tempDir!, 'bench.db')}`];
  const sessions: Session[] = [];
  const costs: Cost[] = [];
  const floors = new Map<string, StepResult>();
  const stops: Array<() => unknown> = [];
  try {
    const floor = await startHttpFloor();
    stops.push(floor.stop);
    const targets: PlanTarget[] = [];
    for (const url of dbs) {
      const engine = engineForUrl(url).name;
      await seedIfMissing(url, { scale: flags.scale, seed: flags.seed, indexes: 'optimized' }, log);
      const { reindex, driver } = await ownedDatabase(url, 'optimized', log);
      const server = await startServer(url, ['--workers', String(workersFor(url, flags.workers, log))]);
      stops.push(server.stop);
      targets.push(
        ...flags.protocol.flatMap((era): PlanTarget[] => [
          // the floor's agents make the same raw echo call whatever the workload
          { label: floorLabel(eraLabel(engine, era)), agent: floor.agent },
          {
            label: eraLabel(engine, era),
            client: () => createClient({ kind: 'http', url: server.endpoint }, { client: 'lean', protocol: era, timeoutMs: 30_000 }),
            reindex,
            driver,
          },
        ]),
      );
    }
    const result = await runPlan(
      {
        targets,
        indexes: ['optimized'],
        workloads: WORKLOAD_NAMES.map((name) => WORKLOADS[name]!),
        agents: flags.agents,
        iterations: flags.iterations,
        repeat: 'plan',
        warmupMs: flags.warmup,
        durationMs: flags.duration,
        seed: flags.seed,
        slices: flags.slices,
        // Compile the hot paths (in every worker, both eras) before anything is measured.
        warmUp: { workload: WORKLOADS.mixed!, agents: 4, durationMs: 2000 },
        sessionInit: true,
        decomposition: true,
      },
      {
        on: (event) => {
          if (event.type === 'log') log(event.line);
          if (event.type === 'step-end') {
            const { target, workload, agents, iteration } = event.step;
            if (target.startsWith(FLOOR_LABEL)) return void floors.set(target, event.step);
            const errors = Object.entries(event.step.errors);
            if (errors.length) throw new Error(`${target} ${workload} × ${agents}: ${errors.map(([k, n]) => `${n} × ${k}`).join(', ')}`);
            const ours = callsPerSecond(event.step);
            const echo = callsPerSecond(floors.get(floorLabel(target))!);
            log(`${target} ${workload} × ${agents} #${iteration}: ${ours.toFixed(0)} calls/s, floor ${echo.toFixed(0)} (${(ours / echo).toFixed(2)}×)`);
          }
          if (event.type === 'session-init') {
            const { target, warm, full } = event.result;
            const init = summarize(warm.histogram);
            const every = summarize(full!.histogram);
            sessions.push({ target, iteration: event.iteration, p50Us: init.p50, p99Us: init.p99, fullP50Us: every.p50 });
            log(`${target} session init (warm) #${event.iteration}: p50 ${ms(init.p50)} ms, every table ${ms(every.p50)} ms`);
          }
          if (event.type === 'decomposition') {
            for (const d of event.results) costs.push({ target: d.target, operation: d.operation, rawUs: summarize(d.raw.histogram).p50, fullUs: summarize(d.full.histogram).p50 });
          }
        },
      },
    );
    return { samples: pair(result.steps), sessions, costs };
  } finally {
    for (const stop of stops.reverse()) await stop();
    if (tempDir) removeTempDir(tempDir);
  }
}

/** Each of our steps beside the floor measured in the turns right before its own. */
function pair(steps: readonly StepResult[]): Sample[] {
  const side = (s: StepResult): Side => ({ calls: s.calls, durationMs: s.durationMs, clientCpuUs: s.client.cpuPerCallUs, histogram: s.all.histogram });
  return steps
    .filter((s) => !s.target.startsWith(FLOOR_LABEL))
    .map((s) => {
      const floor = steps.find((f) => f.target === floorLabel(s.target) && f.workload === s.workload && f.agents === s.agents && f.iteration === s.iteration)!;
      return { target: s.target, workload: s.workload, agents: s.agents, iteration: s.iteration, ours: side(s), floor: side(floor) };
    });
}

const rate = callsPerSecond;
const ms = (us: number) => (us / 1000).toFixed(2);
const ratio = (n: number) => n.toFixed(2);

function render(samples: Sample[], sessions: Session[], costs: Cost[], flags: FloorFlags): Section[] {
  const command = `mcp-db-bench floor ${process.argv.slice(3).map((a) => (a.includes('://') ? redactUrl(a) : a)).join(' ')}`.trim();
  const groups = new Map<string, Sample[]>();
  for (const s of samples) {
    const key = `${s.target}\u0000${s.workload}\u0000${s.agents}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const rows = [...groups.values()].map((g) => {
    const { target, workload, agents } = g[0]!;
    const ours = g.map((s) => summarize(s.ours.histogram));
    return [
      target,
      workload,
      String(agents),
      spread(g.map((s) => rate(s.ours)), int),
      spread(ours.map((o) => o.p50), ms),
      spread(ours.map((o) => o.p99), ms),
      spread(g.map((s) => rate(s.floor)), int),
      spread(g.map((s) => rate(s.ours) / rate(s.floor)), ratio),
      `${int(median(g.map((s) => s.ours.clientCpuUs)))} / ${int(median(g.map((s) => s.floor.clientCpuUs)))}`,
    ];
  });
  const targets = [...new Set(sessions.map((s) => s.target))];
  const env = environment();
  return [
    {
      title: 'Our server against the bare node:http echo floor, same run',
      note:
        `\`${command}\`: ${flags.iterations} iterations of ${flags.duration / 1000} s per step (in ${flags.slices} slices alternating with the floor), median (min–max); ` +
        `server with ${flags.workers} worker process(es); ${env.cpus} × ${env.cpuModel}, Node ${env.node}, load average ${env.loadAverage.map((l) => l.toFixed(2)).join(' ')}`,
      head: ['database and era', 'workload', 'agents', 'calls/s', 'p50 ms', 'p99 ms', 'echo floor calls/s', 'ratio', 'client CPU µs/call (ours / floor)'],
      rows,
    },
    {
      title: 'Session init (warm): initialize and initialized (2025) or discover (2026), tools/list, list_tables, describe_table for the task\'s 3 tables; and for every table',
      head: ['database and era', 'p50 ms', 'p99 ms', 'every table p50 ms'],
      rows: targets.map((t) => {
        const mine = sessions.filter((s) => s.target === t);
        return [t, spread(mine.map((s) => s.p50Us), ms), spread(mine.map((s) => s.p99Us), ms), spread(mine.map((s) => s.fullP50Us), ms)];
      }),
    },
    {
      title: 'What MCP adds to a call, per engine (1 agent, p50): the same statement through the driver alone, and as the tool call',
      head: ['database and era', 'operation', 'driver alone µs', 'tool call µs', 'MCP adds µs'],
      rows: [...new Set(costs.map((c) => `${c.target}\u0000${c.operation}`))].map((key) => {
        const mine = costs.filter((c) => `${c.target}\u0000${c.operation}` === key);
        const { target, operation } = mine[0]!;
        return [target, operation, spread(mine.map((c) => c.rawUs), int), spread(mine.map((c) => c.fullUs), int), spread(mine.map((c) => c.fullUs - c.rawUs), int)];
      }),
    },
  ];
}
