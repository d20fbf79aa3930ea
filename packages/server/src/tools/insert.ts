import { insertSpec } from '@mcp-db-bench/contract';
import { insertRows } from '../write/statements.js';
import { inTransaction } from '../write/transaction.js';
import { defineTool } from './tool.js';
import { WRITES } from './write-tool.js';

export const insert = defineTool(insertSpec, {
  title: 'Insert rows',
  description:
    'Inserts rows into one table, all or none, and returns the primary key of each (generated values included). ' +
    'Values use the same forms query returns: decimals and big integers may be strings, timestamps ISO-8601.',
  annotations: { ...WRITES, destructiveHint: false },
  run: (args, ctx) => inTransaction(ctx, (scope) => insertRows(scope, args.table, args.rows)),
});
