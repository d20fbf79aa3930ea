/** Our write tools through Faucet's: insert, update (set, or add by compare and set), delete, with max_rows kept. */
import type { DeleteInput, InsertInput, UpdateInput } from '@mcp-db-bench/contract';
import { addDecimal } from './decimal.js';
import { faucetLiteral, render, type Term } from './filter.js';
import { type FaucetPeer, peerText, Refusal, refuse } from './peer.js';
import { CAS_TRIES, type Known, PAGE, RETURNING_DRIVERS, type Row } from './shapes.js';
import { column, keyTerms, orderOf, pick, requiredFilter } from './steps.js';

export async function insert(f: FaucetPeer, args: Row) {
  const { table, rows } = args as InsertInput;
  const k = await f.table(table);
  const names = Object.keys(rows[0] ?? {}).sort();
  // Faucet takes the first record's columns for every record: others would be dropped or set null
  if (rows.some((r) => Object.keys(r).sort().join(',') !== names.join(',')))
    refuse('invalid_argument', 'faucet: every row of one insert must name the same columns');
  for (const n of names) column(k, n, false); // record keys are quoted by Faucet, not validated
  const keysGiven = k.pk.length > 0 && rows.every((r) => k.pk.every((c) => r[c] !== undefined && r[c] !== null));
  if (!keysGiven) {
    const driver = await f.driver();
    if (driver !== undefined && !RETURNING_DRIVERS.has(driver)) {
      refuse(
        'unsupported',
        `faucet: service ${f.service} (${driver}) has no RETURNING, so faucet_insert answers only a count and the keys it generates stay unknown; nothing was inserted`,
      );
    }
  }
  const answer = await f.call<{ inserted?: Row[]; count?: number }>('faucet_insert', { table: k.name, records: rows });
  if (Array.isArray(answer?.inserted) && answer.inserted.length === rows.length)
    return { inserted: rows.length, keys: answer.inserted.map((r) => pick(r, k.pk)) };
  if (keysGiven && Number(answer?.count) === rows.length)
    return { inserted: rows.length, keys: rows.map((r) => pick(r, k.pk)) };
  // written, but which keys is unknown: an uncertain outcome, never a definite failure
  return refuse(
    'internal_error',
    `faucet_insert answered ${peerText(answer)}: the rows were written, their keys are unknown`,
  );
}

/** Whether the terms pin every primary key column with `=`: at most one row matches. */
const pinsKey = (k: Known, terms: readonly Term[]) =>
  k.pk.length > 0 && k.pk.every((c) => terms.some((t) => t.column === c && t.op === '='));

/**
 * The filter a write sends so that it changes at most `maxRows` rows (Faucet has no such guard):
 * as it is when it pins the key or no cap is asked, else narrowed to the keys read first; null
 * when nothing matches.
 */
async function capped(
  f: FaucetPeer,
  k: Known,
  terms: Term[],
  maxRows: number | undefined,
  verb: string,
): Promise<string | null> {
  if (maxRows === undefined || pinsKey(k, terms)) return render(terms);
  const keys = await readKeys(f, k, terms, maxRows, verb);
  if (keys.length === 0) return null;
  const one = (r: Row) => render(keyTerms(k, pick(r, k.pk)));
  const pinned =
    k.pk.length === 1
      ? `${k.pk[0]} IN (${keys.map((r) => faucetLiteral(r[k.pk[0]!])).join(', ')})`
      : `(${keys.map((r) => `(${one(r)})`).join(' OR ')})`;
  return `${render(terms)} AND ${pinned}`;
}

/** The rows a write would change (key and `extra` columns), refused past `maxRows`. */
async function readKeys(
  f: FaucetPeer,
  k: Known,
  terms: Term[],
  maxRows: number,
  verb: string,
  extra: string[] = [],
): Promise<Row[]> {
  if (k.pk.length === 0)
    refuse('invalid_argument', `faucet: ${k.name} has no primary key to pin the rows of a guarded write`);
  if (maxRows >= PAGE)
    refuse('invalid_argument', `faucet: max_rows up to ${PAGE - 1} (one faucet_query page checks it)`);
  const rows = await f.records({
    table: k.name,
    filter: render(terms),
    fields: [...k.pk, ...extra],
    ...orderOf(k.pk, () => true),
    limit: maxRows + 1,
  });
  if (rows.length > maxRows)
    refuse(
      'limit_exceeded',
      `the filter matches more than max_rows (${maxRows}) rows of ${k.name}; nothing was ${verb}`,
    );
  return rows;
}

