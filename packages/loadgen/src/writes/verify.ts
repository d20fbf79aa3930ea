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

/** The comparison itself, apart from the reading, so it can be tested on made-up states. */
export function compareWrites(
  ledger: WriteLedger,
  rows: readonly Record<string, unknown>[],
  after: readonly Record<string, unknown>[],
): WriteVerification {
  const problems: string[] = [];
  const note = (p: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };
  const byMemo = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) byMemo.set(String(row.memo), [...(byMemo.get(String(row.memo)) ?? []), row]);
  const take = (memo: string) => {
    const found = byMemo.get(memo) ?? [];
    byMemo.delete(memo);
    return found;
  };
  let lost = 0;
  let phantom = 0;
  let wrongValues = 0;
  const duplicates = (memo: string, found: readonly unknown[]) => {
    if (found.length <= 1) return;
    phantom += found.length - 1;
    note(`${memo}: ${found.length} rows for one insert`);
  };

  for (const d of ledger.drafts.values()) {
    const found = take(d.memo);
    duplicates(d.memo, found);
    if (d.uncertain) continue;
    if (d.deleted) {
      if (found.length) {
        phantom++;
        note(`${d.memo}: deleted (acknowledged) but still there`);
      }
      continue;
    }
    const row = found[0];
    if (!row) {
      lost++;
      note(`${d.memo}: inserted (acknowledged, id ${JSON.stringify(d.id)}) but missing`);
    } else if (String(row.id) !== String(d.id) || toCents(row.amount) !== d.amountCents || row.status !== d.status) {
      wrongValues++;
      note(
        `${d.memo}: expected id ${JSON.stringify(d.id)} amount ${fromCents(d.amountCents)} ${d.status}, found id ${JSON.stringify(row.id)} amount ${JSON.stringify(row.amount)} ${JSON.stringify(row.status)}`,
      );
    }
  }

  const balances = new Map(ledger.accounts.map((a) => [a.id, a.cents]));
  let expectedPayments = 0;
  let foundPayments = 0;
  for (const t of ledger.transfers.values()) {
    const found = take(t.memo);
    duplicates(t.memo, found);
    foundPayments += found.length;
    const row = found[0];
    if (t.acknowledged) expectedPayments++;
    if (!row) {
      if (t.acknowledged) {
        lost++;
        note(`${t.memo}: transfer of ${fromCents(t.cents)} acknowledged but its payment is missing`);
      }
      continue;
    }
    // An unanswered commit that left its payment row committed as a whole: count it in.
    if (!t.acknowledged) expectedPayments++;
    if (
      Number(row.from_account_id) !== t.from ||
      Number(row.to_account_id) !== t.to ||
      toCents(row.amount) !== t.cents
    ) {
      wrongValues++;
      note(
        `${t.memo}: payment ${row.from_account_id} -> ${row.to_account_id} ${JSON.stringify(row.amount)}, expected ${t.from} -> ${t.to} ${fromCents(t.cents)}`,
      );
    }
    balances.set(t.from, (balances.get(t.from) ?? 0) - t.cents);
    balances.set(t.to, (balances.get(t.to) ?? 0) + t.cents);
  }

  for (const [memo, found] of byMemo) {
    phantom += found.length;
    note(`${memo}: ${found.length} row(s) that no acknowledged write explains`);
  }

  let mismatched = 0;
  const seen = new Set<number>();
  for (const a of after) {
    const id = Number(a.id);
    seen.add(id);
    const expected = balances.get(id);
    if (expected === undefined || toCents(a.balance) !== expected) {
      mismatched++;
      note(
        `account ${id}: balance ${JSON.stringify(a.balance)}, expected ${expected === undefined ? 'no such account' : fromCents(expected)}`,
      );
    }
  }
  for (const id of balances.keys()) {
    if (!seen.has(id)) {
      mismatched++;
      note(`account ${id}: missing after the step`);
    }
  }
  const before = ledger.accounts.reduce((s, a) => s + a.cents, 0);
  const total = after.reduce((s, a) => s + toCents(a.balance), 0);
  if (before !== total) note(`total balance ${fromCents(before)} before, ${fromCents(total)} after`);

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
    payments: { expected: expectedPayments, found: foundPayments },
    accounts: { checked: after.length, mismatched },
    money: { before: fromCents(before), after: fromCents(total) },
    problems,
  };
}
