import { f, type WriteVerification } from '@mcp-db-bench/contract';
import type { McpClient } from '../clients/client.js';
import type { WriteLedger } from './ledger.js';
import { fromCents, readAll, toCents } from './read-back.js';

/** What reading the database back after a write step found. `ok` = it matches the ledger exactly. */
export type { WriteVerification };

const MAX_PROBLEMS = 20;
const WRITE_COLUMNS = ['id', 'memo', 'amount', 'status', 'from_account_id', 'to_account_id'];

/**
 * Reads back, through MCP, every row this step's marker touches and every account, and holds
 * them to the ledger: acknowledged rows present with their last acknowledged values, deleted
 * rows gone, no row that nothing acknowledged, one payment per transfer, every balance equal to
 * its starting balance plus credits minus debits, and the total unchanged.
 */
export async function verifyWrites(client: McpClient, ledger: WriteLedger): Promise<WriteVerification> {
  const rows = await readAll(client, 'payments', WRITE_COLUMNS, f.like('memo', `${ledger.marker}%`));
  const after = await readAll(client, 'accounts', ['id', 'balance']);
  return compareWrites(ledger, rows, after);
}

type Row = Record<string, unknown>;

/** What the comparison found: the counts, and the first MAX_PROBLEMS problems in words. */
class Findings {
  readonly problems: string[] = [];
  lost = 0;
  phantom = 0;
  wrongValues = 0;
  mismatched = 0;

  note(problem: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(problem);
  }

  /** One insert's memo on several rows: every row past the first is a phantom. */
  duplicates(memo: string, found: readonly Row[]): void {
    if (found.length <= 1) return;
    this.phantom += found.length - 1;
    this.note(`${memo}: ${found.length} rows for one insert`);
  }
}

/** The rows read back by memo; each draft and transfer takes its own, so what is left nothing explains. */
class RowsByMemo {
  readonly #rows = new Map<string, Row[]>();

  constructor(rows: readonly Row[]) {
    for (const row of rows) this.#rows.set(String(row.memo), [...(this.#rows.get(String(row.memo)) ?? []), row]);
  }

  take(memo: string): Row[] {
    const found = this.#rows.get(memo) ?? [];
    this.#rows.delete(memo);
    return found;
  }

  left(): IterableIterator<[string, Row[]]> {
    return this.#rows.entries();
  }
}

/** The comparison itself, apart from the reading, so it can be tested on made-up states. */
export function compareWrites(ledger: WriteLedger, rows: readonly Row[], after: readonly Row[]): WriteVerification {
  const findings = new Findings();
  const byMemo = new RowsByMemo(rows);
  checkDrafts(ledger, byMemo, findings);
  const { payments, balances } = checkTransfers(ledger, byMemo, findings);
  for (const [memo, found] of byMemo.left()) {
    findings.phantom += found.length;
    findings.note(`${memo}: ${found.length} row(s) that no acknowledged write explains`);
  }
  checkBalances(after, balances, findings);
  const before = ledger.accounts.reduce((s, a) => s + a.cents, 0);
  const total = after.reduce((s, a) => s + toCents(a.balance), 0);
  if (before !== total) findings.note(`total balance ${fromCents(before)} before, ${fromCents(total)} after`);

  const { lost, phantom, wrongValues, mismatched, problems } = findings;
  return {
    marker: ledger.marker,
    ok: lost === 0 && phantom === 0 && wrongValues === 0 && mismatched === 0 && before === total,
    acknowledged: { ...ledger.acknowledged },
    failed: { ...ledger.failed },
    unknown: ledger.unknown,
    rowsRead: rows.length,
    lost,
    phantom,
    wrongValues,
    payments,
    accounts: { checked: after.length, mismatched },
    money: { before: fromCents(before), after: fromCents(total) },
    problems,
  };
}

/** Acknowledged drafts present with their last acknowledged values, deleted ones gone; uncertain ones go unjudged. */
function checkDrafts(ledger: WriteLedger, byMemo: RowsByMemo, findings: Findings): void {
  for (const d of ledger.drafts.values()) {
    const found = byMemo.take(d.memo);
    findings.duplicates(d.memo, found);
    if (d.uncertain) continue;
    if (d.deleted) {
      if (found.length) {
        findings.phantom++;
        findings.note(`${d.memo}: deleted (acknowledged) but still there`);
      }
      continue;
    }
    const row = found[0];
    if (!row) {
      findings.lost++;
      findings.note(`${d.memo}: inserted (acknowledged, id ${JSON.stringify(d.id)}) but missing`);
    } else if (String(row.id) !== String(d.id) || toCents(row.amount) !== d.amountCents || row.status !== d.status) {
      findings.wrongValues++;
      findings.note(
        `${d.memo}: expected id ${JSON.stringify(d.id)} amount ${fromCents(d.amountCents)} ${d.status}, found id ${JSON.stringify(row.id)} amount ${JSON.stringify(row.amount)} ${JSON.stringify(row.status)}`,
      );
    }
  }
}

/**
 * One payment per transfer that happened, with the transfer's accounts and amount; the balances
 * each account should hold after them, from the starting ones.
 */
function checkTransfers(
  ledger: WriteLedger,
  byMemo: RowsByMemo,
  findings: Findings,
): { payments: WriteVerification['payments']; balances: Map<number, number> } {
  const balances = new Map(ledger.accounts.map((a) => [a.id, a.cents]));
  const payments = { expected: 0, found: 0 };
  for (const t of ledger.transfers.values()) {
    const found = byMemo.take(t.memo);
    findings.duplicates(t.memo, found);
    payments.found += found.length;
    const row = found[0];
    if (t.acknowledged) payments.expected++;
    if (!row) {
      if (t.acknowledged) {
        findings.lost++;
        findings.note(`${t.memo}: transfer of ${fromCents(t.cents)} acknowledged but its payment is missing`);
      }
      continue;
    }
    // An unanswered commit that left its payment row committed as a whole: count it in.
    if (!t.acknowledged) payments.expected++;
    if (
      Number(row.from_account_id) !== t.from ||
      Number(row.to_account_id) !== t.to ||
      toCents(row.amount) !== t.cents
    ) {
      findings.wrongValues++;
      findings.note(
        `${t.memo}: payment ${row.from_account_id} -> ${row.to_account_id} ${JSON.stringify(row.amount)}, expected ${t.from} -> ${t.to} ${fromCents(t.cents)}`,
      );
    }
    balances.set(t.from, (balances.get(t.from) ?? 0) - t.cents);
    balances.set(t.to, (balances.get(t.to) ?? 0) + t.cents);
  }
  return { payments, balances };
}

/** Every account read back holds its expected balance, and none is missing. */
function checkBalances(after: readonly Row[], balances: ReadonlyMap<number, number>, findings: Findings): void {
  const seen = new Set<number>();
  for (const a of after) {
    const id = Number(a.id);
    seen.add(id);
    const expected = balances.get(id);
    if (expected === undefined || toCents(a.balance) !== expected) {
      findings.mismatched++;
      findings.note(
        `account ${id}: balance ${JSON.stringify(a.balance)}, expected ${expected === undefined ? 'no such account' : fromCents(expected)}`,
      );
    }
  }
  for (const id of balances.keys()) {
    if (!seen.has(id)) {
      findings.mismatched++;
      findings.note(`account ${id}: missing after the step`);
    }
  }
}
