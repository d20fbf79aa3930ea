/**
 * The untimed pass after the measured steps: the same seeded calls on every target, their
 * answers compared (row counts and keys, so a fast wrong answer cannot win), and what each
 * answer costs the agent in bytes and tokens. The tokenizer never runs on the timed path.
 */
import { Random, type ResultFile } from '@mcp-db-bench/contract';
import { SimAgent } from '../agent.js';
import type { McpClient, ToolCallResult } from '../clients/client.js';
import { rowsOf } from '../loop.js';
import { PeerClient, type RawSink } from '../peers/profile.js';
import { TASK_TABLES } from '../workloads/session-init.js';
import type { ChosenCall, Workload } from '../workloads/workload.js';

export const TOKENIZER = 'o200k_base (gpt-tokenizer): approximates, does not equal, the host model’s tokenizer';

export type Agreement = NonNullable<ResultFile['agreement']>[number];
export type TokenCost = NonNullable<ResultFile['tokens']>[number];

export interface CheckTarget {
  label: string;
  client: () => McpClient;
}

type Kind = Parameters<RawSink>[0];

/** A client whose peer's raw answers are collected: the texts since the last `take()`, of every kind or of one. */
class Tapped {
  readonly raw: { kind: Kind; text: string }[] = [];
  readonly client: McpClient;
  constructor(factory: () => McpClient) {
    this.client = factory();
    if (this.client instanceof PeerClient) this.client.tap((kind, text) => this.raw.push({ kind, text }));
  }
  take(kind?: Kind): string[] {
    return this.raw.splice(0).flatMap((r) => (kind === undefined || r.kind === kind ? [r.text] : []));
  }
}

/** A call's answer when it threw (a transport failure, a profile that cannot write the SQL): never equal to another's. */
const FAILED = 'failed:';
const failure = (error: unknown, during = '') =>
  `${FAILED} ${during}${error instanceof Error ? error.message : String(error)}`.slice(0, 300);

type Count = (text: string) => number;
/** loaded on first use: its 2.4 MB of ranks take ~0.1 s, which no other command should pay */
let countTokens: Count | undefined;
const tokenizer = async (): Promise<Count> =>
  (countTokens ??= (await import('gpt-tokenizer/encoding/o200k_base')).countTokens);

const size = (texts: readonly string[]) => ({
  bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0),
  tokens: texts.reduce((n, t) => n + countTokens!(t), 0),
});

/** A call's answer as compared across targets: its row count and the rows' keys (sorted), or its error. */
export function fingerprint(call: ChosenCall, result: ToolCallResult, primaryKey: readonly string[]): string {
  if (result.isError) return `error ${(result.data as { error?: { code?: string } })?.error?.code ?? ''}`.trim();
  const data = result.data as { rows?: Record<string, unknown>[]; row?: Record<string, unknown> | null } | undefined;
  const rows = Array.isArray(data?.rows) ? data.rows : data?.row ? [data.row] : [];
  // aggregates: the counts (`n`), sorted, as groups tied on the count may come in either order
  const key = (r: Record<string, unknown>) =>
    call.args.aggregates ? String(r.n ?? '') : primaryKey.map((c) => String(r[c])).join('|');
  return `${rows.length} row${rows.length === 1 ? '' : 's'} [${rows.map(key).sort().join(', ')}]`;
}

/**
 * Per target: `tools/list` and the session start's payloads, and each workload's answers, in
 * bytes and tokens; the answers compared with the first target's. A call that throws is that
 * call's answer (a disagreement), so one broken server cannot end the pass for the others.
 */
export async function checkTargets(
  targets: readonly CheckTarget[],
  workloads: readonly Workload[],
  seed: number,
  calls: number,
  serves: (target: string, workload: Workload) => boolean,
): Promise<{ agreement: Agreement[]; tokens: TokenCost[]; failures: string[] }> {
  await tokenizer();
  const tokens: TokenCost[] = [];
  const failures: string[] = [];
  for (const target of targets) {
    const t = new Tapped(target.client);
    try {
      // one agent's start, as the host sees it: instructions, tools/list, then discovery
      await new SimAgent(t.client, new Random(seed)).init(TASK_TABLES);
      const start = t.raw.map((r) => r.text);
      tokens.push({
        target: target.label,
        tokenizer: TOKENIZER,
        toolsList: size(t.take('tools')),
        sessionStart: size(start),
        calls: [],
      });
    } catch (error) {
      failures.push(`${target.label}: no token cost, ${failure(error, 'session start: ')}`);
    } finally {
      await closeQuietly(t.client);
    }
  }
  const agreement: Agreement[] = [];
  for (const workload of workloads) {
    if (!workload.database || workload.session || workload.writes) continue;
    const present = targets.filter((t) => serves(t.label, workload));
    if (present.length === 0) continue;
    const [reference, ...others] = present;
    const ref = await replay(reference!, workload, seed, calls);
    const costOf = (label: string) => tokens.find((c) => c.target === label);
    if (ref.sizes.length) costOf(reference!.label)?.calls.push(callCost(workload.name, ref.sizes));
    if (ref.failed) failures.push(`${reference!.label} ${workload.name}: ${ref.failed}`);
    for (const other of others) {
      const answers = await replay(other, workload, seed, calls, ref.calls);
      if (answers.sizes.length) costOf(other.label)?.calls.push(callCost(workload.name, answers.sizes));
      agreement.push(compare(workload.name, reference!.label, ref, other.label, answers));
    }
  }
  return { agreement, tokens, failures };
}

