import {
  type McpClient,
  measureCalls,
  openLedger,
  Random,
  runStep,
  SimAgent,
  startAgent,
  verifyWrites,
  WORKLOADS,
  type WriteLedger,
  type WriteVerification,
} from '@mcp-db-bench/agent';
import type { DecompositionResult, OperationStats, ResultFile, StepResult } from '@mcp-db-bench/contract';
import { applyIndexProfile, type IndexProfile } from '@mcp-db-bench/dataset';
import { engineForUrl } from '@mcp-db-bench/server';
import { sql } from 'kysely';

export interface MeasureOptions {
  label: string;
  /** a database we seeded and may re-index, or null for a server we only talk to */
  dbUrl: string | null;
  client: () => McpClient;
  workloads: string[];
  agents: number[];
  durationMs: number;
  warmupMs: number;
  iterations: number;
  indexes: IndexProfile[];
  rate: number | null;
  seed: number;
  log: (line: string) => void;
  /** shows what is running now (a live line on a terminal) */
  pending?: (line: string) => void;
}

/** A step of a write workload carries what reading the database back found. */

export interface TargetResults {
  steps: StepResult[];
  sessionInit: ResultFile['sessionInit'];
  decomposition: DecompositionResult[];
}

/**
 * Everything measured against one target: session init, every workload at every agent count
 * (per index profile when we own the database), and the cost decomposition.
 */
export async function measureTarget(o: MeasureOptions): Promise<TargetResults> {
  const out: TargetResults = { steps: [], sessionInit: [], decomposition: [] };
  const tools = await toolNames(o.client);
  // A fresh server process compiles its hot paths during the first seconds; without this the
  // first round (baseline) would pay for that and the index speed-up would be overstated.
  o.pending?.(`${o.label}: warming up the server`);
  await runStep({
    agents: 2,
    mode: 'closed',
    warmupMs: 0,
    durationMs: Math.max(1000, o.warmupMs * 2),
    makeAgent: (i: number) => startAgent(WORKLOADS.mixed!, o.client(), o.seed, i),
  });
  const rounds: (IndexProfile | null)[] = o.dbUrl ? o.indexes : [null];
  for (const [round, indexes] of rounds.entries()) {
    if (o.dbUrl && indexes) {
      const changed = await applyIndexProfile(o.dbUrl, indexes);
      o.log(`${o.label}: ${indexes} indexes (created ${changed.created.length}, dropped ${changed.dropped.length})`);
    }
    out.sessionInit.push({ target: o.label, indexes, ...(await sessionInit(o.client)) });
    for (const name of o.workloads) {
      const workload = WORKLOADS[name]!;
      if (!workload.database && round > 0) continue;
      if (name === 'echo' && !tools.includes('echo')) {
        o.log(`${o.label}: skipping echo: the server has no echo tool`);
        continue;
      }
      for (const agents of o.agents) {
        for (let iteration = 1; iteration <= o.iterations; iteration++) {
          o.pending?.(`${o.label}${workload.database && indexes ? ` (${indexes})` : ''} ${name} × ${agents}`);
          // Write steps: accounts are read before (unmeasured) and everything is read back after.
          const ledger = workload.writes ? await withClient(o.client, (c) => openLedger(c)) : undefined;
          const m = await runStep({
            agents,
            mode: o.rate ? 'open' : 'closed',
            rate: o.rate ?? undefined,
            warmupMs: o.warmupMs,
            durationMs: o.durationMs,
            makeAgent: (i: number) => startAgent(workload, o.client(), o.seed + iteration, i, ledger),
          });
          const step: StepResult = { target: o.label, indexes: workload.database ? indexes : null, workload: name, agents, iteration, ...m };
          if (ledger) step.verification = await verify(o, ledger);
          out.steps.push(step);
          const errors = Object.values(step.errors).reduce((a, b) => a + b, 0);
          o.log(
            `${o.label}${step.indexes ? ` (${step.indexes})` : ''} ${name} × ${agents}: ${Math.round(step.calls / (step.durationMs / 1000))} calls/s` +
              `${errors ? `, ${errors} errors (${Object.keys(step.errors).join(', ')})` : ''}`,
          );
        }
      }
    }
  }
  if (o.dbUrl && tools.includes('echo')) out.decomposition = await decompose(o.label, o.dbUrl, o.client);
  return out;
}

async function withClient<T>(factory: () => McpClient, use: (client: McpClient) => Promise<T>): Promise<T> {
  const client = factory();
  try {
    await client.open();
    return await use(client);
  } finally {
    await client.close();
  }
}

