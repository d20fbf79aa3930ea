import { describe, expect, it } from 'vitest';
import { type Draft, WriteLedger } from '../src/writes/ledger.js';
import { fromCents, toCents } from '../src/writes/read-back.js';
import { compareWrites } from '../src/writes/verify.js';

/**
 * The comparison behind write verification, on hand-made database states: each kind of
 * discrepancy must be caught, and an exact state must pass. (The end-to-end check against
 * real databases is apps/cli/test/writes.test.ts.)
 */
const M = 'run:test1:';
const accounts = [
  { id: 1, customerId: 1, cents: 10_000, active: true },
  { id: 2, customerId: 2, cents: 5_000, active: true },
  { id: 3, customerId: 3, cents: 0, active: false },
];
const draft = (n: number, over: Partial<Draft> = {}): Draft => ({
  memo: `${M}w:0:${n}`,
  id: n,
  amountCents: 1250,
  status: 'pending',
  deleted: false,
  uncertain: false,
  ...over,
});
const row = (d: Draft, over: Record<string, unknown> = {}) => ({
  id: d.id,
  memo: d.memo,
  amount: fromCents(d.amountCents),
  status: d.status,
  from_account_id: 1,
  to_account_id: 2,
  ...over,
});
const balances = (b: Record<number, number>) =>
  Object.entries(b).map(([id, c]) => ({ id: Number(id), balance: fromCents(c) }));

function ledgerWith(
  drafts: Draft[],
  transfers: { n: number; from: number; to: number; cents: number; acknowledged?: boolean }[] = [],
) {
  const ledger = new WriteLedger(M, accounts);
  for (const d of drafts) ledger.drafts.set(d.memo, d);
  for (const t of transfers) {
    const memo = `${M}t:1:${t.n}`;
    ledger.transfers.set(memo, { memo, from: t.from, to: t.to, cents: t.cents, acknowledged: t.acknowledged ?? true });
  }
  return ledger;
}
const paymentRow = (n: number, from: number, to: number, cents: number) => ({
  id: 100 + n,
  memo: `${M}t:1:${n}`,
  amount: fromCents(cents),
  status: 'settled',
  from_account_id: from,
  to_account_id: to,
});
const untouched = balances({ 1: 10_000, 2: 5_000, 3: 0 });

describe('write verification', () => {
  it('passes a state that matches the ledger exactly, transfers included', () => {
    const live = draft(1);
    const gone = draft(2, { deleted: true });
    const ledger = ledgerWith([live, gone], [{ n: 1, from: 1, to: 2, cents: 2_500 }]);
    const v = compareWrites(ledger, [row(live), paymentRow(1, 1, 2, 2_500)], balances({ 1: 7_500, 2: 7_500, 3: 0 }));
    expect(v).toMatchObject({
      ok: true,
      lost: 0,
      phantom: 0,
      wrongValues: 0,
      payments: { expected: 1, found: 1 },
      accounts: { checked: 3, mismatched: 0 },
    });
    expect(v.money).toEqual({ before: '150.00', after: '150.00' });
    expect(v.problems).toEqual([]);
  });

  it('finds an acknowledged row that is missing (lost)', () => {
    const v = compareWrites(ledgerWith([draft(1)]), [], untouched);
    expect(v).toMatchObject({ ok: false, lost: 1 });
    expect(v.problems[0]).toMatch(/inserted \(acknowledged, id 1\) but missing/);
  });

  it('finds a row nothing acknowledged, a deleted row still there, and a duplicate (phantoms)', () => {
    const gone = draft(2, { deleted: true });
    const kept = draft(3);
    const stray = { ...row(draft(9)), memo: `${M}w:0:9` };
    const v = compareWrites(ledgerWith([gone, kept]), [row(gone), row(kept), row(kept), stray], untouched);
    expect(v).toMatchObject({ ok: false, phantom: 3, lost: 0 });
  });

  it('finds a row whose values are not the last acknowledged ones', () => {
    const d = draft(1, { amountCents: 1_300, status: 'approved' });
    const v = compareWrites(ledgerWith([d]), [row(d, { amount: '12.50' })], untouched);
    expect(v).toMatchObject({ ok: false, wrongValues: 1 });
  });

  it('holds an unanswered write to neither state, and counts an unanswered transfer by its payment', () => {
    const maybe = draft(1, { uncertain: true });
    const ledger = ledgerWith(
      [maybe],
      [
        { n: 1, from: 2, to: 1, cents: 1_000, acknowledged: false },
        { n: 2, from: 1, to: 2, cents: 1, acknowledged: false },
      ],
    );
    // transfer 1 committed (its payment is there), transfer 2 did not
    const v = compareWrites(ledger, [paymentRow(1, 2, 1, 1_000)], balances({ 1: 11_000, 2: 4_000, 3: 0 }));
    expect(v).toMatchObject({ ok: true, payments: { expected: 1, found: 1 } });
  });

  it('finds a balance that moves without a payment, and money that appears', () => {
    const ledger = ledgerWith([], [{ n: 1, from: 1, to: 2, cents: 2_500 }]);
    const debitOnly = compareWrites(ledger, [paymentRow(1, 1, 2, 2_500)], balances({ 1: 7_500, 2: 5_000, 3: 0 }));
    expect(debitOnly).toMatchObject({
      ok: false,
      accounts: { mismatched: 1 },
      money: { before: '150.00', after: '125.00' },
    });
    const minted = compareWrites(ledgerWith([]), [], balances({ 1: 10_000, 2: 5_000, 3: 1 }));
    expect(minted).toMatchObject({ ok: false, accounts: { mismatched: 1 }, money: { after: '150.01' } });
  });

  it('finds an acknowledged transfer without its payment', () => {
    const v = compareWrites(ledgerWith([], [{ n: 1, from: 1, to: 2, cents: 2_500 }]), [], untouched);
    expect(v).toMatchObject({ ok: false, lost: 1, payments: { expected: 1, found: 0 } });
  });

  it('reads money exactly as cents', () => {
    expect([toCents('12.50'), toCents(12.5), toCents('-0.05'), toCents('1234567890.99')]).toEqual([
      1250, 1250, -5, 123456789099,
    ]);
    expect([fromCents(1250), fromCents(-5), fromCents(0), fromCents(100)]).toEqual(['12.50', '-0.05', '0.00', '1.00']);
  });

  it('refuses a marker a like pattern would widen', () => {
    expect(() => new WriteLedger('run:a_b:', accounts)).toThrow(/no like wildcards/);
  });
});