interface Replayed {
  calls: ChosenCall[];
  prints: string[];
  sizes: { bytes: number; tokens: number }[];
  /** the session start or the choice of calls failed (no calls then, or fewer than asked); sizes are left out */
  failed?: string;
}

/** One target's answers against the reference's: a failed answer on either side is a mismatch, even beside the same failure. */
function compare(workload: string, reference: string, ref: Replayed, target: string, answers: Replayed): Agreement {
  const differences: string[] = [];
  let mismatches = 0;
  const differ = (what: string, mine: string, theirs: string) => {
    mismatches++;
    if (differences.length < 5) differences.push(`${what}: ${reference} ${mine}, ${target} ${theirs}`);
  };
  // no calls to compare when the reference could not choose any: that is one disagreement, not none
  if (ref.failed && ref.calls.length === 0) differ('choosing the calls', ref.failed, answers.failed ?? 'ready');
  for (const [i, call] of ref.calls.entries()) {
    const mine = ref.prints[i]!;
    const theirs = answers.prints[i] ?? `${FAILED} no answer`;
    if (mine === theirs && !mine.startsWith(FAILED)) continue;
    differ(`${call.tool} ${JSON.stringify(call.args)}`, mine, theirs);
  }
  return { workload, reference, target, calls: ref.calls.length, mismatches, differences };
}

/** The workload's first `count` calls, chosen on the reference from its answers; on the others, the same calls again. */
async function replay(
  target: CheckTarget,
  workload: Workload,
  seed: number,
  count: number,
  calls?: readonly ChosenCall[],
): Promise<Replayed> {
  const t = new Tapped(target.client);
  const out: Replayed = { calls: [], prints: [], sizes: [] };
  try {
    const agent = new SimAgent(t.client, new Random(seed));
    try {
      await agent.init(workload.tables);
    } catch (error) {
      // every call's answer on this target is that failure; the reference has none to choose
      out.failed = failure(error, 'session start: ');
      out.calls.push(...(calls ?? []));
      out.prints.push(...out.calls.map(() => out.failed!));
      return out;
    }
    t.take();
    for (let i = 0; i < (calls?.length ?? count); i++) {
      let call: ChosenCall;
      try {
        call = calls?.[i] ?? workload.next(agent);
      } catch (error) {
        out.failed = failure(error, `choosing call ${i + 1}: `);
        break;
      }
      out.calls.push(call);
      out.prints.push(await answer(t.client, agent, call, !calls));
      out.sizes.push(size(t.take()));
    }
    return out;
  } finally {
    await closeQuietly(t.client);
  }
}

/** A call's fingerprint, or its failure when it throws; the reference's agent learns keys from what it was shown. */
async function answer(client: McpClient, agent: SimAgent, call: ChosenCall, learn: boolean): Promise<string> {
  try {
    const result = await client.callTool(call.tool, call.args);
    if (learn && call.table && !result.isError) agent.observe(call.table, rowsOf(result.data));
    return fingerprint(call, result, (call.table && agent.tables.get(call.table)?.primaryKey) || []);
  } catch (error) {
    return failure(error);
  }
}

/** A failed target's close must not hide its failure, nor end the pass. */
const closeQuietly = (client: McpClient) => client.close().catch(() => {});

function callCost(workload: string, sizes: readonly { bytes: number; tokens: number }[]): TokenCost['calls'][number] {
  const stat = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
  };
  return {
    workload,
    calls: sizes.length,
    bytes: stat(sizes.map((s) => s.bytes)),
    tokens: stat(sizes.map((s) => s.tokens)),
  };
}
