/**
 * `run`'s options, declared by concern, in the order its help lists them; `config.ts` checks
 * what they give (the options that need or exclude each other) into the run's configuration.
 */

import { LEGACY_REVISION, MODERN_REVISION } from '@mcp-db-bench/contract';
import type { IndexSet } from '@mcp-db-bench/dataset';
import { DEFAULT_WORKLOADS, PEERS, WORKLOADS } from '@mcp-db-bench/loadgen';
import { parseThreshold, ThresholdSyntaxError } from '@mcp-db-bench/report';
import { InvalidArgumentError, Option } from 'commander';
import type { ProtocolChoice } from '../labels.js';
import {
  agentsOption,
  bandOption,
  dbListOption,
  formatOption,
  jsonAlias,
  outOption,
  parseIndexSet,
  scaleOption,
  seedOption,
} from '../options.js';
import { parseDuration, parseDurationAt, parseList, parsePositiveInt } from '../parse/durations.js';
import { parseStages } from '../parse/stages.js';
import {
  collect,
  parseCount,
  parseProtocol,
  parseTarget,
  parseThink,
  parseWorkload,
  parseWorkloadAgents,
} from '../parse/values.js';
import { parseCpuList } from '../serving/cpus.js';
import { LAUNCHERS, parsePeer } from '../serving/peers/index.js';
import { parseShard, parseStartAt } from '../serving/shard.js';
import { COMPARISON_ITERATIONS, COMPARISON_STEP_MS, RATE_STAGES_POOL } from './config.js';
import { REPLAY_WORKLOAD } from './replay.js';

/** The server's own variable for its bearer token (docs/server.md), so a job sets it once for both. */
const TOKEN_ENV = 'MCP_DB_TOKEN';

/** Every option of `run`, in help's order. */
export const runOptions = (): Option[] => [
  ...targetOptions(),
  scaleOption('dataset scale when seeding'),
  seedOption('seed for the dataset and the agents'),
  ...stepOptions(),
  ...loadShapeOptions(),
  ...protocolOptions(),
  formatOption('on stdout: the report as a table or Markdown, or the result file (json)'),
  jsonAlias(),
  outOption('also write the result file here'),
  ...shardOptions(),
  ...replayOptions(),
  ...reportOptions(),
  ...cpuOptions(),
];

/** What is benchmarked: our server on databases, or other servers and how to drive them. */
function targetOptions(): Option[] {
  return [
    dbListOption(
      'databases to benchmark through our MCP server; give several to compare engines (default: a new SQLite file ' +
        'in a temporary directory)',
    ),
    new Option(
      '--peer <name[=command]>',
      `also start another MCP server on each --db database and benchmark it beside ours, through its profile; ` +
        `${Object.values(LAUNCHERS)
          .map((l) => `${l.name}: ${l.summary}`)
          .join('; ')}; COMMAND: a program's path, a program on PATH or an npm package, with its own arguments; ` +
        'repeat for several',
    ).argParser(collect(parsePeer)),
    new Option(
      '--target <url>',
      'benchmark another MCP server over Streamable HTTP instead (http:// or https://); repeat to compare servers ' +
        'side by side',
    ).argParser(collect(parseTarget)),
    new Option(
      '--target-cmd <command>',
      'benchmark an MCP server spawned over stdio (one process per agent); repeats like --target',
    ).argParser(collect(String)),
    new Option(
      '--profile <name>',
      `how to drive the --target or --target-cmd before it: ${Object.keys(PEERS).join(', ')}; NAME:ENGINE ` +
        `(sqlite, postgres, mysql) for profiles that write SQL (default: ours)`,
    ).argParser(collect(String)),
    new Option('--sql-tool <name>', "sql-tool profile: the server's raw-SQL tool").default('query'),
    new Option('--sql-arg <name>', "sql-tool profile: that tool's SQL argument").default('sql'),
    new Option('--service <name>', 'faucet profile: the Faucet service (database) to use').default('main'),
    new Option(
      '--check-calls <n>',
      'calls per workload replayed on every target after the run, untimed: answers compared, tokens counted (0: off)',
    )
      .default(30)
      .argParser(parseCount),
    new Option(
      '--token <token>',
      'bearer token for --target (the servers a run starts itself listen on loopback without one)',
    ).env(TOKEN_ENV),
  ];
}

/** The steps: workloads × agent counts × index rounds, each measured for a time, repeated. */
function stepOptions(): Option[] {
  return [
    new Option(
      '--workloads <list>',
      `comma-separated: ${Object.keys(WORKLOADS).join(', ')} (${Object.keys(WORKLOADS)
        .filter((name) => !DEFAULT_WORKLOADS.includes(name))
        .join(', ')} only when named)`,
    )
      .default(DEFAULT_WORKLOADS, DEFAULT_WORKLOADS.join(','))
      .argParser(parseList(parseWorkload)),
    agentsOption([1, 4, 16]),
    new Option(
      '--workload-agents <workload=list>',
      "a workload's own agent counts, e.g. point-read=1,10,50 (the others step through --agents); repeatable",
    ).argParser(parseWorkloadAgents),
    new Option('--duration <time>', 'measured time per step (1s in a comparison run without --iterations)')
      .default(2000, '2s')
      .argParser(parseDuration),
    new Option(
      '--duration-at <agents=time,...>',
      'measured time per step at these agent counts instead of --duration, e.g. 10=20s,50=90s (calls that take ' +
        'seconds need longer steps the more agents share the machine)',
    ).argParser(parseDurationAt),
    new Option('--warmup <time>', 'unmeasured warm-up before each step').default(500, '500ms').argParser(parseDuration),
    new Option(
      '--iterations <n>',
      `repeat each step; reports show the median and spread, and an interval for each ratio (default 1, or ` +
        `${COMPARISON_ITERATIONS} of ${COMPARISON_STEP_MS / 1000} s steps when the run compares index sets, ` +
        `databases, servers or eras and --duration is not given either)`,
    )
      .default(1)
      .argParser(parsePositiveInt('iterations')),
    new Option('--indexes <list>', 'index sets to run in turn (two rounds show the speed-up)')
      .default(['baseline', 'optimized'] as IndexSet[], 'baseline,optimized')
      .argParser(parseList(parseIndexSet)),
  ];
}

