import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, DEFAULT_WORKLOADS, PROFILES, ProfileClient, type PlanTarget, peakTarget, runPlan, stagesDuration, type Target, WORKLOADS, type WriteVerification } from '@mcp-db-bench/agent';
import { LEGACY_REVISION, type LoadStage, type LoadStages, MODERN_REVISION, RESULT_FILE_VERSION, type ResultFile, type StepResult, TOOL_NAMES } from '@mcp-db-bench/contract';
import type { IndexProfile } from '@mcp-db-bench/dataset';
import { engineForUrl, redactUrl } from '@mcp-db-bench/server';
import { Command, InvalidArgumentError, Option } from 'commander';
import { request } from 'undici';
import { networkReason, unknownCommand, UsageError } from '../errors.js';
import { agentsOption, dbListOption, examples, type Format, formatOption, jsonAlias, parseProfile, scaleOption, seedOption } from '../options.js';
import { htmlReport } from '../render/html/index.js';
import { logLine, progress } from '../render/progress.js';
import { reportHeader, reportSections } from '../render/report.js';
import { toMarkdown, toTerminal } from '../render/table.js';
import { checkPinning, cpuUnder, parseCpuList, pinnedCommand, pinSelf } from '../serving/cpus.js';
import { parseDuration, parseList, parsePositiveInt } from '../parse/durations.js';
import { ownedDatabase } from '../serving/database.js';
import { environment } from '../serving/environment.js';
import { FLOOR_LABEL, startHttpFloor } from '../serving/http-floor.js';
import { cleanUpOnSignals, makeTempDir, removeTempDir } from '../serving/interrupt.js';
import { eraLabel, type ProtocolChoice } from '../serving/labels.js';
import { seedIfMissing } from '../serving/seed-if-missing.js';
import { startServer } from '../serving/server-process.js';
import { parseStages } from '../parse/stages.js';
import { announceStart, barrier, checkBarrier, parseShard, parseStartAt, requireDataset, runIdOf, type ShardFlag } from '../serving/shard.js';
import { type PeerTarget, trackTargets } from '../serving/targets.js';
import { VERSION } from '../version.js';
import { testDelayWarning } from '../warnings.js';

interface RunFlags {
  db?: string[];
  target?: string[];
  targetCmd?: string[];
  /** read through `trackTargets` (pairs with the targets by position) */
  profile?: string[];
  sqlTool?: string;
  sqlArg?: string;
  service?: string;
  checkCalls: number;
  token?: string;
  scale: number;
  seed: number;
  workloads: string[];
  agents: number[];
  duration: number;
  warmup: number;
  iterations: number;
  indexes: IndexProfile[];
  rate?: number;
  stages?: LoadStage[];
  rateStages?: LoadStage[];
  protocol: ProtocolChoice[];
  client: 'lean' | 'sdk';
  format: Format;
  out?: string;
  shard?: ShardFlag;
  startAt?: number;
  barrierFile?: string;
  runId?: string;
  html?: string;
  serverCpus?: string;
  clientCpus?: string;
}

const parseCount = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`must be a whole number, 0 or more: ${value}`);
  return n;
};

const parseProtocol = (name: string): ProtocolChoice => {
  if (name !== 'legacy' && name !== 'modern' && name !== 'auto') throw new InvalidArgumentError(`protocol must be legacy, modern or auto, not ${name}`);
  return name;
};

const parseWorkload = (name: string) => {
  if (!(name in WORKLOADS)) throw new InvalidArgumentError(`unknown workload ${name}; workloads: ${Object.keys(WORKLOADS).join(', ')}`);
  return name;
};

