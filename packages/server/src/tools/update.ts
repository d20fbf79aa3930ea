import { updateSpec } from '@mcp-db-bench/contract';
import { updateRows } from '../write/statements.js';
import { inTransaction } from '../write/transaction.js';
import { defineTool } from './tool.js';
import { WRITES } from './write-tool.js';

export const update = defineTool(updateSpec, {
  title: 'Update rows',
  description:
    'Sets columns of the rows a filter matches (required). {"add": n} adds to a number inside the database, safe under concurrency. ' +
    'Changes nothing and fails when more than max_rows rows match.',
  annotations: WRITES,
  run: (args, ctx) =>
    inTransaction(ctx, (scope) => updateRows(scope, args.table, args.set, args.filter, args.max_rows)),
});
