import { ToolError, type TransactOutput, transactSpec } from '@mcp-db-bench/contract';
import { deleteRows, insertRows, updateRows } from '../write/statements.js';
import { inTransaction } from '../write/transaction.js';
import { defineTool } from './tool.js';
import { WRITES } from './write-tool.js';

export const transact = defineTool(transactSpec, {
  title: 'Run writes atomically',
  description:
    'Runs insert, update and delete steps in order in one transaction: all take effect or none does. ' +
    'expect_rows on a step makes a guard: e.g. a debit {"op":"update","table":"accounts","set":{"balance":{"add":"-25.00"}},' +
    '"filter":"id = 7 and balance >= 25","expect_rows":1} rolls everything back with code conflict when the balance is short.',
  annotations: WRITES,
  run: (args, ctx) =>
    inTransaction(ctx, async (scope) => {
      const results: TransactOutput['results'] = [];
      for (const [i, step] of args.steps.entries()) {
        if (step.op === 'insert') {
          results.push({ op: 'insert', ...(await insertRows(scope, step.table, step.rows, `steps[${i}].rows`)) });
          continue;
        }
        const result =
          step.op === 'update'
            ? { op: step.op, ...(await updateRows(scope, step.table, step.set, step.filter, step.max_rows)) }
            : { op: step.op, ...(await deleteRows(scope, step.table, step.filter, step.max_rows)) };
        const count = 'updated' in result ? result.updated : result.deleted;
        if (step.expect_rows !== undefined && count !== step.expect_rows) {
          throw new ToolError(
            'conflict',
            `steps[${i}] (${step.op} ${step.table}) changed ${count} rows, expected ${step.expect_rows}; the transaction was rolled back and nothing was changed`,
          );
        }
        results.push(result);
      }
      return { results };
    }),
});
