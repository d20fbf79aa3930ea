import { deleteSpec } from '@mcp-db-bench/contract';
import { deleteRows } from '../write/statements.js';
import { inTransaction } from '../write/transaction.js';
import { defineTool } from './tool.js';
import { WRITES } from './write-tool.js';

export const deleteTool = defineTool(deleteSpec, {
  title: 'Delete rows',
  description:
    'Deletes the rows a filter matches (required). Changes nothing and fails when more than max_rows rows match.',
  annotations: WRITES,
  run: (args, ctx) => inTransaction(ctx, (scope) => deleteRows(scope, args.table, args.filter, args.max_rows)),
});
