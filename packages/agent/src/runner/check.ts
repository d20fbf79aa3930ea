/**
 * The untimed pass after the measured steps: the same seeded calls on every target, their
 * answers compared (row counts and keys, so a fast wrong answer cannot win), and what each
 * answer costs the agent in bytes and tokens. The tokenizer never runs on the timed path.
 */
import { Random, type ResultFile } from '@mcp-db-bench/contract';
import { SimAgent } from '../agent.js';
import type { McpClient, ToolCallResult } from '../clients/client.js';
import { ProfileClient } from '../profiles/profile.js';
import { TASK_TABLES } from '../workloads/session-init.js';
import type { Call, Workload } from '../workloads/workload.js';

export const TOKENIZER = 'o200k_base (gpt-tokenizer): approximates, does not equal, the host model’s tokenizer';

export type Agreement = NonNullable<ResultFile['agreement']>[number];
export type TokenCost = NonNullable<ResultFile['tokens']>[number];

export interface CheckTarget {
  label: string;
  client: () => McpClient;
}

/** A client whose peer's raw answers are collected: the texts since the last `take()`. */
class Tapped {
  readonly raw: string[] = [];
  readonly client: McpClient;
  constructor(factory: () => McpClient) {
    this.client = factory();
    if (this.client instanceof ProfileClient) this.client.tap((_, text) => this.raw.push(text));
  }
  take(): string[] {
    return this.raw.splice(0);
  }
}

type Count = (text: string) => number;
/** loaded on first use: its 2.4 MB of ranks take ~0.1 s, which no other command should pay */
let countTokens: Count | undefined;
const tokenizer = async (): Promise<Count> => (countTokens ??= (await import('gpt-tokenizer/encoding/o200k_base')).countTokens);

const size = (texts: readonly string[]) => ({ bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0), tokens: texts.reduce((n, t) => n + countTokens!(t), 0) });

/** A call's answer as compared across targets: its row count and the rows' keys (sorted), or its error. */
export function fingerprint(call: Call, result: ToolCallResult, primaryKey: readonly string[]): string {
  if (result.isError) return `error ${(result.data as { error?: { code?: string } })?.error?.code ?? ''}`.trim();
  const data = result.data as { rows?: Record<string, unknown>[]; row?: Record<string, unknown> | null } | undefined;
  const rows = Array.isArray(data?.rows) ? data.rows : data?.row ? [data.row] : [];
  // aggregates: the counts (`n`), sorted, as groups tied on the count may come in either order
  const key = (r: Record<string, unknown>) => (call.args.aggregates ? String(r.n ?? '') : primaryKey.map((c) => String(r[c])).join('|'));
  return `${rows.length} row${rows.length === 1 ? '' : 's'} [${rows.map(key).sort().join(', ')}]`;
}

/** Per target: `tools/list` and the session start's payloads, and each workload's answers, in bytes and tokens. */
export async function checkTargets(targets: readonly CheckTarget[], workloads: readonly Workload[], seed: number, calls: number, serves: (target: string, workload: Workload) => boolean): Promise<{ agreement: Agreement[]; tokens: TokenCost[] }> {
  await tokenizer();
  const tokens: TokenCost[] = [];
  for (const target of targets) {
    const t = new Tapped(target.client);
    try {
      await t.client.open();
      await t.client.listTools();
      const list = t.take();
      await new SimAgent(t.client, new Random(seed)).init(TASK_TABLES);
      const discovery = t.take();
      tokens.push({ target: target.label, tokenizer: TOKENIZER, toolsList: size(list), sessionStart: size([...list, ...discovery]), calls: [] });
    } finally {
      await t.client.close();
    }
  }
  const agreement: Agreement[] = [];
  for (const workload of workloads) {
    if (!workload.database || workload.session || workload.writes) continue;
    const present = targets.filter((t) => serves(t.label, workload));
    if (present.length === 0) continue;
    const [reference, ...others] = present;
    const ref = await replay(reference!, workload, seed, calls);
    const costOf = (label: string) => tokens.find((c) => c.target === label)!;
    costOf(reference!.label).calls.push(callCost(workload.name, ref.sizes));
    for (const other of others) {
      const answers = await replay(other, workload, seed, calls, ref.calls);
      costOf(other.label).calls.push(callCost(workload.name, answers.sizes));
      const differences: string[] = [];
      let mismatches = 0;
      for (const [i, call] of ref.calls.entries()) {
        if (answers.prints[i] === ref.prints[i]) continue;
        mismatches++;
        if (differences.length < 5) differences.push(`${call.tool} ${JSON.stringify(call.args)}: ${reference!.label} ${ref.prints[i]}, ${other.label} ${answers.prints[i]}`);
      }
      agreement.push({ workload: workload.name, reference: reference!.label, target: other.label, calls: ref.calls.length, mismatches, differences });
    }
  }
  return { agreement, tokens };
}

interface Replayed {
  calls: Call[];
  prints: string[];
  sizes: { bytes: number; tokens: number }[];
}

/** The workload's first `count` calls, chosen on the reference from its answers; on the others, the same calls again. */
async function replay(target: CheckTarget, workload: Workload, seed: number, count: number, calls?: readonly Call[]): Promise<Replayed> {
  const t = new Tapped(target.client);
  const out: Replayed = { calls: [], prints: [], sizes: [] };
  try {
    const agent = new SimAgent(t.client, new Random(seed));
    await agent.init(workload.tables);
    t.take();
    for (let i = 0; i < (calls?.length ?? count); i++) {
      const call = calls?.[i] ?? workload.next(agent);
      const result = await t.client.callTool(call.tool, call.args);
      if (!calls && call.table && !result.isError) agent.observe(call.table, rowsOf(result.data));
      out.calls.push(call);
      out.prints.push(fingerprint(call, result, (call.table && agent.tables.get(call.table)?.primaryKey) || []));
      out.sizes.push(size(t.take()));
    }
    return out;
  } finally {
    await t.client.close();
  }
}

function rowsOf(data: unknown): Record<string, unknown>[] {
  const d = data as { rows?: Record<string, unknown>[]; row?: Record<string, unknown> | null } | undefined;
  return Array.isArray(d?.rows) ? d.rows : d?.row ? [d.row] : [];
}

function callCost(workload: string, sizes: readonly { bytes: number; tokens: number }[]): TokenCost['calls'][number] {
  const stat = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
  };
  return { workload, calls: sizes.length, bytes: stat(sizes.map((s) => s.bytes)), tokens: stat(sizes.map((s) => s.tokens)) };
}
