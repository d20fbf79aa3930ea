import { analytical } from './analytical.js';
import { echo } from './echo.js';
import { filtered } from './filtered.js';
import { mixed } from './mixed.js';
import { pointRead } from './point-read.js';
import { sessionInit } from './session-init.js';
import type { Workload } from './workload.js';

/** Every workload by name; adding one is a file and a line here. */
export const WORKLOADS: Readonly<Record<string, Workload>> = {
  'session-init': sessionInit,
  'point-read': pointRead,
  filtered,
  analytical,
  mixed,
  echo,
};

export type { Call, Workload } from './workload.js';