/** An http(s) URL for --target, or a usage error naming what was given. */
export function parseTarget(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('--target must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('--target must be an http(s) URL');
  return value;
}

/** Repeats: every value given, in order. */
const collect =
  <T>(parse: (value: string) => T) =>
  (value: string, previous: T[] | undefined): T[] => [...(previous ?? []), parse(value)];

export function runCommand(): Command {
  const command = new Command('run');
  const peers = trackTargets(command);
  return command
    .description('seed (if needed), serve and benchmark: the default command; with no options, all on embedded SQLite')
    .addOption(dbListOption('databases to benchmark through our MCP server; give several to compare engines (default: a new SQLite file in a temporary directory)'))
    .addOption(new Option('--target <url>', 'benchmark another MCP server over Streamable HTTP instead (http:// or https://); repeat to compare servers side by side').argParser(collect(parseTarget)))
    .addOption(new Option('--target-cmd <command>', 'benchmark an MCP server spawned over stdio (one process per agent); repeats like --target').argParser(collect(String)))
    .addOption(
      new Option('--profile <name>', `how to drive the --target or --target-cmd before it: ${Object.keys(PROFILES).join(', ')}; NAME:ENGINE (sqlite, postgres, mysql) for profiles that write SQL (default: ours)`).argParser(
        collect(String),
      ),
    )
    .addOption(new Option('--sql-tool <name>', 'sql-tool profile: the server\'s raw-SQL tool').default('query'))
    .addOption(new Option('--sql-arg <name>', 'sql-tool profile: that tool\'s SQL argument').default('sql'))
    .addOption(new Option('--service <name>', 'faucet profile: the Faucet service (database) to use').default('main'))
    .addOption(new Option('--check-calls <n>', 'calls per workload replayed on every target after the run, untimed: answers compared, tokens counted (0: off)').default(30).argParser(parseCount))
    .addOption(new Option('--token <token>', 'bearer token for --target (the servers a run starts itself listen on loopback without one)').env(TOKEN_ENV))
    .addOption(scaleOption('dataset scale when seeding (1 = 2.56 million rows)'))
    .addOption(seedOption('seed for the dataset and the agents'))
    .addOption(
      new Option('--workloads <list>', `comma-separated: ${Object.keys(WORKLOADS).join(', ')} (write workloads only when named)`)
        .default(DEFAULT_WORKLOADS, DEFAULT_WORKLOADS.join(','))
        .argParser(parseList(parseWorkload)),
    )
    .addOption(agentsOption([1, 4, 16]))
    .addOption(new Option('--duration <time>', 'measured time per step').default(2000, '2s').argParser(parseDuration))
    .addOption(new Option('--warmup <time>', 'unmeasured warm-up before each step').default(500, '500ms').argParser(parseDuration))
    .addOption(new Option('--iterations <n>', 'repeat each step; reports show the median and spread').default(1).argParser(parsePositiveInt('iterations')))
    .addOption(new Option('--indexes <list>', 'index profiles to run in turn (two rounds show the speed-up)').default(['baseline', 'optimized'] as IndexProfile[], 'baseline,optimized').argParser(parseList(parseProfile)))
    .addOption(new Option('--rate <n>', 'open loop: total calls per second across agents (default: closed loop)').argParser(parsePositiveInt('rate')))
    .addOption(
      new Option('--stages <list>', 'ramp the agents instead of --agents × --duration, k6-style: DURATION:AGENTS, comma-separated, each moving linearly from the last (from 0); one staged step per workload').argParser(
        parseStages,
      ),
    )
    .addOption(
      new Option('--rate-stages <list>', `open loop, ramping the calls per second the same way (DURATION:RATE,...), served by a pool of --agents (default ${RATE_STAGES_POOL})`).argParser(parseStages),
    )
    .addOption(
      new Option('--protocol <list>', `MCP eras to measure, side by side: legacy (${LEGACY_REVISION}: initialize, then calls on a session, what hosts speak today), modern (${MODERN_REVISION}) or auto`)
        .default(['legacy'] as ProtocolChoice[], 'legacy')
        .argParser(parseList(parseProtocol)),
    )
    .addOption(new Option('--client <kind>', 'lean (hand-built JSON-RPC on undici) or sdk (the official client)').choices(['lean', 'sdk']).default('lean'))
    .addOption(formatOption('on stdout: the report as a table or Markdown, or the result file (json)'))
    .addOption(jsonAlias())
    .option('--out <file>', 'also write the result file here')
    .addOption(
      new Option('--shard <I/N>', 'run shard I of N (I from 0 to N-1) of this configuration: its share of the agents and the rate; merge the shards\' --out files with mcp-db-bench merge').argParser(
        parseShard,
      ),
    )
    .addOption(new Option('--start-at <time>', 'with --shard: the ISO instant every shard begins its first step').argParser((v) => parseStartAt(v)))
    .addOption(new Option('--barrier-file <path>', 'with --shard: begin together once every shard has written PATH.I (a shared volume) instead of --start-at'))
    .addOption(new Option('--run-id <id>', 'with --shard: names the run in every shard\'s file (default: a hash of the configuration and start instant)'))
    .option('--html <file>', 'also write the HTML report here (the page report --format html makes)')
    .addOption(
      new Option('--server-cpus <list>', 'Linux, with taskset: pin the servers the run starts to these CPUs (0, 0,2, 0-3) and report their CPU per call, read from /proc').argParser(
        parseCpuList,
      ),
    )
    .addOption(new Option('--client-cpus <list>', 'Linux, with taskset: pin the load generator (this process) to these CPUs').argParser(parseCpuList))
    .allowExcessArguments()
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench run --agents 1,8 --duration 5s',
        'mcp-db-bench run --db sqlite:shop.db --db postgres://bench:bench@127.0.0.1:5432/bench --indexes optimized --out result.json',
        'mcp-db-bench run --target https://mcp.example.com/mcp --token $TOKEN --workloads point-read,filtered',
        'mcp-db-bench run --target http://127.0.0.1:7400/mcp --profile ours --target http://127.0.0.1:7500/mcp --profile dbhub:sqlite --workloads point-read,filtered',
        'mcp-db-bench run --target-cmd "npx @modelcontextprotocol/server-postgres $PG_URL" --profile sql-tool:postgres --sql-tool query --sql-arg sql',
        'mcp-db-bench run --stages 5s:1,2s:16,5s:16,2s:1 --workloads point-read',
        'mcp-db-bench run --db sqlite:shop.db --server-cpus 0 --client-cpus 1 --workloads point-read,filtered',
        'mcp-db-bench run --rate-stages 10s:100,30s:1000,10s:0 --agents 32 --workloads point-read',
        'AT=$(date -u -d +2min +%FT%TZ); mcp-db-bench run --target http://db-mcp:8080/mcp --shard 0/4 --start-at $AT --agents 64 --rate 8000 --out shard-0.json',
      ),
    )
    .action(async (flags: RunFlags, command: Command) => {
      checkRunUsage(flags, command);
      const targets = peers.read({ sqlTool: flags.sqlTool, sqlArg: flags.sqlArg, service: flags.service });
      cleanUpOnSignals();
      if (flags.clientCpus) pinSelf(flags.clientCpus);
      const result = await run(flags, targets);
      const delayed = testDelayWarning(flags);
      if (delayed) result.warnings.push(delayed);
      const failed = failedVerifications(result);
      if (failed.length) {
        process.exitCode = 1;
        for (const s of failed) logLine(`write verification failed: ${s.target} ${s.workload} × ${s.agents} (${s.verification.marker})`);
      }
      const disagreed = (result.agreement ?? []).filter((a) => a.mismatches > 0);
      if (disagreed.length) {
        process.exitCode = 1;
        for (const a of disagreed) logLine(`answers disagree: ${a.target} vs ${a.reference} on ${a.workload} (${a.mismatches} of ${a.calls} calls)`);
      }
      if (flags.out) writeFileSync(flags.out, `${JSON.stringify(result, null, 2)}\n`);
      if (flags.html) writeFileSync(flags.html, htmlReport([{ label: 'run', result }]));
      const sections = reportSections(result);
      process.stdout.write(
        flags.format === 'json'
          ? `${JSON.stringify(result, null, 2)}\n`
          : flags.format === 'markdown'
            ? `${reportHeader(result)}\n\n${toMarkdown(sections)}`
            : `${reportHeader(result)}\n\n${toTerminal(sections)}`,
      );
    });
}

