import { describe, expect, it } from 'vitest';
import { f, lexFilter, TOOL_SPECS, ValueTally, writeFilter } from '../src/index.js';

const spec = (name: string) => TOOL_SPECS.find((s) => s.name === name)!;

/** What `name`'s spec counts for `args`, when it passes `total` in all or `statement` in one statement. */
function count(name: string, args: Record<string, unknown>, total = 0, statement = 0) {
  const tally = new ValueTally();
  spec(name).values!(args, tally);
  return tally.over(total, statement);
}

const list = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

describe('ValueTally: what a call binds, counted from its arguments as sent', () => {
  it('counts a JSON filter by its lists, ranges, values and no value for is null', () => {
    const filter = {
      or: [
        { column: 'a', op: 'in', value: list(1000) },
        { and: [{ column: 'b', op: 'between', value: [1, 2] }, { not: { column: 'c', op: '=', value: 'x' } }] },
        { column: 'd', op: 'IS  NULL', value: 'ignored' },
        { column: 'e', op: 'like', value: 'a%' },
      ],
    };
    expect(count('query', { table: 't', filter })).toEqual({ total: 1004, statement: 1004 });
    expect(count('query', { table: 't', filter }, 1004, 1004)).toBeUndefined();
  });

  it('counts the 499,000 values of 499 lists of 1,000 without reading them', () => {
    const filter = { or: Array.from({ length: 499 }, (_, j) => ({ column: 'id', op: 'in', value: list(1000, j) })) };
    expect(count('query', { table: 't', filter }, 10_000, 65_535)).toEqual({ total: 499_000, statement: 499_000 });
  });

  it('counts an expression exactly whenever it passes, and skips reading one too short to pass', () => {
    const text = writeFilter(f.or(f.in('a', list(900)), f.between('b', 1, 2), f.like('c', 'x%')));
    const literals = lexFilter(text).literals.length;
    expect(literals).toBe(903);
    expect(count('query', { table: 't', filter: text }, 902, 10_000)).toEqual({ total: 903, statement: 903 });
    expect(count('query', { table: 't', filter: text }, 903, 903)).toBeUndefined();
    // `1-1-1` is three literals in five characters: the bound (length + 1) / 2 holds, and is met
    expect(count('query', { table: 't', filter: 'a in (1-1-1)' }, 2, 100)).toEqual({ total: 3, statement: 3 });
    // what does not lex counts nothing: validation says why
    expect(count('query', { table: 't', filter: "a = 'open" }, 0, 0)).toBeUndefined();
  });

  it('adds filter and having, set and filter, key records and params', () => {
    expect(count('aggregate', { filter: 'a in (1,2,3)', having: { column: 'n', op: '>', value: 1 } })).toEqual({
      total: 4,
      statement: 4,
    });
    expect(count('update', { set: { a: 1, b: { add: 2 } }, filter: 'id in (1, 2)' })).toEqual({
      total: 4,
      statement: 4,
    });
    expect(count('get', { key: { a: 1, b: 2 } })).toEqual({ total: 2, statement: 2 });
    expect(count('get', { key: 7 })).toEqual({ total: 1, statement: 1 });
    expect(count('sql', { sql: 'select :a', params: { a: 1, b: 2, c: 3 } })).toEqual({ total: 3, statement: 3 });
  });

  it('counts an insert as rows each of its own statement, and a transact step by step', () => {
    const rows = Array.from({ length: 1000 }, () => ({ a: 1, b: 2, c: 3 }));
    expect(count('insert', { rows })).toEqual({ total: 3000, statement: 3 });
    const steps = [
      { op: 'insert', rows: rows.slice(0, 10) },
      { op: 'update', set: { a: 1 }, filter: { column: 'id', op: 'in', value: list(50) } },
      { op: 'delete', filter: 'id in (1, 2, 3)' },
    ];
    expect(count('transact', { steps })).toEqual({ total: 84, statement: 51 });
    // validation refuses more than 1,000 rows or 50 steps: counting stops just past them
    expect(count('insert', { rows: Array.from({ length: 100_000 }, () => ({ a: 1 })) })).toEqual({
      total: 1001,
      statement: 1,
    });
  });

  it('counts nothing where the arguments are not what the tool takes', () => {
    for (const args of [{}, { filter: 42 }, { filter: [1, 2] }, { rows: 'x' }, { steps: {} }, { params: 'x' }]) {
      for (const name of ['query', 'insert', 'transact', 'sql']) expect(count(name, args)).toBeUndefined();
    }
  });

  it('walks no more of a tree than validation accepts, however wide or deep', () => {
    const wide = { or: Array.from({ length: 100_000 }, () => ({ column: 'a', op: '=', value: 1 })) };
    expect(count('query', { filter: wide })!.total).toBeLessThanOrEqual(502);
    let deep: Record<string, unknown> = { column: 'a', op: 'in', value: [1, 2] };
    for (let i = 0; i < 100_000; i++) deep = { not: deep };
    expect(count('query', { filter: deep })).toBeUndefined();
  });
});