async function verify(o: MeasureOptions, ledger: WriteLedger): Promise<WriteVerification> {
  o.pending?.(`${o.label}: verifying ${ledger.marker}`);
  const v = await withClient(o.client, (c) => verifyWrites(c, ledger));
  const a = v.acknowledged;
  o.log(
    `${o.label}: ${v.ok ? 'verified' : 'VERIFICATION FAILED'}: ${a.insert} inserted, ${a.update} updated, ${a.delete} deleted, ${a.transfer} transfers; ` +
      `${v.lost} lost, ${v.phantom} phantom, ${v.wrongValues} wrong, ${v.accounts.mismatched} balances off, money ${v.money.before} -> ${v.money.after}; ${v.unknown} unknown outcomes`,
  );
  for (const p of v.problems) o.log(`  ${p}`);
  return v;
}

/** The stats of a sequence of timed calls; failed calls are an error here, not a data point. */
async function timed(what: string, options: Parameters<typeof measureCalls>[0]): Promise<OperationStats> {
  const { count, histogram, errors } = await measureCalls(options);
  const failed = Object.entries(errors);
  if (failed.length) throw new Error(`${what} failed: ${failed.map(([kind, n]) => `${n} × ${kind}`).join(', ')}`);
  return { count, histogram };
}

async function toolNames(factory: () => McpClient): Promise<string[]> {
  const client = factory();
  try {
    await client.open();
    return (await client.listTools()).map((t) => t.name);
  } finally {
    await client.close();
  }
}

/**
 * Cold: a new connection and a whole session start each time; warm: again on one connection.
 * Both describe the tables a task needs, as an agent does; `full` is the warm start that
 * describes every table, beside it.
 */
export async function sessionInit(factory: () => McpClient) {
  const tables = WORKLOADS['session-init']!.tables;
  const cold = await timed('session init (cold)', {
    count: 20,
    warmup: 2,
    call: async () => {
      const client = factory();
      try {
        await new SimAgent(client, new Random(1)).init(tables);
      } finally {
        await client.close();
      }
    },
  });
  const client = factory();
  try {
    const agent = new SimAgent(client, new Random(1));
    const warm = await timed('session init (warm)', { count: 50, warmup: 5, call: () => agent.init(tables) });
    const full = await timed('session init (warm, every table)', { count: 20, warmup: 2, call: () => agent.init() });
    return { cold, warm, full, taskTables: [...(tables ?? [])], allTables: agent.tableNames.length };
  } finally {
    await client.close();
  }
}

/**
 * The same lookups three ways, one at a time: through the driver with no MCP, through the
 * echo tool with no database, and as the full tool call.
 */
export async function decompose(label: string, dbUrl: string, factory: () => McpClient): Promise<DecompositionResult[]> {
  const engine = engineForUrl(dbUrl);
  const { db, close } = await engine.connect(dbUrl, { poolSize: 1, inProcess: true });
  const client = factory();
  try {
    await client.open();
    const count = async (table: string) =>
      Number((await sql<{ n: unknown }>`select count(*) as n from ${sql.id(table)}`.execute(db)).rows[0]?.n ?? 1);
    const orders = await count('orders');
    const random = new Random(7);
    const echo = await timed('echo', { count: 500, warmup: 50, call: () => client.callTool('echo', { message: 'ping' }).then(() => {}) });
    const results: DecompositionResult[] = [];
    const ops = [
      {
        operation: 'get orders by id',
        raw: (id: number) => sql`select * from ${sql.id('orders')} where ${sql.id('id')} = ${id}`.execute(db),
        full: (id: number) => client.callTool('get', { table: 'orders', key: id }),
      },
      {
        operation: 'query order_items by order_id',
        raw: (id: number) =>
          engine.limit(db.selectFrom('order_items').selectAll().where(sql<boolean>`${sql.id('order_id')} = ${id}`).orderBy(sql.id('id')), 21).execute(),
        full: (id: number) => client.callTool('query', { table: 'order_items', filter: `order_id = ${id}`, limit: 20 }),
      },
    ];
    for (const op of ops) {
      const raw = await timed(`${op.operation} (driver)`, { count: 500, warmup: 50, call: () => op.raw(random.int(1, orders)).then(() => {}) });
      const full = await timed(`${op.operation} (MCP)`, { count: 500, warmup: 50, call: () => op.full(random.int(1, orders)).then(() => {}) });
      results.push({ target: label, operation: op.operation, raw, echo, full });
    }
    return results;
  } finally {
    await client.close();
    await close();
  }
}

