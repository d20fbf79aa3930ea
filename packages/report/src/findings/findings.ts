import type { ResultFile } from '@mcp-db-bench/contract';
import type { Finding } from './common.js';
import { concurrencyScaling } from './concurrency.js';
import { enginesCompared } from './engines.js';
import { indexEffect } from './index-effect.js';
import { rerunAgreement } from './rerun.js';
import { sessionStart } from './sessions.js';
import { timeShares } from './time.js';
import { transfers } from './transfers.js';

/** Every finding the files hold, in the study's order; with an earlier run's files, how this run agrees with it. */
export function studyFindings(files: readonly ResultFile[], earlier?: readonly ResultFile[]): Finding[] {
  const found = [indexEffect, concurrencyScaling, enginesCompared, timeShares, sessionStart, transfers].flatMap(
    (find) => find(files) ?? [],
  );
  const rerun = earlier && rerunAgreement(earlier, files);
  return rerun ? [...found, rerun] : found;
}
