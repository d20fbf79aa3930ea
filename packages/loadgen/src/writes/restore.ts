import { f, TOOL_NAMES, WRITE_LIMITS, writeFilter } from '@mcp-db-bench/contract';
import type { McpClient } from '../clients/client.js';
import type { WriteLedger } from './ledger.js';
import { fromCents, readAll, toCents } from './read-back.js';

/** What putting the dataset back after a write step did, or why it could not. */
export interface Restoration {
  ok: boolean;
  /** payments rows with the step's marker, deleted */
  payments: number;
  /** accounts whose balance was set back to the one read before the step */
  accounts: number;
  /** why it stopped short: later steps read what the writes left */
  problem?: string;
}

/** Far more rows than any step writes: the delete's guard, not a limit. */
const MAX_ROWS = 1_000_000;

/**
 * Puts back what a write step changed, through the same MCP tools it wrote with: deletes every
 * payments row carrying its marker (drafts and transfers alike, acknowledged or not), then sets
 * every account whose balance moved back to the balance read before the step, in transactions
 * of up to WRITE_LIMITS.maxSteps updates. The next step, and the answer check, read the dataset
 * as it was.
 */
export async function restoreWrites(client: McpClient, ledger: WriteLedger): Promise<Restoration> {
  const done: Restoration = { ok: false, payments: 0, accounts: 0 };
  const refused = (what: string, data: unknown) => ({
    ...done,
    problem: `${what} was refused: ${JSON.stringify(data).slice(0, 300)}`,
  });
  try {
    const deleted = await client.callTool(TOOL_NAMES.delete, {
      table: 'payments',
      filter: writeFilter(f.like('memo', `${ledger.marker}%`)),
      max_rows: MAX_ROWS,
    });
    if (deleted.isError) return refused(`deleting the step's payments`, deleted.data);
    done.payments = (deleted.data as { deleted: number }).deleted;
    const before = new Map(ledger.accounts.map((a) => [a.id, a.cents]));
    const moved = (await readAll(client, 'accounts', ['id', 'balance']))
      .map((r) => ({ id: Number(r.id), cents: toCents(r.balance) }))
      .filter((a) => before.has(a.id) && before.get(a.id) !== a.cents);
    for (let i = 0; i < moved.length; i += WRITE_LIMITS.maxSteps) {
      const steps = moved.slice(i, i + WRITE_LIMITS.maxSteps).map((a) => ({
        op: 'update' as const,
        table: 'accounts',
        set: { balance: fromCents(before.get(a.id)!) },
        filter: writeFilter(f.eq('id', a.id)),
        expect_rows: 1,
      }));
      const result = await client.callTool(TOOL_NAMES.transact, { steps });
      if (result.isError) return refused(`setting ${steps.length} balances back`, result.data);
      done.accounts += steps.length;
    }
    return { ...done, ok: true };
  } catch (error) {
    return { ...done, problem: (error as Error).message };
  }
}
