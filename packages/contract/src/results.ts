import { z } from 'zod';
import { machineRecord, stepInterference } from './interference.js';
import { TRACE_VALUES } from './trace.js';

/**
 * The result file: every report renders from it alone. Latencies are HdrHistograms in
 * microseconds, base64-encoded (hdr-histogram-js `encodeIntoCompressedBase64`), so results
 * from several runs or machines merge exactly; percentiles are never averaged.
 */
export const RESULT_FILE_VERSION = 1;

/** Tables the benchmark keeps for itself (the dataset's mark) begin with this: never an agent's data. */
export const BENCH_TABLE_PREFIX = 'mcp_db_bench_';

export const encodedHistogram = z.string().describe('HdrHistogram of latencies in microseconds, compressed base64');

export const operationStats = z.object({
  /** successful calls */
  count: z.number().int(),
  histogram: encodedHistogram,
});

export const intervalStats = z.object({
  /** milliseconds since the measured part of the step began */
  atMs: z.number(),
  calls: z.number().int(),
  errors: z.number().int(),
  histogram: encodedHistogram,
  /** staged steps: agents active in this interval (their mean over it: a ramp moves within a second) */
  agents: z.number().optional(),
  /** rate stages: calls the schedule intended in this interval */
  rate: z.number().optional(),
});

export const clientStats = z.object({
  /** load-generator CPU per call, microseconds (user + system) */
  cpuPerCallUs: z.number(),
  /** share of one core the load generator used */
  cpuUtilization: z.number(),
  eventLoopDelayP99Ms: z.number(),
  eventLoopDelayMaxMs: z.number(),
});

/** `run --server-cpus`: the server the run started, as /proc counts it over the measured window. */
export const serverStats = z.object({
  /** CPU of the server's processes (user + system of the process and its descendants) per call, microseconds */
  cpuPerCallUs: z.number(),
});

const count = z.number().int();

/** A write step's state read back against the writes the server acknowledged. */
export const writeVerification = z.object({
  /** the text every row of this step carries, so exactly its rows are read back */
  marker: z.string(),
  ok: z.boolean(),
  /** acknowledged writes: rows inserted, updated, deleted; transfers committed */
  acknowledged: z.object({ insert: count, update: count, delete: count, transfer: count }),
  /** write calls that failed with a definite error (nothing applied), by code */
  failed: z.record(z.string(), count),
  /** write calls with no answer; their rows may be in either state */
  unknown: count,
  rowsRead: count,
  /** acknowledged rows or transfers that are missing */
  lost: count,
  /** rows with the marker that no acknowledged write explains */
  phantom: count,
  /** rows present with other values than the last acknowledged write gave them */
  wrongValues: count,
  payments: z.object({ expected: count, found: count }),
  /** every account's balance against its balance before plus credits minus debits */
  accounts: z.object({ checked: count, mismatched: count }),
  /** the sum of all balances before and after: transfers only move money */
  money: z.object({ before: z.string(), after: z.string() }),
  /** the first few discrepancies */
  problems: z.array(z.string()),
});

/** One load stage: move linearly from the previous stage's target (0 before the first) to `target` over `durationMs`. */
export const loadStage = z.object({ durationMs: z.number(), target: z.number() });

/** `run --stages` (agents) or `--rate-stages` (open loop, calls per second): k6's ramping-vus and ramping-arrival-rate. */
export const loadStages = z.object({ kind: z.enum(['agents', 'rate']), stages: z.array(loadStage) });

/**
 * One percentile of a step's tool calls, microseconds: the client's and the server's, and the
 * server's split in the proportions the calls around that percentile (by server time: 40th–60th
 * for p50, 98.5th–99.5th for p99) spent in each part, so database + wait + protocol = server.
 */
export const callSplit = z.object({
  /** the call as the agent timed it, from the request sent to the answer read */
  clientUs: z.number(),
  /** the server's request span (`POST /mcp`), from the request's arrival to its response's end */
  serverUs: z.number(),
  /** in database statements (their spans) */
  databaseUs: z.number(),
  /** waiting for a pooled connection (`acquire connection` spans) */
  waitUs: z.number(),
  /** the rest of the server's time: reading and parsing the request, validating, building and writing the answer */
  protocolUs: z.number(),
});

/**
 * `run --trace-split`: each call's time split by the spans our server exported during the step
 * (its request span, and the database and connection-wait spans within it), read back by the
 * run's own OTLP receiver. Measured with telemetry on, which itself costs the server CPU.
 */
