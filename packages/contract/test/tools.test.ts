import { describe, expect, it } from 'vitest';
import { getInput, TOOL_NAMES, TOOL_SPECS } from '../src/index.js';

describe('the tool specs', () => {
  it('name each tool once, and TOOL_NAMES keeps its keys and values', () => {
    const names = TOOL_SPECS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(TOOL_NAMES).toEqual({
      listTables: 'list_tables',
      describeTable: 'describe_table',
      query: 'query',
      get: 'get',
      aggregate: 'aggregate',
      insert: 'insert',
      update: 'update',
      delete: 'delete',
      transact: 'transact',
      sql: 'sql',
      echo: 'echo',
    });
  });
});

describe('get key', () => {
  it('says what a key is when it is missing or of the wrong shape', () => {
    const missing = getInput.safeParse({ table: 'orders' });
    expect(missing.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'key: required: the primary key value of the row, or {"column": value} for a composite key',
    ]);
    const wrong = getInput.safeParse({ table: 'orders', key: [1, 2] });
    expect(wrong.error?.issues.map((i) => i.message)).toEqual([
      'expected the primary key value (a string, number, boolean or null), or {"column": value} for a composite key',
    ]);
    expect(getInput.safeParse({ table: 'orders', key: { id: 1 } }).success).toBe(true);
  });
});
