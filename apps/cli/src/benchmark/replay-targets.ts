/**
 * What `run --replay` replays a trace against: our server on each --db (seeded as a run seeds it),
 * each --target (HTTP) and --target-cmd (stdio, a process per agent, as a run starts them). Every
 * one is checked first to offer the tools the trace calls; each agent opens its own connection.
 */

import { type ResultFile, TOOL_NAMES } from '@mcp-db-bench/contract';
import { rowCounts } from '@mcp-db-bench/dataset';
import { redactUrl } from '@mcp-db-bench/engines';
import {
  checkReplayable,
  cpuUnder,
  createClient,
  createHttpTransport,
  createStdioTransport,
  DEFAULT_CLIENT_INFO,
  type McpClient,
  modernMeta,
  type PlanTarget,
  ReplayError,
  startReplayAgent,
  type Target,
  type Trace,
  type Transport,
} from '@mcp-db-bench/loadgen';
import { UsageError } from '../errors.js';
import { logLine } from '../render/progress.js';
import { KeySpace, shapeFiller } from '../replay/fill.js';
import { pinnedCommand } from '../serving/cpus.js';
import type { Database } from '../serving/database.js';
import { engineName } from '../serving/facts.js';
import type { Serving } from '../serving/lifecycle.js';
import type { PeerTarget } from '../serving/targets.js';
import type { RunConfig } from './config.js';

/** What every target's agents share. */
export interface Replaying {
  trace: Trace;
  config: RunConfig;
  /** the trace has sessions of both eras: a stdio process keeps the era of its first message */
  bothEras: boolean;
  /** the step's agent count, which the agents share out the sessions by (the runner says it as a step starts) */
  agents(): number;
}

/** The targets as the result file names them, and the plan's entry for each, in the same order. */
export interface ReplayTargets {
  targets: ResultFile['config']['targets'];
  plan: PlanTarget[];
}

type Entry = Omit<ResultFile['config']['targets'][number], 'label'>;
type Owned = Pick<PlanTarget, 'reindex' | 'driver' | 'serverCpuUs'>;

/** Our databases' servers first, then the other servers, each checked before the next starts. */
export async function replayTargets(
  serving: Serving,
  peers: readonly PeerTarget[],
  replaying: Replaying,
): Promise<ReplayTargets> {
  const into: ReplayTargets = { targets: [], plan: [] };
  for (const db of serving.databases) await addDatabase(into, replaying, serving, db);
  for (const peer of peers) await addPeer(into, replaying, peer);
  return into;
}

/** Our server on a database; with --allow-writes when the trace writes. */
async function addDatabase(into: ReplayTargets, replaying: Replaying, serving: Serving, db: Database): Promise<void> {
  const { config, trace } = replaying;
  const owned = await serving.prepare(db, {
    scale: config.scale,
    seed: config.seed,
    indexes: config.indexes[0] ?? 'optimized',
  });
  const writes = trace.sessions.some((s) => s.requests.some((r) => r.tool && WRITE_TOOLS.has(r.tool)));
  const name = await engineName(db);
  const server = await serving.server(db, { args: writes ? ['--allow-writes'] : [], cpus: config.serverCpus });
  logLine(`${name}: our MCP server at ${server.endpoint}`);
  const cpu = config.serverCpus ? { serverCpuUs: () => cpuUnder(server.child.pid!) } : {};
  await add(
    into,
    replaying,
    name,
    { kind: 'http', url: server.endpoint },
    { engine: name, url: redactUrl(db.url) },
    { ...owned, ...cpu },
  );
}

/** Another server, a stdio one's processes on the server CPUs. */
async function addPeer(into: ReplayTargets, replaying: Replaying, peer: PeerTarget): Promise<void> {
  const { serverCpus } = replaying.config;
  const target = pinnedTarget(peer.target, serverCpus);
  // a stdio target's processes are this run's children (each agent's, closed after its step)
  const cpu =
    target.kind === 'stdio' && serverCpus ? { serverCpuUs: () => cpuUnder(process.pid, { withRoot: false }) } : {};
  await add(into, replaying, 'target', target, { engine: null, url: peer.url && redactUrl(peer.url) }, cpu);
}

/** A target checked, named apart from those before it, and planned with agents of its own. */
async function add(
  into: ReplayTargets,
  replaying: Replaying,
  label: string,
  target: Target,
  entry: Entry,
  owned: Owned = {},
): Promise<void> {
  const { trace, config } = replaying;
  const floors = await checkTarget(trace, target, config.token, label);
  // above the target's highest id, or the dataset's when the target cannot say
  const counts = rowCounts(config.scale);
  const keys = new KeySpace((table) => Math.max(floors.get(table) ?? 0, counts[table] ?? 0));
  // several --target: target, target-2, ...
  for (let n = 2; into.targets.some((t) => t.label === label); n++) label = `${label.replace(/-\d+$/, '')}-${n}`;
  into.targets.push({ label, ...entry });
  into.plan.push({ label, ...owned, agent: (index) => replayAgent(replaying, target, index, keys) });
}