export const traceSplit = z.object({
  /** tool calls whose spans were read back, of the step's measured window */
  calls: z.number().int(),
  p50: callSplit.extend({
    /** client p50 − server p50: the network and the client's own work */
    networkUs: z.number(),
  }),
  p99: callSplit,
});

export const stepResult = z.object({
  target: z.string().describe('label of the database or server measured'),
  indexes: z.string().nullable(),
  workload: z.string(),
  agents: z.number().int(),
  iteration: z.number().int(),
  mode: z.enum(['closed', 'open']),
  /** open loop: intended calls per second */
  rate: z.number().nullable(),
  durationMs: z.number(),
  calls: z.number().int().describe('successful calls'),
  errors: z.record(z.string(), z.number().int()).describe('failed calls by kind'),
  /**
   * 2025-era sessions the server ended (HTTP 404 to their id) that the clients started again on
   * their own before retrying the call: not errors, unless the retry failed too. Absent in files
   * written before it was counted.
   */
  reinitialized: z.number().int().optional(),
  operations: z.record(z.string(), operationStats),
  all: operationStats,
  intervals: z.array(intervalStats),
  client: clientStats,
  /** `run --server-cpus`: the server's own CPU per call, when the run started that server */
  server: serverStats.optional(),
  openLoop: z.object({ intended: z.number().int(), late: z.number().int(), dropped: z.number().int() }).nullable(),
  /**
   * Calls that began before the step's end and finished after it: how many, and how long after
   * the end the last one finished. A call slower than the step makes its calls/s a guess at best.
   * Absent when none did (and in files written before it was recorded).
   */
  overrun: z.object({ calls: z.number().int(), lastEndedAfterMs: z.number() }).optional(),
  /**
   * A workload whose unit is a committed transaction (transfer): its commit operation's outcomes
   * in the measured window. committed = acknowledged commits; conflicts = `conflict` answers (a
   * lost race for the money, or a deadlock the server still lost after its own retries), nothing
   * applied; failed = its other failed calls. The headline is committed per second, not calls.
   */
  commits: z
    .object({ op: z.string(), committed: z.number().int(), conflicts: z.number().int(), failed: z.number().int() })
    .optional(),
  /** write workloads only */
  verification: writeVerification.optional(),
  /**
   * write workloads: what was put back after the step (its payments deleted, balances set back),
   * so the next step reads the dataset as it was; `ok: false` says why not
   */
  restored: z.object({ ok: z.boolean(), payments: count, accounts: count, problem: z.string().optional() }).optional(),
  /** wall-clock time the measured window opened, epoch milliseconds: sharded runs align their intervals on it */
  startedAt: z.number().optional(),
  /**
   * `run --replay`: where the agents' time went in the measured window, milliseconds summed over
   * the agents (each part clipped to the window): the recorded think time they waited (scaled by
   * --think), and their requests from the first byte sent to the answer read at the client, the
   * server's and the network's time together (no server reports its own). The rest of agents ×
   * duration is the client's own work.
   */
  sessionTime: z.object({ thinkMs: z.number(), callMs: z.number() }).optional(),
  /** `run --trace-split`: where each call's time went, from our server's own spans */
  traceSplit: traceSplit.optional(),
  /**
   * Each operation was a whole MCP session (session-init, session-churn), so the report shows the
   * step's sessions per second and refusals. Absent in files written before it was recorded.
   */
  sessions: z.boolean().optional(),
  /** what else used the machine's CPU during the measured window (Linux; absent where not measured and in older files) */
  interference: stepInterference.optional(),
});

export const decompositionResult = z.object({
  target: z.string(),
  operation: z.string(),
  /** the same statement through the database driver, no MCP */
  raw: operationStats,
  /** the echo tool: MCP and HTTP, no database */
  echo: operationStats,
  /** the tool call end to end */
  full: operationStats,
  /**
   * The three timed in rounds that take turns (echo, driver, tool call), each round's p50 µs: a
   * share per round, so the shares get an interval. Absent in files written before.
   */
  rounds: z.array(z.object({ raw: z.number(), echo: z.number(), full: z.number() })).optional(),
  /**
   * What `echo` timed: our echo tool (absent: the same), or MCP's `ping` request where the server
   * has no echo tool (a peer started by `run --peer`): the protocol with no tool and no database.
   */
  floor: z.enum(['echo', 'ping']).optional(),
});

