import { writeFileSync } from 'node:fs';
import { LEGACY_REVISION, MODERN_REVISION, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import type { IndexSet } from '@mcp-db-bench/dataset';
import { DEFAULT_WORKLOADS, PEERS, WORKLOADS, type WriteVerification } from '@mcp-db-bench/loadgen';
import {
  checkThresholds,
  htmlReport,
  junitXml,
  parseThreshold,
  prometheusText,
  renderRuns,
  ThresholdSyntaxError,
  writeResultFile,
} from '@mcp-db-bench/report';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  COMPARISON_ITERATIONS,
  COMPARISON_STEP_MS,
  RATE_STAGES_POOL,
  type RunConfig,
  type RunFlags,
  runConfig,
} from '../benchmark/config.js';
import { measure } from '../benchmark/measure.js';
import { measureReplay, REPLAY_WORKLOAD } from '../benchmark/replay.js';
import type { ProtocolChoice } from '../labels.js';
import {
  agentsOption,
  dbListOption,
  examples,
  formatOption,
  jsonAlias,
  outOption,
  parseProfile,
  scaleOption,
  seedOption,
} from '../options.js';
import { parseDuration, parseList, parsePositiveInt } from '../parse/durations.js';
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
import { endProgress, logLine, stdoutColumns } from '../render/progress.js';
import { parseCpuList, pinSelf } from '../serving/cpus.js';
import { parseShard, parseStartAt } from '../serving/shard.js';
import { trackTargets } from '../serving/targets.js';
import { testDelayWarning } from '../warnings.js';

/** The server's own variable for its bearer token (docs/server.md), so a job sets it once for both. */
const TOKEN_ENV = 'MCP_DB_TOKEN';

