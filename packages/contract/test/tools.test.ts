import { describe, expect, it } from 'vitest';
import { TOOL_NAMES, TOOL_SPECS } from '../src/index.js';

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