/** One agent, replaying sessions round robin with the recorded think times scaled by --think. */
async function replayAgent(replaying: Replaying, target: Target, index: number, keys: KeySpace) {
  const { trace, config } = replaying;
  return startReplayAgent({
    trace,
    transport: await transportFor(target, config.token),
    // a stdio process stays in the era its first session chose: 2026-era sessions get one of their own
    ...(target.kind === 'stdio' && replaying.bothEras
      ? { modernTransport: await transportFor(target, config.token, 'modern') }
      : {}),
    index,
    agents: replaying.agents(),
    think: config.think,
    fill: fillFor(trace, config, index, keys),
  });
}

/** The tools that change data: a trace that calls one needs our server started with --allow-writes. */
const WRITE_TOOLS: ReadonlySet<string> = new Set([
  TOOL_NAMES.insert,
  TOOL_NAMES.update,
  TOOL_NAMES.delete,
  TOOL_NAMES.transact,
]);

/** What a tools/call sends: the arguments as kept, filled from the dataset when shaped, none when dropped. */
function fillFor(trace: Trace, config: RunConfig, agent: number, keys: KeySpace) {
  if (trace.header.values === 'keep') return (request: { arguments?: unknown }) => request.arguments;
  if (trace.header.values === 'drop') return () => ({});
  const filler = shapeFiller({ scale: config.scale, seed: config.seed, agent, keys });
  return filler.fill;
}

/**
 * An agent's own connection, or its own server process: started and answering a `ping` before the
 * step, so a process's start is never timed as a replayed call (as a run opens its stdio clients first).
 * The ping speaks `era`, which a stdio process keeps from its first message on.
 */
async function transportFor(
  target: Target,
  token: string | undefined,
  era: 'legacy' | 'modern' = 'legacy',
): Promise<Transport<unknown>> {
  if (target.kind === 'http')
    return createHttpTransport({ url: target.url, protocol: 'legacy', token, timeoutMs: 30_000 });
  const transport = createStdioTransport({ ...target, protocol: era, timeoutMs: 30_000 });
  transport.begin();
  // id 0: the agent numbers its requests from 1; any answer, an error too, says the server reads its stdin
  const params = era === 'modern' ? { _meta: modernMeta(DEFAULT_CLIENT_INFO) } : undefined;
  try {
    await transport.request(
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping', params }),
      0,
      transport.route(era, 'ping'),
    );
  } catch (error) {
    await transport.close();
    throw error;
  }
  return transport;
}

/** A stdio target's server processes run on the server CPUs. */
function pinnedTarget(target: Target, cpus: string | undefined): Target {
  if (target.kind !== 'stdio' || cpus === undefined) return target;
  const [command, args] = pinnedCommand(target.command, target.args, cpus);
  return { ...target, command, args };
}

/** A target as the result file and errors name it: its URL, or its command. */
const nameOf = (target: Target) => (target.kind === 'http' ? redactUrl(target.url) : target.command);

/**
 * The target offers every tool the trace calls (and can do without dropped arguments), or a usage
 * error says what is missing. Answers the highest id of each table a shaped trace inserts into,
 * where the target can say (its `aggregate` tool): replayed inserts take the keys above it.
 */
async function checkTarget(
  trace: Trace,
  target: Target,
  token: string | undefined,
  label: string,
): Promise<Map<string, number>> {
  const client = createClient(target, { client: 'lean', protocol: 'auto', token, timeoutMs: 30_000 });
  try {
    await client.open();
    const tools = await client.listTools();
    checkReplayable(trace, tools, `${label} (${nameOf(target)})`);
    const floors = new Map<string, number>();
    if (trace.header.values !== 'shape' || !tools.some((t) => t.name === TOOL_NAMES.aggregate)) return floors;
    for (const table of insertedTables(trace)) floors.set(table, await highestId(client, table));
    return floors;
  } catch (error) {
    if (error instanceof ReplayError) throw new UsageError(error.message);
    throw new Error(`cannot list the tools of ${nameOf(target)}: ${(error as Error).message}`);
  } finally {
    await client.close();
  }
}

/** The tables the trace's inserts (alone or as transact steps) name. */
function insertedTables(trace: Trace): Set<string> {
  const tables = new Set<string>();
  const visit = (op: unknown, args: unknown) => {
    const { table, steps } = (args ?? {}) as { table?: unknown; steps?: unknown };
    if (op === TOOL_NAMES.insert && typeof table === 'string') tables.add(table);
    if (Array.isArray(steps)) for (const step of steps) visit((step as { op?: unknown })?.op, step);
  };
  for (const s of trace.sessions) for (const r of s.requests) visit(r.tool, r.arguments);
  return tables;
}

/** A table's highest id at the target; 0 when it has no rows or cannot say. */
async function highestId(client: McpClient, table: string): Promise<number> {
  const answer = await client
    .callTool(TOOL_NAMES.aggregate, { table, aggregates: [{ fn: 'max', column: 'id', as: 'top' }] })
    .catch(() => undefined);
  if (!answer || answer.isError) return 0;
  const rows = (answer.data as { rows?: unknown[] } | undefined)?.rows;
  const first = rows?.[0] as unknown[] | Record<string, unknown> | undefined;
  const top = Array.isArray(first) ? first[0] : first?.top;
  const n = Number(top);
  return Number.isFinite(n) ? n : 0;
}