/** What commander cannot check: a word where no argument belongs, and options that need or exclude each other. */
function checkRunUsage(flags: RunFlags, command: Command): void {
  const parent = command.parent!;
  if (command.args.length) throw new UsageError(unknownCommand(parent, command.args[0]!));
  // MCP_DB_BENCH_DB names the database to use when nothing else is named: --target or --target-cmd wins over it.
  if (command.getOptionValueSource('db') === 'env' && (flags.target || flags.targetCmd)) flags.db = undefined;
  const given = [flags.db && '--db', flags.target && '--target', flags.targetCmd && '--target-cmd'].filter(Boolean);
  if (given.length > 1) throw new UsageError(`${given.join(' and ')} cannot be used together: benchmark our server on databases (--db), or another server (--target or --target-cmd)`);
  if (flags.profile && flags.db) throw new UsageError('--profile applies to --target or --target-cmd: --db runs are our own server');
  // MCP_DB_TOKEN may be exported for the user's own servers: only a typed --token without --target is a mistake
  if (flags.token && !flags.target && command.getOptionValueSource('token') === 'cli') throw new UsageError('--token needs --target: it is the bearer token sent to that HTTP server');
  checkStagesUsage(flags, command);
  checkShardUsage(flags, command);
  checkCpusUsage(flags);
}