/** `soak`: the memory of a server's processes (its workers included), sampled while the agents ran. */
export const serverMemory = z.object({
  target: z.string(),
  /** sampling interval, milliseconds */
  everyMs: z.number(),
  /** milliseconds since the measured part began, and resident bytes (each process's own pages, shared file pages once) */
  samples: z.array(z.object({ atMs: z.number(), rss: z.number() })),
});

/** One side of a comparison: a target's steps under one index set (null: a workload without a database). */
const comparisonSide = z.object({
  target: z.string(),
  indexes: z.string().nullable(),
  /** the side's own workload where it differs from the comparison's: the bare floor's `http-echo` */
  workload: z.string().optional(),
  /** the side's own agent count where it differs from the comparison's: the fewest agents a scaling is against */
  agents: z.number().int().optional(),
});

/**
 * Two sides of a comparison, paired by iteration (`pairSteps` in measures.ts, the one pairing):
 * index sets on one target (`indexes`), targets (engines, servers, protocol eras) under one index
 * set, each later one against each earlier one (`targets`), each agent count against the fewest
 * (`agents`), and MCP echo against the bare node:http floor measured beside it (`floor`). The
 * runner alternates the sides within each iteration, so each pair ran close in time; renderers
 * take the median ratio, its interval and its verdict from `comparisonVerdicts` (measures.ts).
 */
export const comparison = z.object({
  kind: z.enum(['indexes', 'targets', 'agents', 'floor']),
  /** the other side's workload and agent count (the base side's unless it names its own) */
  workload: z.string(),
  agents: z.number().int(),
  /** the side compared against: the first index set, the earlier target, the fewest agents, the floor */
  base: comparisonSide,
  other: comparisonSide,
  /** what `rate` counts: successful calls, or committed transactions (transfer). Absent in files written before: calls */
  unit: z.enum(['calls', 'commits']).optional(),
  /** the iterations both sides measured and neither left out, in order */
  iterations: z.array(z.number().int()),
  /** per iteration: other's rate over base's, in `unit` (above 1: other is faster). Absent in files written before */
  rate: z.array(z.number()).optional(),
  /**
   * Files written before `rate`: per iteration, other's calls/s over base's, steps that overran
   * kept. Reports pair such a file's steps again, by today's rules (`comparisonsOf`).
   */
  throughput: z.array(z.number()).optional(),
  /** per iteration: base's p50 over other's (above 1: other answers sooner) */
  p50: z.array(z.number()),
  /**
   * the iterations left out, by reason: a side with no step, nothing to rate, a step that overran;
   * and by the claims rules (absent in files written before them): too few calls for a rate, the
   * machine disturbed by other processes
   */
  excluded: z
    .object({ empty: count, overran: count, unpaired: count, few: count.optional(), disturbed: count.optional() })
    .optional(),
  /**
   * Each iteration left out, with why (`WITHHELD`'s words): what the claims rules say of a ratio
   * with too few usable pairs. Absent in files written before the claims rules, whose comparisons
   * the reports pair again.
   */
  withheld: z.array(z.object({ iteration: z.number().int(), reason: z.string() })).optional(),
});

/** A database as the run found it: version, the settings that decide the result, the dataset it holds. */
export const databaseFacts = z.object({
  /** the server's own words: `PostgreSQL 15.18 (Debian ...)`, `MariaDB 10.11.6-MariaDB...`, `SQLite 3.45.1` */
  version: z.string(),
  /** by the engine's names: shared_buffers, work_mem, jit; innodb_buffer_pool_size; cache_size, journal_mode ... */
  settings: z.record(z.string(), z.string()),
  /** the dataset's marker table: the scale and seed it was made with (null: not known) */
  scale: z.number().nullable(),
  seed: z.number().int().nullable(),
  /** per index set measured (or the one found): the catalog's secondary indexes then, `table.index` */
  indexes: z.record(z.string(), z.array(z.string())),
});

export const environment = z.object({
  node: z.string(),
  platform: z.string(),
  arch: z.string(),
  cpuModel: z.string(),
  cpus: z.number().int(),
  memoryMb: z.number().int(),
  loadAverage: z.array(z.number()),
});

/** Bytes and tokens of what a server sends the agent's model. */
const payload = z.object({ bytes: count, tokens: count });

