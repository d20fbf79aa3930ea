import type { CallOutcome, McpClient } from '../clients/client.js';
import { readAll, toCents } from './read-back.js';

/** An account as it stood before the step: transfers move money between these. */
export interface Account {
  id: number;
  customerId: number;
  cents: number;
  active: boolean;
}

/** A payments row the write workload drafted, found again by its memo. */
export interface Draft {
  memo: string;
  /** the primary key the insert answered; null until acknowledged */
  id: unknown;
  amountCents: number;
  status: string;
  deleted: boolean;
  /** a write to it got no answer: it may be in the state before or after that write */
  uncertain: boolean;
}

/** One debit/credit/record, found again by its payment's memo. */
export interface Transfer {
  memo: string;
  from: number;
  to: number;
  cents: number;
  /** false: the commit got no answer, so the payment row decides whether it happened */
  acknowledged: boolean;
}

export type WriteOp = 'insert' | 'update' | 'delete' | 'transfer';

/**
 * Tool errors after which a write may or may not have happened: the statement was cancelled,
 * or the connection dropped, possibly during the commit. Every other tool error is definite:
 * the server refused or rolled back, so nothing was applied.
 */
const UNCERTAIN_CODES = new Set(['timeout', 'database_unavailable', 'internal_error']);

/**
 * One step's record of the writes the server acknowledged, for verifying the database after
 * the step. Every row a step writes carries its marker (in payments.memo), so verification
 * finds exactly this step's rows whatever else the table holds.
 */
export class WriteLedger {
  readonly drafts = new Map<string, Draft>();
  readonly transfers = new Map<string, Transfer>();
  readonly acknowledged: Record<WriteOp, number> = { insert: 0, update: 0, delete: 0, transfer: 0 };
  /** definite failures by error code: nothing was applied */
  readonly failed: Record<string, number> = {};
  /** write calls whose outcome is unknown (no answer, or an uncertain error code) */
  unknown = 0;

  constructor(
    /** `run:<id>:`, the prefix of every memo this step writes */
    readonly marker: string,
    /** every account before the step, by id order */
    readonly accounts: readonly Account[],
  ) {
    if (!/^run:[a-z0-9]+:$/.test(marker))
      throw new Error(`a marker is run:<letters and digits>: (no like wildcards): ${marker}`);
  }

  readonly activeAccounts = (): Account[] => this.accounts.filter((a) => a.active);

  /** Files a write call's outcome: acknowledged, definitely failed, or unknown. */
  settle(op: WriteOp, outcome: CallOutcome, applied = 1): 'ok' | 'failed' | 'unknown' {
    if (outcome.kind === 'ok') {
      this.acknowledged[op] += applied;
      return 'ok';
    }
    if (outcome.kind === 'unknown' || UNCERTAIN_CODES.has(outcome.code)) {
      this.unknown++;
      return 'unknown';
    }
    this.failed[outcome.code] = (this.failed[outcome.code] ?? 0) + 1;
    return 'failed';
  }
}

/** A marker no earlier step used: time and randomness, letters and digits only. */
export function newMarker(): string {
  return `run:${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, '0')}:`;
}

/** Reads every account (before the step starts, unmeasured) and opens the step's ledger. */
export async function openLedger(client: McpClient, marker = newMarker()): Promise<WriteLedger> {
  let rows: Record<string, unknown>[];
  try {
    rows = await readAll(client, 'accounts', ['id', 'customer_id', 'balance', 'status']);
  } catch (error) {
    throw new Error(
      `write workloads need the payment tables (accounts, cards, payments): seed again with --force. ${(error as Error).message}`,
    );
  }
  if (rows.length === 0)
    throw new Error('write workloads need accounts to move money between, and the accounts table is empty');
  const accounts = rows.map((r) => ({
    id: Number(r.id),
    customerId: Number(r.customer_id),
    cents: toCents(r.balance),
    active: r.status === 'active',
  }));
  return new WriteLedger(marker, accounts);
}