/** Pinning needs Linux and taskset; server CPUs need a server this run starts. */
function checkCpusUsage(flags: RunFlags): void {
  if (flags.serverCpus) checkPinning('--server-cpus');
  if (flags.clientCpus) checkPinning('--client-cpus');
  if (flags.serverCpus && flags.target && !flags.targetCmd) {
    throw new UsageError('--server-cpus pins the servers the run starts (--db, the default database, --target-cmd): a --target server runs elsewhere');
  }
}

/** A shard shares the database and the instant with the others: what would clash is refused. */
function checkShardUsage(flags: RunFlags, command: Command): void {
  const timing = [flags.startAt !== undefined && '--start-at', flags.barrierFile && '--barrier-file', flags.runId && '--run-id'].filter(Boolean);
  if (!flags.shard) {
    if (timing.length) throw new UsageError(`${timing.join(' and ')} ${timing.length > 1 ? 'need' : 'needs'} --shard I/N`);
    return;
  }
  if (!flags.db && !flags.target && !flags.targetCmd) throw new UsageError('--shard needs --db, --target or --target-cmd: the shards share what they measure, not a temporary database each');
  if (flags.startAt === undefined && !flags.barrierFile) throw new UsageError('--shard needs --start-at TIME or --barrier-file PATH: the shards must begin together');
  if (flags.startAt !== undefined && flags.barrierFile) throw new UsageError('--start-at and --barrier-file cannot be used together: agree on a time, or on a barrier');
  if (command.getOptionValueSource('indexes') === 'cli') {
    throw new UsageError('--indexes cannot be used with --shard: shards never re-index the database they share; set it once with mcp-db-bench index --indexes PROFILE');
  }
  const writes = flags.workloads.filter((name) => WORKLOADS[name]!.writes);
  if (writes.length) throw new UsageError(`--shard cannot run write workloads (${writes.join(', ')}): each shard could verify only its own writes while the others change the same rows`);
  if (flags.stages || flags.rateStages) throw new UsageError(`--shard cannot be used with ${flags.stages ? '--stages' : '--rate-stages'}`);
  if (flags.barrierFile) checkBarrier(flags.barrierFile, flags.shard);
  flags.indexes = [];
}

/** The server's own variable for its bearer token (docs/server.md), so a job sets it once for both. */
const TOKEN_ENV = 'MCP_DB_TOKEN';

/** Agents connected to serve --rate-stages when --agents is not given. */
const RATE_STAGES_POOL = 16;

/** Stages set the load and its time: the flags that would too are refused, not silently ignored. */
function checkStagesUsage(flags: RunFlags, command: Command): void {
  const typed = (name: string) => command.getOptionValueSource(name) === 'cli';
  if (flags.stages && flags.rateStages) throw new UsageError('--stages and --rate-stages cannot be used together: ramp agents (closed loop) or calls per second (open loop)');
  const staged = flags.stages ? '--stages' : flags.rateStages ? '--rate-stages' : undefined;
  if (!staged) return;
  const excluded = [staged === '--stages' && typed('agents') && '--agents', typed('duration') && '--duration', flags.rate && '--rate'].filter(Boolean);
  if (excluded.length) {
    const why = staged === '--stages' ? `the stages set the agents and the time${flags.rate ? '; to ramp an open loop, use --rate-stages' : ''}` : 'the stages set the rate and the time';
    throw new UsageError(`${staged} cannot be used with ${excluded.join(' or ')}: ${why}`);
  }
  if (flags.rateStages && !typed('agents')) flags.agents = [RATE_STAGES_POOL];
}

/** The stages asked for, as the plan and the result file take them. */
function stagesOf(flags: RunFlags): LoadStages | undefined {
  if (flags.stages) return { kind: 'agents', stages: flags.stages };
  if (flags.rateStages) return { kind: 'rate', stages: flags.rateStages };
  return undefined;
}

