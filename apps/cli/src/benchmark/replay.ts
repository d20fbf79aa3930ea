/**
 * `run --replay TRACE`: recorded sessions as the workload. Our server on each --db (seeded as a
 * run seeds it), or each --target; every one checked first to offer the tools the trace calls.
 * One `replay` step per agent count (and index round on our databases), each agent replaying
 * sessions round robin with the recorded think times scaled by --think.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  checkReplayable,
  createClient,
  createHttpTransport,
  type PlanResult,
  type PlanTarget,
  parseTrace,
  ReplayError,
  runPlan,
  startReplayAgent,
  type Trace,
  type Workload,
} from '@mcp-db-bench/agent';
import { type ResultFile, TOOL_NAMES } from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import { UsageError } from '../errors.js';
import { logLine, progress } from '../render/progress.js';
import { shapeFiller } from '../replay/fill.js';
import { resultOf, writeResultFile } from '../results.js';
import { cpuUnder } from '../serving/cpus.js';
import { onInterrupt } from '../serving/interrupt.js';
import { withServing } from '../serving/lifecycle.js';
import type { RunConfig } from './config.js';

/** The workload name replay steps are filed under. */
export const REPLAY_WORKLOAD = 'replay';

/** The trace file, read and checked: a usage error names the file and the line. */
export function readTrace(file: string): Trace {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--replay ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  try {
    return parseTrace(text, `--replay ${file}`);
  } catch (error) {
    if (error instanceof ReplayError) throw new UsageError(error.message);
    throw error;
  }
}

export async function measureReplay(config: RunConfig & { replay: string }): Promise<ResultFile> {
  const trace = readTrace(config.replay);
  const requests = trace.sessions.reduce((n, s) => n + s.requests.length, 0);
  logLine(
    `replaying ${trace.sessions.length} session(s), ${requests} requests, recorded against ${trace.header.target} ` +
      `(values ${trace.header.values}), think time × ${config.think}`,
  );
  const workload: Workload = {
    name: REPLAY_WORKLOAD,
    description: `the sessions of ${basename(config.replay)}`,
    database: true,
    requires: [],
    next() {
      throw new Error('a replay step is driven by its agents');
    },
  };
  return withServing({ db: config.db, temporary: !config.target }, async (serving) => {
    const targets: ResultFile['config']['targets'] = [];
    const plan: PlanTarget[] = [];
    // the agents share out the sessions by the step's agent count, which the runner says in its step-start event
    let currentAgents = config.agents[0]!;
    const add = async (
      label: string,
      url: string,
      entry: Omit<ResultFile['config']['targets'][number], 'label'>,
      owned: Pick<PlanTarget, 'reindex' | 'driver' | 'serverCpuUs'> = {},
    ) => {
      await checkTarget(trace, url, config.token, label);
      // several --target: target, target-2, ...
      for (let n = 2; targets.some((t) => t.label === label); n++) label = `${label.replace(/-\d+$/, '')}-${n}`;
      targets.push({ label, ...entry });
      plan.push({
        label,
        ...owned,
        agent: async (index) =>
          startReplayAgent({
            trace,
            transport: createHttpTransport({ url, protocol: 'legacy', token: config.token, timeoutMs: 30_000 }),
            index,
            agents: currentAgents,
            think: config.think,
            fill: fillFor(trace, config, index),
          }),
      });
    };
    for (const db of serving.databases) {
      const owned = await serving.prepare(db, {
        scale: config.scale,
        seed: config.seed,
        indexes: config.indexes[0] ?? 'optimized',
      });
      const writes = trace.sessions.some((s) => s.requests.some((r) => r.tool && WRITE_TOOLS.has(r.tool)));
      const server = await serving.server(db, { args: writes ? ['--allow-writes'] : [], cpus: config.serverCpus });
      logLine(`${db.engine.name}: our MCP server at ${server.endpoint}`);
      const cpu = config.serverCpus ? { serverCpuUs: () => cpuUnder(server.child.pid!) } : {};
      await add(
        db.engine.name,
        server.endpoint,
        { engine: db.engine.name, url: redactUrl(db.url) },
        { ...owned, ...cpu },
      );
    }
    for (const url of config.target ?? []) await add('target', url, { engine: null, url: redactUrl(url) });

    const configOf = (): ResultFile['config'] => ({
      targets,
      workloads: [REPLAY_WORKLOAD],
      agents: config.agents,
      durationMs: config.duration,
      warmupMs: config.warmup,
      iterations: config.iterations,
      protocol: 'as recorded',
      client: 'replay',
      scale: serving.databases.length ? config.scale : null,
      seed: config.seed,
      indexes: serving.databases.length ? config.indexes : [],
      rate: null,
      stages: null,
      replay: {
        trace: basename(config.replay),
        recordedTarget: trace.header.target,
        values: trace.header.values,
        sessions: trace.sessions.length,
        requests,
        think: config.think,
      },
      ...(config.serverCpus || config.clientCpus
        ? { cpus: { server: config.serverCpus ?? null, client: config.clientCpus ?? null } }
        : {}),
    });
    const steps: PlanResult['steps'] = [];
    const show = progress();
    const keepPartial = config.out
      ? onInterrupt(() => {
          const now = new Date().toISOString();
          writeResultFile(config.out!, {
            ...resultOf(configOf(), {
              startedAt: now,
              finishedAt: now,
              sessionInit: [],
              steps,
              decomposition: [],
              warnings: [],
              skipped: [],
            }),
            partial: true,
          });
          logLine(`${steps.length} finished step(s) written to ${config.out}, marked partial`);
        })
      : () => {};
    const measured = await runPlan(
      {
        targets: plan,
        indexes: config.indexes,
        workloads: [workload],
        agents: config.agents,
        iterations: config.iterations,
        warmupMs: config.warmup,
        durationMs: config.duration,
        seed: config.seed,
      },
      {
        on: (event) => {
          if (event.type === 'step-start') currentAgents = event.step.agents;
          if (event.type === 'step-end') steps.push(event.step);
          show(event);
        },
      },
    );
    keepPartial();
    return resultOf(configOf(), measured);
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
function fillFor(trace: Trace, config: RunConfig, agent: number) {
  if (trace.header.values === 'keep') return (request: { arguments?: unknown }) => request.arguments;
  if (trace.header.values === 'drop') return () => ({});
  const filler = shapeFiller({ scale: config.scale, seed: config.seed, agent });
  return filler.fill;
}

/** The target offers every tool the trace calls (and can do without dropped arguments), or a usage error says what is missing. */
async function checkTarget(trace: Trace, url: string, token: string | undefined, label: string): Promise<void> {
  const client = createClient({ kind: 'http', url }, { client: 'lean', protocol: 'auto', token, timeoutMs: 30_000 });
  try {
    await client.open();
    checkReplayable(trace, await client.listTools(), `${label} (${redactUrl(url)})`);
  } catch (error) {
    if (error instanceof ReplayError) throw new UsageError(error.message);
    throw new Error(`cannot list the tools of ${redactUrl(url)}: ${(error as Error).message}`);
  } finally {
    await client.close();
  }
}
