import { f, TOOL_NAMES, writeFilter } from '@mcp-db-bench/contract';
import type { SimAgent } from '../agent.js';
import type { CallOutcome } from '../clients/client.js';
import type { Draft, WriteLedger } from '../writes/ledger.js';
import { fromCents } from '../writes/read-back.js';
import { keyValue } from './pick.js';
import type { ChosenCall, Plan, PlanContext, Workload } from './workload.js';

const WEIGHTS = { insert: 50, update: 30, delete: 20 } as const;

/** Now, as the portable timestamp a write sends. */
export const now = () => `${new Date().toISOString().slice(0, 19)}Z`;

/**
 * `insert`, `update` and `delete` on the payments ledger: an agent drafts pending payments
 * (one to three per insert), revises their amount (a new value, or `{"add": n}`) and status,
 * and withdraws some. Every draft's memo carries the step's marker, and the ledger records
 * each acknowledged write, so the step can be verified row by row afterwards.
 */
export const write: Workload = {
  name: 'write',
  description: 'insert, update (set or add) and delete pending payments; verified against the acknowledged writes',
  tables: ['accounts', 'payments'],
  database: true,
  writes: true,
  requires: [TOOL_NAMES.insert, TOOL_NAMES.update, TOOL_NAMES.delete, TOOL_NAMES.query],
  next() {
    throw new Error('write keeps state per agent: the agent loop uses its plan');
  },
  plan: (agent, context) => new WritePlan(agent, context),
};

/** The filter naming one draft's row: its key as the insert answered it (a number, or a string past 2^53). */
const byId = (draft: Draft): string => writeFilter(f.eq('id', keyValue(draft.id)));

type Pending =
  | { op: 'insert'; drafts: Draft[] }
  | { op: 'update'; draft: Draft; amountCents: number; status: string }
  | { op: 'delete'; draft: Draft };

class WritePlan implements Plan {
  /** this agent's drafts that are there for sure: the only ones it touches again */
  readonly #live: Draft[] = [];
  #sequence = 0;
  #pending: Pending | undefined;
  readonly #ledger: WriteLedger;

  constructor(
    readonly agent: SimAgent,
    readonly context: PlanContext,
  ) {
    this.#ledger = context.ledger;
  }

  next(): ChosenCall {
    const r = this.agent.random;
    const op = this.#live.length === 0 ? 'insert' : r.weighted(WEIGHTS);
    if (op === 'insert') return this.#insert();
    const draft = r.pick(this.#live);
    if (op === 'delete') {
      this.#pending = { op, draft };
      return {
        op: 'write:delete',
        tool: TOOL_NAMES.delete,
        args: { table: 'payments', filter: byId(draft), max_rows: 1 },
      };
    }
    const status = r.pick(['pending', 'pending', 'approved']);
    if (r.next() < 0.5) {
      const amountCents = r.int(100, 50_000);
      this.#pending = { op, draft, amountCents, status };
      return {
        op: 'write:update',
        tool: TOOL_NAMES.update,
        args: { table: 'payments', set: { amount: fromCents(amountCents), status }, filter: byId(draft), max_rows: 1 },
      };
    }
    // adding inside the database: the value after is the value before plus n
    const delta = r.int(-500, 500) || 1;
    this.#pending = { op, draft, amountCents: draft.amountCents + delta, status };
    return {
      op: 'write:update',
      tool: TOOL_NAMES.update,
      args: { table: 'payments', set: { amount: { add: fromCents(delta) }, status }, filter: byId(draft), max_rows: 1 },
    };
  }

  #insert(): ChosenCall {
    const r = this.agent.random;
    const accounts = this.#ledger.accounts;
    const drafts: Draft[] = [];
    const rows = Array.from({ length: r.int(1, 3) }, () => {
      const draft: Draft = {
        memo: `${this.#ledger.marker}w:${this.context.index}:${++this.#sequence}`,
        id: null,
        amountCents: r.int(100, 50_000),
        status: 'pending',
        deleted: false,
        uncertain: false,
      };
      drafts.push(draft);
      return {
        from_account_id: r.pick(accounts).id,
        to_account_id: r.pick(accounts).id,
        amount: fromCents(draft.amountCents),
        status: draft.status,
        memo: draft.memo,
        created_at: now(),
      };
    });
    this.#pending = { op: 'insert', drafts };
    return { op: 'write:insert', tool: TOOL_NAMES.insert, args: { table: 'payments', rows } };
  }

  settle(_call: ChosenCall, outcome: CallOutcome): void {
    const p = this.#pending;
    this.#pending = undefined;
    if (!p) return;
    const ledger = this.#ledger;
    if (p.op === 'insert') {
      const result = ledger.settle('insert', outcome, p.drafts.length);
      if (result === 'failed') return;
      const keys = outcome.kind === 'ok' ? ((outcome.data as { keys?: Record<string, unknown>[] }).keys ?? []) : [];
      p.drafts.forEach((d, i) => {
        d.id = keys[i]?.id ?? null;
        d.uncertain = result === 'unknown';
        ledger.drafts.set(d.memo, d);
        if (!d.uncertain) this.#live.push(d);
      });
      return;
    }
    const changed =
      outcome.kind === 'ok'
        ? Number((outcome.data as Record<string, unknown>)[p.op === 'update' ? 'updated' : 'deleted'])
        : 0;
    const result = ledger.settle(p.op, outcome, changed);
    // An answer of 0 rows changed nothing: the draft stays as it was, and verification will
    // find it so, or find it lost.
    if (result === 'failed' || changed === 0) return;
    if (result === 'unknown') {
      // no answer: the draft may be before or after this write, so verification holds it to neither
      p.draft.uncertain = true;
      this.#live.splice(this.#live.indexOf(p.draft), 1);
      return;
    }
    if (p.op === 'delete') {
      p.draft.deleted = true;
      this.#live.splice(this.#live.indexOf(p.draft), 1);
    } else {
      p.draft.amountCents = p.amountCents;
      p.draft.status = p.status;
    }
  }
}