/** Per target, from the untimed check pass: what its answers cost the agent's context. */
export const tokenCost = z.object({
  target: z.string(),
  /** which tokenizer counted (it approximates the host model's) */
  tokenizer: z.string(),
  /** the tools/list answer: names, descriptions and schemas */
  toolsList: payload,
  /** tools/list plus the discovery answers of a session start (list_tables, the task's tables described) */
  sessionStart: payload,
  /** per workload: each call's answer, median and largest */
  calls: z.array(
    z.object({
      workload: z.string(),
      calls: count,
      bytes: z.object({ p50: count, max: count }),
      tokens: z.object({ p50: count, max: count }),
    }),
  ),
});

/** The same seeded calls on two targets: their answers' row counts and keys compared. */
export const agreement = z.object({
  workload: z.string(),
  reference: z.string(),
  target: z.string(),
  calls: count,
  mismatches: count,
  /** the first few calls that differ */
  differences: z.array(z.string()),
});

export const resultFile = z.object({
  version: z.literal(RESULT_FILE_VERSION),
  tool: z.object({ name: z.string(), version: z.string() }),
  startedAt: z.string(),
  finishedAt: z.string(),
  environment,
  config: z.object({
    targets: z.array(
      z.object({
        label: z.string(),
        engine: z.string().nullable(),
        url: z.string().nullable(),
        /** --target and --target-cmd: the profile the simulator drove it through */
        profile: z.string().optional(),
        /** a database the run served: what it is and holds, read from it (not from the flags) */
        database: databaseFacts.optional(),
        /**
         * `run --peer`: another server the run started on this target's database (`url`, `engine` and
         * `database` are the database's): its profile's name and the command it was started with
         */
        peer: z.object({ name: z.string(), command: z.string() }).optional(),
      }),
    ),
    workloads: z.array(z.string()),
    agents: z.array(z.number().int()),
    /** `run --workload-agents`: a workload's own agent counts, by name (the others stepped through `agents`) */
    workloadAgents: z.record(z.string(), z.array(z.number().int())).optional(),
    durationMs: z.number(),
    /** `run --duration-at`: a step's measured time by its agent count, instead of `durationMs` */
    durationAt: z.record(z.string(), z.number()).optional(),
    warmupMs: z.number(),
    iterations: z.number().int(),
    protocol: z.string(),
    client: z.string(),
    scale: z.number().nullable(),
    seed: z.number().int(),
    indexes: z.array(z.string()),
    rate: z.number().nullable(),
    /** `run --server-cpus` / `--client-cpus`: the CPUs the servers the run started and the load generator were pinned to */
    cpus: z.object({ server: z.string().nullable(), client: z.string().nullable() }).optional(),
    /**
     * `study --budget`: iterations added after the planned ones (`iterations`), in batches of
     * `batch`, until the ratios settled or the budget ran out; the steps run to `iterations` here.
     */
    extended: z.object({ iterations: z.number().int(), batch: z.number().int() }).optional(),
    /**
     * `run --band`, `study --band`: the claims rules' practical band as a factor (1.1: ratios within
     * [1/1.1, 1.1] are no difference worth claiming). Absent: the rules' default, ±10%.
     */
    band: z.number().optional(),
    /** floor, soak and each segment of a study: the command line that measured the file, URLs redacted (absent from run's own files) */
    command: z.string().optional(),
    /** floor and soak: the worker processes of the servers they started */
    workers: z.number().int().optional(),
    /** floor: each step alternated the floor and our server this many times */
    slices: z.number().int().optional(),
    /** `run --replay`: the trace the agents replayed (its `replay` steps' operations are its methods and tools) */
    replay: z
      .object({
        /** the trace's file name */
        trace: z.string(),
        /** the server it was recorded against, as the trace names it */
        recordedTarget: z.string(),
        values: z.enum(TRACE_VALUES),
        sessions: z.number().int(),
        requests: z.number().int(),
        /** --think: the factor the recorded think times were scaled by (0: none) */
        think: z.number(),
        /** the `GET` streams the hosts opened (trace `stream` lines), which the replay did not open */
        streams: z.number().int().optional(),
      })
      .optional(),
    /** staged runs: each workload ran once through these stages instead of the agents × duration grid */
    stages: loadStages.nullable().optional(),
    /** `run --shard I/N`: this file is part `index` (0-based) of `count`; a merged file has no `index` */
    shard: z
      .object({
        index: z.number().int().optional(),
        count: z.number().int(),
        /** the same on every shard of one run: `merge` refuses files whose run ids differ */
        runId: z.string(),
        /** the agreed instant the first step's warm-up began, ISO */
        startAt: z.string(),
      })
      .optional(),
  }),
  sessionInit: z.array(
    z.object({
      target: z.string(),
      indexes: z.string().nullable(),
      /** describing the tables a task needs (`taskTables`), on a new connection each time */
      cold: operationStats,
      /** the same on one connection */
      warm: operationStats,
      /** the warm start describing every table (`allTables`) */
      full: operationStats.optional(),
      taskTables: z.array(z.string()).optional(),
      allTables: z.number().int().optional(),
      /** the pass it was measured in: the first, on a server just started (absent in older files) */
      iteration: z.number().int().optional(),
      /**
       * The same measured again in the last pass, on a server that has served the whole run: the
       * first measurement runs 1.5-2x slower (code paths not yet compiled). Absent with one pass.
       */
      later: z
        .object({
          iteration: z.number().int(),
          cold: operationStats,
          warm: operationStats,
          full: operationStats.optional(),
        })
        .optional(),
    }),
  ),
  /** the run was interrupted (Ctrl-C): these are the steps it finished before */
  partial: z.boolean().optional(),
  steps: z.array(stepResult),
  decomposition: z.array(decompositionResult),
  warnings: z.array(z.string()),
  /** workloads not run on a target (it lacks a tool they need), never counted as errors */
  skipped: z.array(z.object({ target: z.string(), workload: z.string(), reason: z.string() })).optional(),
  /** a merged sharded run: each shard's machine and times (the top-level `environment` is shard 0's) */
  shards: z
    .array(
      z.object({ index: z.number().int(), environment: environment, startedAt: z.string(), finishedAt: z.string() }),
    )
    .optional(),
  /** several targets: each workload's sampled calls replayed on every target and compared with the first */
  agreement: z.array(agreement).optional(),
  /** what each target's tools/list, session start and answers cost in bytes and tokens */
  tokens: z.array(tokenCost).optional(),
  /** soak: the memory of the servers it watched */
  memory: z.array(serverMemory).optional(),
  /** the sides a run compared, paired per iteration (absent in files written before) */
  comparisons: z.array(comparison).optional(),
  /** the machine during the run: CPUs, load average, whether the steps' interference was measured */
  machine: machineRecord.optional(),
});

