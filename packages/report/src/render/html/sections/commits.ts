import { commitsSection as commitsTable } from '../../commits.js';
import type { Context } from '../context.js';
import type { ReportSection } from '../types.js';
import { sharedSection } from './shared.js';

/** Transactions committed per second and the conflicts they met: the terminal report's table, per run. */
export const commitsSection = (ctx: Context): ReportSection | undefined => sharedSection(ctx, 'commits', commitsTable);