/** Fails early, naming the target, when nothing answers HTTP at its address. Any HTTP answer will do. */
async function checkReachable(url: string): Promise<void> {
  try {
    const res = await request(url, { method: 'GET', headers: { accept: 'text/event-stream, application/json' }, signal: AbortSignal.timeout(10_000) });
    // an SSE answer (DBHub's GET) never ends, and a body destroyed unread emits an error no one
    // listens to (a crash, seen on 401s): drop it, with a listener for the abort that raises
    res.body.on('error', () => {});
    res.body.destroy();
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? 'no answer within 10 s' : networkReason(error);
    throw new Error(`cannot reach the target ${redactUrl(url)}: ${why}`);
  }
}

async function run(flags: RunFlags, peers: readonly PeerTarget[]): Promise<ResultFile> {
  for (const url of flags.target ?? []) await checkReachable(url);
  const tempDir = !flags.db && !flags.target && !flags.targetCmd ? makeTempDir('mcp-db-bench-') : undefined;
  const dbs = flags.db ?? (tempDir ? [`sqlite:${join(tempDir, 'bench.db')}`] : []);
  const workloads = flags.workloads.map((name) => WORKLOADS[name]!);
  const stages = stagesOf(flags);
  const targets: ResultFile['config']['targets'] = [];
  const plan: PlanTarget[] = [];
  const stops: Array<() => unknown> = [];
  /** --server-cpus: the HTTP servers started here, whose processes a stdio target's count leaves out */
  const servers: number[] = [];
  const cpuOf = (pid: number) => (flags.serverCpus ? { serverCpuUs: () => cpuUnder(pid) } : {});
  /** --shard: the index profile found on each database, by engine */
  const found: { name: string; profile: string }[] = [];
  const clientOptions = (protocol: ProtocolChoice) => ({ client: flags.client, protocol, token: flags.token, timeoutMs: 30_000 });
  /** Every era asked for, host era first: one target each, labelled with its era. */
  const eachEra = (
    name: string,
    entry: Omit<ResultFile['config']['targets'][number], 'label'>,
    target: Target,
    owned?: Pick<PlanTarget, 'reindex' | 'driver' | 'serverCpuUs'>,
    peer: Pick<PeerTarget, 'profile' | 'options'> = { profile: PROFILES.ours!, options: {} },
  ) => {
    for (const protocol of flags.protocol) {
      const label = uniqueLabel(eraLabel(name, protocol), targets);
      targets.push({ label, ...entry });
      const client = () => new ProfileClient(peer.profile, createClient(target, clientOptions(protocol)), peer.options);
      plan.push({ label, client, cannot: peer.profile.cannot, ...owned });
    }
  };
  try {
    // The server is read-only unless a workload that writes was asked for.
    const writes = workloads.some((w) => w.writes);
    for (const url of dbs) {
      const engine = engineForUrl(url);
      const first = flags.indexes[0] ?? 'optimized';
      if (flags.shard && engine.oneProcess) throw new UsageError(`--shard cannot share ${engine.title}: it can be open in one process at a time`);
      if (flags.shard) found.push({ name: engine.name, profile: await requireDataset(url) });
      else await seedIfMissing(url, { scale: flags.scale, seed: flags.seed, indexes: first }, logLine);
      // a shard's database is shared: never re-indexed, only read through the driver for the decomposition
      const owned = flags.shard ? { driver: (await ownedDatabase(url, first, logLine)).driver } : await ownedDatabase(url, first, logLine);
      const server = await startServer(url, writes ? ['--allow-writes'] : [], flags.serverCpus);
      stops.push(server.stop);
      servers.push(server.child.pid!);
      logLine(`${engine.name}: our MCP server at ${server.endpoint}`);
      eachEra(engine.name, { engine: engine.name, url: redactUrl(url) }, { kind: 'http', url: server.endpoint }, { ...owned, ...cpuOf(server.child.pid!) });
    }
    // a target named by its profile; `target` when none was given (as before profiles)
    for (const peer of peers) {
      const entry = { engine: peer.options.engine ?? null, url: peer.url, profile: peer.profile.name };
      eachEra(peer.given ? peer.profile.name : 'target', entry, pinnedTarget(peer.target, flags.serverCpus), stdioCpu(peer.target, flags.serverCpus, servers), peer);
    }
    // The bare echo floor beside MCP echo: it answers echo alone, so it runs what needs no more.
    if (workloads.some((w) => w.requires.every((tool) => tool === TOOL_NAMES.echo))) {
      const floor = await startHttpFloor(flags.serverCpus);
      stops.push(floor.stop);
      servers.push(floor.pid);
      plan.push({ label: FLOOR_LABEL, agent: floor.agent, tools: [TOOL_NAMES.echo], fileAs: 'http-echo', ...cpuOf(floor.pid) });
    }
    const { shard } = flags;
    let startAt: number | undefined;
    const start = async () => {
      startAt = flags.barrierFile ? await barrier(flags.barrierFile, shard!, logLine) : flags.startAt!;
      return announceStart(startAt, shard!, logLine);
    };
    const measured = await runPlan(
      {
        targets: plan,
        indexes: flags.indexes,
        workloads,
        agents: flags.agents,
        iterations: flags.iterations,
        warmupMs: flags.warmup,
        durationMs: flags.duration,
        rate: flags.rate,
        stages,
        seed: flags.seed,
        // A fresh server process compiles its hot paths during the first seconds; without this the
        // first round (baseline) would pay for that and the index speed-up would be overstated.
        warmUp: { workload: WORKLOADS.mixed!, agents: 2, durationMs: Math.max(1000, flags.warmup * 2) },
        sessionInit: true,
        decomposition: true,
        shard: shard && { ...shard, start },
        check: flags.checkCalls > 0 ? { calls: flags.checkCalls } : undefined,
      },
      { on: progress() },
    );
    const config: ResultFile['config'] = {
      targets,
      workloads: flags.workloads,
      agents: stages?.kind === 'agents' ? [peakTarget(stages.stages)] : flags.agents,
      durationMs: stages ? stagesDuration(stages.stages) : flags.duration,
      warmupMs: flags.warmup,
      iterations: flags.iterations,
      protocol: flags.protocol.join(','),
      client: flags.client,
      scale: dbs.length && !shard ? flags.scale : null,
      seed: flags.seed,
      indexes: shard ? foundIndexes(found) : dbs.length ? flags.indexes : [],
      rate: flags.rate ?? null,
      stages: stages ?? null,
      ...(flags.serverCpus || flags.clientCpus ? { cpus: { server: flags.serverCpus ?? null, client: flags.clientCpus ?? null } } : {}),
    };
    if (shard) {
      const at = new Date(startAt ?? Date.now()).toISOString();
      config.shard = { ...shard, runId: flags.runId ?? runIdOf(config, at), startAt: at };
    }
    return { version: RESULT_FILE_VERSION, tool: { name: 'mcp-db-bench', version: VERSION }, environment: environment(), config, ...measured };
  } catch (error) {
    // the target went away during the run: say which server it was
    const why = networkReason(error);
    if (flags.target?.length === 1 && why !== (error as Error).message) throw new Error(`cannot reach the target ${redactUrl(flags.target[0]!)}: ${why}`);
    throw error;
  } finally {
    for (const stop of stops.reverse()) await stop();
    if (tempDir) removeTempDir(tempDir);
  }
}

