import { overrunSection as overrunTable } from '../../overrun.js';
import type { Context } from '../context.js';
import type { ReportSection } from '../types.js';
import { sharedSection } from './shared.js';

/** Steps whose calls outlasted them: the terminal report's table, per run. */
export const overrunSection = (ctx: Context): ReportSection | undefined => sharedSection(ctx, 'overrun', overrunTable);