export function runCommand(): Command {
  const command = new Command('run');
  const peers = trackTargets(command);
  return command
    .description('seed (if needed), serve and benchmark: the default command; with no options, all on embedded SQLite')
    .addOption(
      dbListOption(
        'databases to benchmark through our MCP server; give several to compare engines (default: a new SQLite file ' +
          'in a temporary directory)',
      ),
    )
    .addOption(
      new Option(
        '--target <url>',
        'benchmark another MCP server over Streamable HTTP instead (http:// or https://); repeat to compare servers ' +
          'side by side',
      ).argParser(collect(parseTarget)),
    )
    .addOption(
      new Option(
        '--target-cmd <command>',
        'benchmark an MCP server spawned over stdio (one process per agent); repeats like --target',
      ).argParser(collect(String)),
    )
    .addOption(
      new Option(
        '--profile <name>',
        `how to drive the --target or --target-cmd before it: ${Object.keys(PEERS).join(', ')}; NAME:ENGINE ` +
          `(sqlite, postgres, mysql) for profiles that write SQL (default: ours)`,
      ).argParser(collect(String)),
    )
    .addOption(new Option('--sql-tool <name>', "sql-tool profile: the server's raw-SQL tool").default('query'))
    .addOption(new Option('--sql-arg <name>', "sql-tool profile: that tool's SQL argument").default('sql'))
    .addOption(new Option('--service <name>', 'faucet profile: the Faucet service (database) to use').default('main'))
    .addOption(
      new Option(
        '--check-calls <n>',
        'calls per workload replayed on every target after the run, untimed: answers compared, tokens counted (0: off)',
      )
        .default(30)
        .argParser(parseCount),
    )
    .addOption(
      new Option(
        '--token <token>',
        'bearer token for --target (the servers a run starts itself listen on loopback without one)',
      ).env(TOKEN_ENV),
    )
    .addOption(scaleOption('dataset scale when seeding'))
    .addOption(seedOption('seed for the dataset and the agents'))
    .addOption(
      new Option(
        '--workloads <list>',
        `comma-separated: ${Object.keys(WORKLOADS).join(', ')} (${Object.keys(WORKLOADS)
          .filter((name) => !DEFAULT_WORKLOADS.includes(name))
          .join(', ')} only when named)`,
      )
        .default(DEFAULT_WORKLOADS, DEFAULT_WORKLOADS.join(','))
        .argParser(parseList(parseWorkload)),
    )
    .addOption(agentsOption([1, 4, 16]))
    .addOption(
      new Option(
        '--workload-agents <workload=list>',
        "a workload's own agent counts, e.g. point-read=1,10,50 (the others step through --agents); repeatable",
      ).argParser(parseWorkloadAgents),
    )
    .addOption(
      new Option('--duration <time>', 'measured time per step (1s in a comparison run without --iterations)')
        .default(2000, '2s')
        .argParser(parseDuration),
    )
    .addOption(
      new Option('--warmup <time>', 'unmeasured warm-up before each step')
        .default(500, '500ms')
        .argParser(parseDuration),
    )
    .addOption(
      new Option(
        '--iterations <n>',
        `repeat each step; reports show the median and spread, and an interval for each ratio (default 1, or ` +
          `${COMPARISON_ITERATIONS} of ${COMPARISON_STEP_MS / 1000} s steps when the run compares index profiles, ` +
          `databases, servers or eras and --duration is not given either)`,
      )
        .default(1)
        .argParser(parsePositiveInt('iterations')),
    )
    .addOption(
      new Option('--indexes <list>', 'index profiles to run in turn (two rounds show the speed-up)')
        .default(['baseline', 'optimized'] as IndexSet[], 'baseline,optimized')
        .argParser(parseList(parseProfile)),
    )
    .addOption(
      // The total of every shard (run --shard splits it): a fleet's rate, not a count of agents.
      new Option('--rate <n>', 'open loop: total calls per second across agents (default: closed loop)').argParser(
        parsePositiveInt('rate', 10_000_000),
      ),
    )
    .addOption(
      new Option(
        '--stages <list>',
        'ramp the agents instead of --agents × --duration, k6-style: DURATION:AGENTS, comma-separated, each moving ' +
          'linearly from the last (from 0); one staged step per workload',
      ).argParser(parseStages),
    )
    .addOption(
      new Option(
        '--rate-stages <list>',
        `open loop, ramping the calls per second the same way (DURATION:RATE,...), served by a pool of --agents ` +
          `(default ${RATE_STAGES_POOL})`,
      ).argParser(parseStages),
    )
    .addOption(
      new Option(
        '--protocol <list>',
        `MCP eras to measure, side by side: legacy (${LEGACY_REVISION}: initialize, then calls on a session, what ` +
          `hosts speak today), modern (${MODERN_REVISION}) or auto`,
      )
        .default(['legacy'] as ProtocolChoice[], 'legacy')
        .argParser(parseList(parseProtocol)),
    )
    .addOption(
      new Option('--client <kind>', 'lean (hand-built JSON-RPC on undici) or sdk (the official client)')
        .choices(['lean', 'sdk'])
        .default('lean'),
    )
    .addOption(formatOption('on stdout: the report as a table or Markdown, or the result file (json)'))
    .addOption(jsonAlias())
    .addOption(outOption('also write the result file here'))
    .addOption(
      new Option(
        '--shard <I/N>',
        'run shard I of N (I from 0 to N-1) of this configuration: its share of the agents and the rate; merge the ' +
          "shards' --out files with mcp-db-bench merge",
      ).argParser(parseShard),
    )
    .addOption(
      new Option('--start-at <time>', 'with --shard: the ISO instant every shard begins its first step').argParser(
        (v) => parseStartAt(v),
      ),
    )
    .addOption(
      new Option(
        '--barrier-file <path>',
        'with --shard: begin together once every shard has written PATH.I (a shared volume) instead of --start-at',
      ),
    )
    .addOption(
      new Option(
        '--run-id <id>',
        "with --shard: names the run in every shard's file (default: a hash of the configuration and start instant)",
      ),
    )
    .addOption(
      new Option(
        '--replay <trace>',
        'replay the sessions of a trace (mcp-db-bench record) instead of the workloads: each agent takes a recorded ' +
          'session (round robin) and makes its requests in order, until the step ends; against --db, --target or --target-cmd',
      ),
    )
    .addOption(
      new Option(
        '--think <factor>',
        "--replay: the recorded think time between a session's requests, scaled: 1x as recorded, 0.5x, 0 for none",
      )
        .default(1, '1x')
        .argParser(parseThink),
    )
    .option('--full', 'on stdout, every table of the report instead of the summary that fits the terminal')
    .option('--html <file>', 'also write the HTML report here (the page report --format html makes)')
    .addOption(
      new Option(
        '--threshold <rule>',
        'fail the run (exit 1) unless every step it names holds: [WORKLOAD[@AGENTS]:]METRIC OP VALUE, e.g. ' +
          'point-read:p99<5ms, errors<0.1%, filtered@10:calls/s>1000; repeat for more',
      )
        .argParser(collect(thresholdOption))
        .default([], 'none'),
    )
    .option('--junit <file>', 'also write the thresholds and steps as JUnit XML here, for CI test reports')
    .option(
      '--prometheus <file>',
      "also write the run's calls/s, errors, latency quantiles and session-init times here in the Prometheus text " +
        "format (node_exporter's textfile collector, a Pushgateway PUT)",
    )
    .addOption(
      new Option(
        '--server-cpus <list>',
        'Linux, with taskset: pin the servers the run starts to these CPUs (0, 0,2, 0-3) and report their CPU per ' +
          'call, read from /proc',
      ).argParser(parseCpuList),
    )
    .addOption(
      new Option(
        '--client-cpus <list>',
        'Linux, with taskset: pin the load generator (this process) to these CPUs',
      ).argParser(parseCpuList),
    )
    .option(
      '--trace-split',
      "split each call's time into protocol, connection wait and database, from the spans the run's own servers " +
        'export to it (OpenTelemetry on, which costs the server CPU of its own); not with --target, --target-cmd or --replay',
    )
    .allowExcessArguments()
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench run --agents 1,8 --duration 5s',
        'mcp-db-bench run --db sqlite:shop.db --db postgres://bench:bench@127.0.0.1:5432/bench --indexes optimized ' +
          '--out result.json',
        'mcp-db-bench run --target https://mcp.example.com/mcp --token $TOKEN --workloads point-read,filtered',
        'mcp-db-bench run --target http://127.0.0.1:7400/mcp --profile ours --target http://127.0.0.1:7500/mcp ' +
          '--profile dbhub:sqlite --workloads point-read,filtered',
        'mcp-db-bench run --target-cmd "npx @modelcontextprotocol/server-postgres $PG_URL" --profile ' +
          'sql-tool:postgres --sql-tool query --sql-arg sql',
        'mcp-db-bench run --stages 5s:1,2s:16,5s:16,2s:1 --workloads point-read',
        'mcp-db-bench run --workloads handshake,point-read,analytical-entity --workload-agents point-read=1,10,50 ' +
          '--agents 1',
        'mcp-db-bench run --db sqlite:shop.db --server-cpus 0 --client-cpus 1 --workloads point-read,filtered',
        'mcp-db-bench run --db postgres://bench:bench@127.0.0.1:5432/bench --trace-split --agents 1,16',
        'mcp-db-bench run --rate-stages 10s:100,30s:1000,10s:0 --agents 32 --workloads point-read',
        'mcp-db-bench run --replay session.jsonl --agents 1,10,50 --think 0.5x --db sqlite:shop.db',
        'mcp-db-bench run --replay session.jsonl --agents 1,10 --target http://127.0.0.1:7400/mcp',
        'AT=$(date -u -d +2min +%FT%TZ); mcp-db-bench run --target http://db-mcp:8080/mcp --shard 0/4 --start-at $AT ' +
          '--agents 64 --rate 8000 --out shard-0.json',
      ),
    )
    .action(async (flags: RunFlags, command: Command) => {
      const config = runConfig(flags, command);
      const targets = peers.read({ sqlTool: config.sqlTool, sqlArg: config.sqlArg, service: config.service });
      if (config.clientCpus) pinSelf(config.clientCpus);
      // an interrupt (Ctrl-C) writes what was asked for, from the steps finished, and prints their report
      const keep = (partial: ResultFile) => {
        endProgress();
        deliver(partial, config);
      };
      const result = config.replay
        ? await measureReplay({ ...config, replay: config.replay }, targets, keep)
        : await measure(config, targets, keep);
      endProgress();
      const delayed = testDelayWarning(config);
      if (delayed) result.warnings.push(delayed);
      if (failures(result).length) process.exitCode = 1;
      if (!deliver(result, config)) process.exitCode = 1;
    });
}