/** The load's shape in time: a closed loop by default, an open loop's rate, or ramps of either. */
function loadShapeOptions(): Option[] {
  return [
    // The total of every shard (run --shard splits it): a fleet's rate, not a count of agents.
    new Option('--rate <n>', 'open loop: total calls per second across agents (default: closed loop)').argParser(
      parsePositiveInt('rate', 10_000_000),
    ),
    new Option(
      '--stages <list>',
      'ramp the agents instead of --agents × --duration, k6-style: DURATION:AGENTS, comma-separated, each moving ' +
        'linearly from the last (from 0); one staged step per workload',
    ).argParser(parseStages),
    new Option(
      '--rate-stages <list>',
      `open loop, ramping the calls per second the same way (DURATION:RATE,...), served by a pool of --agents ` +
        `(default ${RATE_STAGES_POOL})`,
    ).argParser(parseStages),
  ];
}

/** How the agents speak MCP. */
function protocolOptions(): Option[] {
  return [
    new Option(
      '--protocol <list>',
      `MCP eras to measure, side by side: legacy (${LEGACY_REVISION}: initialize, then calls on a session, what ` +
        `hosts speak today), modern (${MODERN_REVISION}) or auto`,
    )
      .default(['legacy'] as ProtocolChoice[], 'legacy')
      .argParser(parseList(parseProtocol)),
    new Option('--client <kind>', 'lean (hand-built JSON-RPC on undici) or sdk (the official client)')
      .choices(['lean', 'sdk'])
      .default('lean'),
  ];
}

/** One run split over several load generators, begun together, merged afterwards. */
function shardOptions(): Option[] {
  return [
    new Option(
      '--shard <I/N>',
      'run shard I of N (I from 0 to N-1) of this configuration: its share of the agents and the rate; merge the ' +
        "shards' --out files with mcp-db-bench merge",
    ).argParser(parseShard),
    new Option('--start-at <time>', 'with --shard: the ISO instant every shard begins its first step').argParser((v) =>
      parseStartAt(v),
    ),
    new Option(
      '--barrier-file <path>',
      'with --shard: begin together once every shard has written PATH.I (a shared volume) instead of --start-at',
    ),
    new Option(
      '--run-id <id>',
      "with --shard: names the run in every shard's file (default: a hash of the configuration and start instant)",
    ),
  ];
}

/** Recorded sessions as the workload. */
function replayOptions(): Option[] {
  return [
    new Option(
      '--replay <trace>',
      'replay the sessions of a trace (mcp-db-bench record) instead of the workloads: each agent takes a recorded ' +
        'session (round robin) and makes its requests in order, until the step ends; against --db, --target or --target-cmd',
    ),
    new Option(
      '--think <factor>',
      "--replay: the recorded think time between a session's requests, scaled: 1x as recorded, 0.5x, 0 for none",
    )
      .default(1, '1x')
      .argParser(parseThink),
  ];
}

/** What the run reports beyond the result file: the full report, HTML, thresholds and the files CI reads. */
function reportOptions(): Option[] {
  return [
    new Option('--full', 'on stdout, every table of the report instead of the summary that fits the terminal'),
    bandOption(),
    new Option('--html <file>', 'also write the HTML report here (the page report --format html makes)'),
    new Option(
      '--threshold <rule>',
      'fail the run (exit 1) unless every step it names holds: [WORKLOAD[@AGENTS]:]METRIC OP VALUE, e.g. ' +
        'point-read:p99<5ms, errors<0.1%, filtered@10:calls/s>1000; repeat for more',
    )
      .argParser(collect(thresholdOption))
      .default([], 'none'),
    new Option('--junit <file>', 'also write the thresholds and steps as JUnit XML here, for CI test reports'),
    new Option(
      '--prometheus <file>',
      "also write the run's calls/s, errors, latency quantiles and session-init times here in the Prometheus text " +
        "format (node_exporter's textfile collector, a Pushgateway PUT)",
    ),
  ];
}

/** Where the servers' and the load generator's time goes: pinned CPUs, and each call's time split by spans. */
function cpuOptions(): Option[] {
  return [
    new Option(
      '--server-cpus <list>',
      'Linux, with taskset: pin the servers the run starts to these CPUs (0, 0,2, 0-3) and report their CPU per ' +
        'call, read from /proc',
    ).argParser(parseCpuList),
    new Option(
      '--client-cpus <list>',
      'Linux, with taskset: pin the load generator (this process) to these CPUs',
    ).argParser(parseCpuList),
    new Option(
      '--trace-split',
      "split each call's time into protocol, connection wait and database, from the spans the run's own servers " +
        'export to it (OpenTelemetry on, which costs the server CPU of its own); not with --target, --target-cmd or --replay',
    ),
  ];
}

/** A --threshold, checked before anything runs: a mistake is a usage error (exit 2). */
function thresholdOption(text: string) {
  try {
    return parseThreshold(text, [...Object.keys(WORKLOADS), REPLAY_WORKLOAD]);
  } catch (error) {
    if (error instanceof ThresholdSyntaxError)
      throw new InvalidArgumentError(error.message.replace(/^--threshold "[^"]*": /, ''));
    throw error;
  }
}