/** A stdio target's server processes run on the server CPUs; an HTTP target's run elsewhere. */
function pinnedTarget(target: Target, cpus: string | undefined): Target {
  if (target.kind !== 'stdio' || cpus === undefined) return target;
  const [command, args] = pinnedCommand(target.command, target.args, cpus);
  return { ...target, command, args };
}

/**
 * A stdio target's processes are this run's children while its step runs (each agent's, closed
 * after the step): the CPU under this process, but for the HTTP servers started here.
 */
function stdioCpu(target: Target, cpus: string | undefined, servers: readonly number[]): Pick<PlanTarget, 'serverCpuUs'> | undefined {
  if (target.kind !== 'stdio' || cpus === undefined) return undefined;
  return { serverCpuUs: () => cpuUnder(process.pid, { withRoot: false, skip: servers }) };
}

/** One profile when the databases agree (or there is one), else each named by its engine. */
function foundIndexes(found: readonly { name: string; profile: string }[]): string[] {
  const profiles = [...new Set(found.map((f) => f.profile))];
  return profiles.length > 1 ? found.map((f) => `${f.name}: ${f.profile}`) : profiles;
}

function failedVerifications(result: ResultFile) {
  return result.steps.filter((s): s is StepResult & { verification: WriteVerification } => s.verification?.ok === false);
}

function uniqueLabel(name: string, taken: readonly { label: string }[]): string {
  let label = name;
  for (let i = 2; taken.some((t) => t.label === label); i++) label = `${name}-${i}`;
  return label;
}
