import { analytical } from './analytical.js';
import { filtered } from './filtered.js';
import { pointRead } from './point-read.js';
import type { Workload } from './workload.js';

const PARTS = { 'point-read': pointRead, filtered, analytical } as const;
const WEIGHTS = { 'point-read': 50, filtered: 35, analytical: 15 } as const;

/** A working session's blend: mostly lookups, a third related-row queries, some analysis. */
export const mixed: Workload = {
  name: 'mixed',
  description: 'point-read 50%, filtered 35%, analytical 15%',
  database: true,
  requires: [...new Set(Object.values(PARTS).flatMap((part) => part.requires))],
  next: (agent) => PARTS[agent.random.weighted(WEIGHTS)].next(agent),
};