export async function update(f: FaucetPeer, args: Row) {
  const { table, set, filter, max_rows } = args as UpdateInput;
  const k = await f.table(table);
  const terms = requiredFilter(k, filter);
  const plain: Row = {};
  const adds: Row = {};
  for (const [name, value] of Object.entries(set)) {
    column(k, name, false);
    if (typeof value === 'object' && value !== null && 'add' in value) adds[name] = value.add;
    else plain[name] = value;
  }
  if (Object.keys(adds).length) return { updated: await addInPlace(f, k, terms, plain, adds, max_rows) };
  const target = await capped(f, k, terms, max_rows, 'updated');
  if (target === null) return { updated: 0 };
  const answer = await f.call<{ count?: number }>('faucet_update', { table: k.name, filter: target, record: plain });
  return { updated: Number(answer?.count ?? 0) };
}

/**
 * `{"add": n}` without an add in the database: each row is read, then written back by key with
 * the sum only if the value is still the one read (compare and set), read again when it changed.
 * Several rows are several calls: a failure after the first leaves an uncertain outcome.
 */
async function addInPlace(
  f: FaucetPeer,
  k: Known,
  terms: Term[],
  plain: Row,
  adds: Row,
  maxRows: number | undefined,
): Promise<number> {
  const addCols = Object.keys(adds);
  const rows = await readKeys(f, k, terms, maxRows ?? PAGE - 1, 'updated', addCols);
  for (const row of rows) for (const c of addCols) addDecimal(row[c], adds[c]); // every sum checked before the first write
  let updated = 0;
  for (const [i, row] of rows.entries()) {
    try {
      updated += await compareAndSet(f, k, terms, row, plain, adds);
    } catch (error) {
      if (i === 0) throw error;
      refuse(
        'internal_error',
        `faucet: ${updated} of ${rows.length} rows were updated before a failure (${error instanceof Refusal ? JSON.stringify(error.result.data) : String(error)})`,
      );
    }
  }
  return updated;
}

async function compareAndSet(
  f: FaucetPeer,
  k: Known,
  terms: Term[],
  first: Row,
  plain: Row,
  adds: Row,
): Promise<number> {
  const addCols = Object.keys(adds);
  let row: Row | undefined = first;
  for (let attempt = 0; attempt < CAS_TRIES && row; attempt++) {
    const mine = [...terms, ...keyTerms(k, pick(row, k.pk))];
    const record = { ...plain, ...Object.fromEntries(addCols.map((c) => [c, addDecimal(row![c], adds[c])])) };
    const still = addCols.map((c) => ({ column: c, op: '=', literal: faucetLiteral(row![c]) }));
    const answer = await f.call<{ count?: number }>('faucet_update', {
      table: k.name,
      filter: render([...mine, ...still]),
      record,
    });
    if (Number(answer?.count) > 0) return 1;
    // changed since it was read, or no longer matching: read it again
    [row] = await f.records({ table: k.name, filter: render(mine), fields: [...k.pk, ...addCols], limit: 1 });
  }
  return row ? refuse('conflict', `faucet: a row of ${k.name} kept changing between its read and its write`) : 0;
}

export async function remove(f: FaucetPeer, args: Row) {
  const { table, filter, max_rows } = args as DeleteInput;
  const k = await f.table(table);
  const target = await capped(f, k, requiredFilter(k, filter), max_rows, 'deleted');
  if (target === null) return { deleted: 0 };
  const answer = await f.call<{ deleted?: number }>('faucet_delete', { table: k.name, filter: target });
  return { deleted: Number(answer?.deleted ?? 0) };
}
