import { operationsSection as operationsTable } from '../../operations.js';
import type { Context } from '../context.js';
import type { ReportSection } from '../types.js';
import { sharedSection } from './shared.js';

/** Each operation of a workload of several: the terminal report's table, per run. */
export const operationsSection = (ctx: Context): ReportSection | undefined =>
  sharedSection(ctx, 'operations', operationsTable);
