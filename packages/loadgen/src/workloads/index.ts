import { analytical } from './analytical.js';
import { analyticalEntity } from './analytical-entity.js';
import { analyticalTable } from './analytical-table.js';
import { echo } from './echo.js';
import { filtered } from './filtered.js';
import { handshake } from './handshake.js';
import { mixed } from './mixed.js';
import { pointRead } from './point-read.js';
import { sessionChurn } from './session-churn.js';
import { sessionInit } from './session-init.js';
import { transfer } from './transfer.js';
import type { Workload } from './workload.js';
import { write } from './write.js';
import { writeTransfer } from './write-transfer.js';

/** Every workload by name; adding one is a file and a line here. */
export const WORKLOADS: Readonly<Record<string, Workload>> = {
  handshake,
  'session-init': sessionInit,
  'session-churn': sessionChurn,
  'point-read': pointRead,
  filtered,
  analytical,
  'analytical-entity': analyticalEntity,
  'analytical-table': analyticalTable,
  mixed,
  echo,
  write,
  transfer,
  'write-transfer': writeTransfer,
};

/** What a run does when not told: every workload that leaves the data as it found it, but those run only when named. */
export const DEFAULT_WORKLOADS: readonly string[] = Object.keys(WORKLOADS).filter(
  (name) => !WORKLOADS[name]!.writes && !WORKLOADS[name]!.named,
);

export type { ChosenCall, Plan, PlanContext, Workload } from './workload.js';
