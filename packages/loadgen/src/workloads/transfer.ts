import { TOOL_NAMES, f as where, writeFilter } from '@mcp-db-bench/contract';
import type { SimAgent } from '../agent.js';
import type { CallOutcome } from '../clients/client.js';
import type { Account, WriteLedger } from '../writes/ledger.js';
import { fromCents, toCents } from '../writes/read-back.js';
import type { ChosenCall, Plan, PlanContext, Workload } from './workload.js';
import { now } from './write.js';

/**
 * A payment as an agent makes one: look up the payer, find their card and its account, check
 * the account, look up the approver, then debit, credit and record the payment in one
 * `transact`. Each step is its own operation (`transfer:payer` ... `transfer:commit`). The
 * debit is guarded (`balance >= amount`, exactly one row), so a race for the same money or
 * a deadlock the server gives up on (`conflict`) changes nothing.
 */
export const transfer: Workload = {
  name: 'transfer',
  description:
    'payer, card, account, approver lookups, then one atomic debit/credit/payment; money is verified conserved',
  tables: ['customers', 'accounts', 'cards', 'payments'],
  database: true,
  writes: true,
  commits: 'transfer:commit',
  requires: [TOOL_NAMES.get, TOOL_NAMES.query, TOOL_NAMES.transact],
  next() {
    throw new Error('transfer keeps state per agent: the agent loop uses its plan');
  },
  plan: (agent, context) => new TransferPlan(agent, context),
};

const ACTIVE = where.eq('status', 'active');

type Stage = 'payer' | 'card' | 'account' | 'approver' | 'commit';

interface Flow {
  stage: Stage;
  payer: Account;
  cardId: unknown;
  accountId: number;
  cents: number;
  approver: number;
  memo: string;
  to: number;
}

class TransferPlan implements Plan {
  #flow: Flow | undefined;
  #sequence = 0;
  readonly #ledger: WriteLedger;
  readonly #active: Account[];

  constructor(
    readonly agent: SimAgent,
    readonly context: PlanContext,
  ) {
    this.#ledger = context.ledger;
    this.#active = context.ledger.activeAccounts();
    if (this.#active.length < 2) throw new Error('transfer needs at least two active accounts');
  }

  next(): ChosenCall {
    const r = this.agent.random;
    const f = this.#flow ?? this.#begin();
    switch (f.stage) {
      case 'payer':
        return {
          op: 'transfer:payer',
          tool: TOOL_NAMES.get,
          args: { table: 'customers', key: f.payer.customerId },
          table: 'customers',
        };
      case 'card':
        return {
          op: 'transfer:card',
          tool: TOOL_NAMES.query,
          args: {
            table: 'cards',
            columns: ['id', 'account_id', 'last4'],
            filter: writeFilter(where.and(where.eq('customer_id', f.payer.customerId), ACTIVE)),
            limit: 10,
          },
          table: 'cards',
        };
      case 'account':
        return {
          op: 'transfer:account',
          tool: TOOL_NAMES.get,
          args: { table: 'accounts', key: f.accountId },
          table: 'accounts',
        };
      case 'approver':
        return {
          op: 'transfer:approver',
          tool: TOOL_NAMES.get,
          args: { table: 'customers', key: f.approver },
          table: 'customers',
        };
      case 'commit': {
        f.to = this.#payee(f.accountId, r);
        f.memo = `${this.#ledger.marker}t:${this.context.index}:${++this.#sequence}`;
        const amount = fromCents(f.cents);
        // the debit's guard: enough money in the account (the same tree the server read from "balance >= 12.50")
        const debit = writeFilter(where.and(where.eq('id', f.accountId), ACTIVE, where.gte('balance', Number(amount))));
        const credit = writeFilter(where.and(where.eq('id', f.to), ACTIVE));
        const steps = [
          {
            op: 'update',
            table: 'accounts',
            set: { balance: { add: fromCents(-f.cents) } },
            filter: debit,
            expect_rows: 1,
          },
          { op: 'update', table: 'accounts', set: { balance: { add: amount } }, filter: credit, expect_rows: 1 },
          {
            op: 'insert',
            table: 'payments',
            rows: [
              {
                from_account_id: f.accountId,
                to_account_id: f.to,
                card_id: f.cardId,
                approved_by: f.approver,
                amount,
                status: 'settled',
                memo: f.memo,
                created_at: now(),
              },
            ],
          },
        ];
        return { op: 'transfer:commit', tool: TOOL_NAMES.transact, args: { steps } };
      }
    }
  }

  #begin(): Flow {
    const r = this.agent.random;
    const payer = r.pick(this.#active);
    this.#flow = {
      stage: 'payer',
      payer,
      cardId: null,
      accountId: payer.id,
      cents: 0,
      approver: r.pick(this.#active).customerId,
      memo: '',
      to: 0,
    };
    return this.#flow;
  }

  /** Any other active account: two agents paying each other at once is the deadlock case. */
  #payee(from: number, r: SimAgent['random']): number {
    for (;;) {
      const to = r.pick(this.#active).id;
      if (to !== from) return to;
    }
  }

  settle(_call: ChosenCall, outcome: CallOutcome): void {
    const f = this.#flow;
    if (!f) return;
    if (f.stage === 'commit') {
      this.#flow = undefined;
      const result = this.#ledger.settle('transfer', outcome);
      if (result !== 'failed') {
        this.#ledger.transfers.set(f.memo, {
          memo: f.memo,
          from: f.accountId,
          to: f.to,
          cents: f.cents,
          acknowledged: result === 'ok',
        });
      }
      return;
    }
    // A lookup that failed ends this attempt; the agent starts over with another payer.
    if (outcome.kind !== 'ok') {
      this.#flow = undefined;
      return;
    }
    const data = outcome.data as { rows?: Record<string, unknown>[]; row?: Record<string, unknown> | null };
    if (f.stage === 'payer') f.stage = 'card';
    else if (f.stage === 'card') {
      // A payer without an active card pays from their account directly.
      const card = data.rows?.length ? this.agent.random.pick(data.rows) : undefined;
      if (card) {
        f.cardId = card.id;
        f.accountId = Number(card.account_id);
      }
      f.stage = 'account';
    } else if (f.stage === 'account') {
      const balance = data.row ? toCents(data.row.balance) : 0;
      // Nothing to pay with: the agent gives up on this payment, as a person would.
      if (data.row?.status !== 'active' || balance < 100) {
        this.#flow = undefined;
        return;
      }
      f.cents = Math.min(balance, this.agent.random.int(100, 20_000));
      f.stage = 'approver';
    } else if (f.stage === 'approver') f.stage = 'commit';
  }
}