export type WriteVerification = z.infer<typeof writeVerification>;
export type ResultFile = z.infer<typeof resultFile>;
export type StepResult = z.infer<typeof stepResult>;
export type TraceSplit = z.infer<typeof traceSplit>;
export type OperationStats = z.infer<typeof operationStats>;
export type LoadStage = z.infer<typeof loadStage>;
export type LoadStages = z.infer<typeof loadStages>;
export type Agreement = z.infer<typeof agreement>;
export type TokenCost = z.infer<typeof tokenCost>;
export type DecompositionResult = z.infer<typeof decompositionResult>;
export type ServerMemory = z.infer<typeof serverMemory>;
export type Comparison = z.infer<typeof comparison>;
export type DatabaseFacts = z.infer<typeof databaseFacts>;

/** What the load generator measured of a step, before the runner names it (target, workload, agents...). */
export type StepMeasurement = Pick<
  StepResult,
  | 'mode'
  | 'rate'
  | 'durationMs'
  | 'calls'
  | 'errors'
  | 'reinitialized'
  | 'operations'
  | 'all'
  | 'intervals'
  | 'client'
  | 'server'
  | 'openLoop'
  | 'overrun'
  | 'commits'
  | 'startedAt'
  | 'sessionTime'
  | 'interference'
>;

/**
 * A run as its result file describes it (`config`): the command builds it once, the runner takes
 * what it runs from it, and the result file carries it as it is.
 */
export type RunDescription = ResultFile['config'];

/** A workload the runner did not run on a target, and why. */
export type Skipped = NonNullable<ResultFile['skipped']>[number];

/** What a plan measured: the result file without its header (tool, environment, version). */
export type PlanResult = Pick<
  ResultFile,
  | 'config'
  | 'startedAt'
  | 'finishedAt'
  | 'sessionInit'
  | 'steps'
  | 'decomposition'
  | 'warnings'
  | 'agreement'
  | 'tokens'
  | 'comparisons'
> & {
  skipped: Skipped[];
};
