import type { FilterNode, PortableType, PortableValue, Scalar } from '@mcp-db-bench/contract';
import { ToolError } from '@mcp-db-bench/contract';
import { coerceValue } from '../filter/coerce.js';
import type { OrderKey } from './order.js';

/**
 * A keyset cursor: the sort keys and the last row's values for them, plus a fingerprint of
 * the query, so the next page continues exactly after the last row even while rows are
 * inserted, and a cursor replayed against another query is refused.
 */
interface CursorState {
  v: 1;
  q: string;
  k: PortableValue[];
}

export function encodeCursor(fingerprint: string, values: PortableValue[]): string {
  const state: CursorState = { v: 1, q: fingerprint, k: values };
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

/**
 * The sort-key values of a cursor, each checked against its key's type: the fingerprint is a
 * checksum, not a signature, so a forged cursor must fail here as a cursor, not later as a filter.
 */
export function decodeCursor(cursor: string, fingerprint: string, types: readonly PortableType[]): Scalar[] {
  const keys = types.length;
  let state: CursorState;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorState;
  } catch {
    throw new ToolError('invalid_cursor', 'cursor: not a cursor returned by query; pass next_cursor unchanged');
  }
  if (
    state?.v !== 1 ||
    !Array.isArray(state.k) ||
    state.k.length !== keys ||
    state.k.some((x) => typeof x === 'object' && x !== null)
  ) {
    throw new ToolError('invalid_cursor', 'cursor: not a cursor returned by query; pass next_cursor unchanged');
  }
  if (state.q !== fingerprint) {
    throw new ToolError(
      'invalid_cursor',
      'cursor: belongs to a different query; repeat the same table, columns, filter and order_by',
    );
  }
  return (state.k as Scalar[]).map((value, i) => {
    if (value === null) return null;
    try {
      return coerceValue(types[i]!, value, `cursor key ${i + 1}`);
    } catch (error) {
      throw new ToolError(
        'invalid_cursor',
        `cursor: not a cursor returned by query (${(error as Error).message}); pass next_cursor unchanged`,
      );
    }
  });
}

/** A short, stable fingerprint of what defines a result order. */
export function fingerprint(parts: unknown): string {
  let h = 0x811c9dc5;
  const text = JSON.stringify(parts);
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

/**
 * The rows strictly after `values` in the order given by `keys`, as a filter tree:
 * (k1 after v1) or (k1 = v1 and k2 after v2) or ... with nulls first ascending and last
 * descending, matching `orderTerms`. Returns null when no row can follow.
 *
 * With more than one key the `or` comes behind a plain bound of the first key (`k1 >= v1`, or
 * `<=` descending) where one holds every following row: a bound an index on the order's columns
 * seeks to, where the `or` alone would make the database read the pages before the cursor again.
 */
export function keysetAfter(keys: readonly OrderKey[], values: readonly Scalar[]): FilterNode | null {
  const branches: FilterNode[] = [];
  const equal: FilterNode[] = [];
  keys.forEach((key, i) => {
    const value = values[i] ?? null;
    const after = afterKey(key, value);
    if (after) branches.push(equal.length ? { and: [...equal, after] } : after);
    equal.push(value === null ? { column: key.name, op: 'is null' } : { column: key.name, op: '=', value });
  });
  if (branches.length === 0) return null;
  if (branches.length === 1) return branches[0]!;
  const first = keys[0]!;
  const value = values[0] ?? null;
  // nulls sort first ascending (none follow a value) and last descending (they all follow one)
  if (value === null || (first.direction === 'desc' && first.nullable)) return { or: branches };
  return { and: [{ column: first.name, op: first.direction === 'asc' ? '>=' : '<=', value }, { or: branches }] };
}

function afterKey(key: OrderKey, value: Scalar): FilterNode | null {
  const { name, direction } = key;
  if (direction === 'asc') {
    return value === null ? { column: name, op: 'is not null' } : { column: name, op: '>', value };
  }
  if (value === null) return null;
  const below: FilterNode = { column: name, op: '<', value };
  return key.nullable ? { or: [below, { column: name, op: 'is null' }] } : below;
}
