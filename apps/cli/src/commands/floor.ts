import {
  goodput,
  LEGACY_REVISION,
  MODERN_REVISION,
  type ResultFile,
  type RunDescription,
} from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import { cpuUnder, createClient, type PlanTarget, runPlan, WORKLOADS } from '@mcp-db-bench/loadgen';
import {
  FLOOR_LABEL,
  floorBefore,
  floorSections,
  ms,
  summarize,
  toMarkdown,
  toTerminal,
  writeResultFile,
} from '@mcp-db-bench/report';
import { Command, Option } from 'commander';
import { eraLabel } from '../labels.js';
import {
  agentsOption,
  checkOutputPath,
  dbListOption,
  examples,
  type Format,
  formatOption,
  outOption,
  scaleOption,
  seedOption,
  workersOption,
} from '../options.js';
import { parseDuration, parseList, parsePositiveInt } from '../parse/durations.js';
import { parseEra } from '../parse/values.js';
import { logLine, stdoutColumns } from '../render/progress.js';
import { commandLine, resultOf } from '../results.js';
import { engineName } from '../serving/facts.js';
import { withServing } from '../serving/lifecycle.js';

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

export function floorCommand(): Command {
  return new Command('floor')
    .description(
      'the protocol floor table: our server (lean client, each protocol era in turn) against a bare node:http echo ' +
        'measured in the same run, ' +
        "per database and agent count, with each iteration's floor measured right before the calls it is compared with",
    )
    .addOption(dbListOption('databases to measure, in turn (default: a new SQLite file in a temporary directory)'))
    .addOption(
      new Option(
        '--protocol <list>',
        `protocol eras, alternated within each step: legacy (${LEGACY_REVISION} initialize and a session, what hosts ` +
          `speak), modern (${MODERN_REVISION})`,
      )
        .default(['legacy', 'modern'] as Era[], 'legacy,modern')
        .argParser(parseList(parseEra)),
    )
    .addOption(agentsOption([1, 10], 'agent counts, comma-separated'))
    .addOption(
      new Option('--iterations <n>', 'repetitions; the table shows the median and the range')
        .default(3)
        .argParser(parsePositiveInt('iterations')),
    )
    .addOption(new Option('--duration <time>', 'measured time per step').default(3000, '3s').argParser(parseDuration))
    .addOption(
      new Option('--warmup <time>', 'unmeasured warm-up before each step').default(1000, '1s').argParser(parseDuration),
    )
    .addOption(
      new Option(
        '--slices <n>',
        'each step alternates the floor and our server this many times, so drift on a shared machine hits both alike',
      )
        .default(3)
        .argParser(parsePositiveInt('slices')),
    )
    .addOption(workersOption())
    .addOption(scaleOption('dataset scale when seeding'))
    .addOption(seedOption())
    .addOption(formatOption('on stdout: the tables, or the result file (json, as --out writes it)'))
    .addOption(outOption('also write the result file (report and compare read it)'))
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench floor',
        'mcp-db-bench floor --agents 1 --protocol modern --format markdown',
        'mcp-db-bench floor --db postgres://bench:bench@127.0.0.1:5432/bench --workers 2 --out floor.json',
      ),
    )
    .action(async (flags: FloorFlags) => {
      checkOutputPath('--out', flags.out);
      const result = await measure(flags);
      if (flags.out) writeResultFile(flags.out, result);
      if (flags.format === 'json') return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      const sections = floorSections(result);
      process.stdout.write(flags.format === 'markdown' ? toMarkdown(sections) : toTerminal(sections, stdoutColumns()));
    });
}

const log = logLine;

function measure(flags: FloorFlags): Promise<ResultFile> {
  return withServing({ db: flags.db, temporary: true }, async (serving) => {
    const floor = await serving.floor();
    const targets: PlanTarget[] = [];
    const entries: ResultFile['config']['targets'] = [];
    for (const db of serving.databases) {
      const owned = await serving.prepare(db, { scale: flags.scale, seed: flags.seed, indexes: 'optimized' });
      const name = await engineName(db);
      const server = await serving.server(db, { workers: flags.workers });
      for (const era of flags.protocol) {
        const label = eraLabel(name, era);
        entries.push(
          { label: floorBefore(label), engine: null, url: null },
          { label, engine: name, url: redactUrl(db.url) },
        );
        targets.push(
          // the floor's agents make the same raw echo call whatever the workload; each side's
          // server CPU per call beside the client's says which one a step's calls/s was bound by
          { label: floorBefore(label), agent: floor.agent, serverCpuUs: () => cpuUnder(floor.pid) },
          {
            label,
            serverCpuUs: () => cpuUnder(server.child.pid!),
            client: () =>
              createClient(
                { kind: 'http', url: server.endpoint },
                { client: 'lean', protocol: era, timeoutMs: 30_000 },
              ),
            ...owned,
          },
        );
      }
    }
    // the run as its result file says it: the runner takes what it runs from it
    const config: RunDescription = {
      targets: entries,
      workloads: [...WORKLOAD_NAMES],
      agents: flags.agents,
      durationMs: flags.duration,
      warmupMs: flags.warmup,
      iterations: flags.iterations,
      protocol: flags.protocol.join(','),
      client: 'lean',
      scale: flags.scale,
      seed: flags.seed,
      indexes: ['optimized'],
      rate: null,
      command: commandLine('floor'),
      workers: flags.workers,
      slices: flags.slices,
    };
    const floors = new Map<string, number>();
    const measured = await runPlan(
      {
        config,
        targets,
        workloads: WORKLOAD_NAMES.map((name) => WORKLOADS[name]!),
        repeat: 'plan',
        // Compile the hot paths (in every worker, both eras) before anything is measured.
        warmUp: { workload: WORKLOADS.mixed!, agents: 4, durationMs: 2000 },
        sessionInit: true,
        decomposition: true,
      },
      {
        on: (event) => {
          if (event.type === 'log') log(event.line);
          if (event.type === 'session-init') {
            const { target, warm, full } = event.result;
            const every = full ? `, every table ${ms(summarize(full.histogram).p50)} ms` : '';
            log(
              `${target} session init (warm) #${event.iteration}: p50 ${ms(summarize(warm.histogram).p50)} ms${every}`,
            );
          }
          if (event.type !== 'step-end') return;
          const { target, workload, agents, iteration } = event.step;
          if (target.startsWith(FLOOR_LABEL)) return void floors.set(target, goodput(event.step));
          const errors = Object.entries(event.step.errors);
          if (errors.length)
            throw new Error(`${target} ${workload} × ${agents}: ${errors.map(([k, n]) => `${n} × ${k}`).join(', ')}`);
          const ours = goodput(event.step);
          const echo = floors.get(floorBefore(target))!;
          log(
            `${target} ${workload} × ${agents} #${iteration}: ${ours.toFixed(0)} calls/s, floor ${echo.toFixed(0)} ` +
              `(${(ours / echo).toFixed(2)}×)`,
          );
        },
      },
    );
    return resultOf(measured);
  });
}