/**
 * Every file the run was asked for (--out, --html, --junit, --prometheus), then the report on
 * stdout: the default summary, or every table with --full. False when a threshold failed.
 */
function deliver(result: ResultFile, config: RunConfig): boolean {
  if (config.out) writeResultFile(config.out, result);
  if (config.html) writeFileSync(config.html, htmlReport([{ label: 'run', result }]));
  const verdicts = checkThresholds(result, config.threshold);
  for (const verdict of verdicts) logLine(verdict.line);
  if (config.junit) writeFileSync(config.junit, junitXml(result, verdicts));
  if (config.prometheus) writeFileSync(config.prometheus, prometheusText(result));
  const written = [config.out, config.html, config.junit, config.prometheus].filter(Boolean);
  if (result.partial && written.length)
    logLine(`${result.steps.length} finished step(s) written to ${written.join(', ')}, marked partial`);
  process.stdout.write(
    config.format === 'json'
      ? `${JSON.stringify(result, null, 2)}\n`
      : renderRuns([{ label: 'run', result }], config.format, stdoutColumns(), config.full),
  );
  return verdicts.every((v) => v.ok);
}

/** Failed write verifications and disagreeing answers, each said on stderr: the run exits 1. */
function failures(result: ResultFile): string[] {
  const failed = result.steps.filter(
    (s): s is StepResult & { verification: WriteVerification } => s.verification?.ok === false,
  );
  const disagreed = (result.agreement ?? []).filter((a) => a.mismatches > 0);
  const lines = [
    ...failed.map(
      (s) => `write verification failed: ${s.target} ${s.workload} × ${s.agents} (${s.verification.marker})`,
    ),
    ...disagreed.map(
      (a) => `answers disagree: ${a.target} vs ${a.reference} on ${a.workload} (${a.mismatches} of ${a.calls} calls)`,
    ),
  ];
  for (const line of lines) logLine(line);
  return lines;
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
