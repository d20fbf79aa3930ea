import type { ResultFile } from '@mcp-db-bench/contract';
import { type Judged, judge } from '../verdicts.js';
import type { Finding } from './common.js';
import { concurrencyScaling } from './concurrency.js';
import { enginesCompared } from './engines.js';
import { indexEffect } from './index-effect.js';
import { rerunAgreement } from './rerun.js';
import { serverShares } from './server-share.js';
import { spreadThroughServers } from './server-spread.js';
import { serversCompared } from './servers.js';
import { sessionStart } from './sessions.js';
import { timeShares } from './time.js';
import { transfers } from './transfers.js';

/** How the findings judge their ratios: `band` instead of the files' own (`study --band`). */
export interface FindingsOptions {
  band?: number;
}

/**
 * Every finding the files hold, in the study's order, their ratios judged together (`judge`: the
 * study's ratios are one family); with an earlier run's files, how this run agrees with it.
 */
export function studyFindings(
  files: readonly ResultFile[],
  earlier?: readonly ResultFile[],
  options: FindingsOptions = {},
  j: Judged = judge(files, options),
): Finding[] {
  const found = [
    indexEffect(files, j),
    concurrencyScaling(files, j),
    enginesCompared(files, j),
    serversCompared(files, j),
    serverShares(files),
    spreadThroughServers(files, j),
    timeShares(files),
    sessionStart(files),
    transfers(files),
  ].flatMap((f) => f ?? []);
  const rerun = earlier && rerunAgreement(earlier, files, { band: j.rules.band });
  return rerun ? [...found, rerun] : found;
}
