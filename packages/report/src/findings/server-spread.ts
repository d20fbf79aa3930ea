import type { ResultFile } from '@mcp-db-bench/contract';
import { stepsOf } from '../comparisons.js';
import { rate } from '../format.js';
import type { Cell } from '../render/html/types.js';
import { databaseNames, OURS } from '../served.js';
import type { Judged } from '../verdicts.js';
import {
  barChart,
  type Claim,
  colorAmong,
  commandsOf,
  type Finding,
  ratioCell,
  stepsRate,
  verdictBars,
} from './common.js';
import { type ServedPair, servedPairs, sidesOfPair } from './servers.js';

/** Two databases through one server: the later database's calls/s over the earlier's. */
const throughOneServer = (files: readonly ResultFile[]) =>
  servedPairs(files, (base, other) => base.server === other.server && base.database !== other.database);

export const spreadClaims = (files: readonly ResultFile[], j: Judged): Claim[] => {
  const name = databaseNames(files);
  return throughOneServer(files).flatMap((p) => {
    const verdict = j.of(p.comparison);
    const what = `${p.base.server} ${name(p.other)} / ${name(p.base)} ${p.workload} × ${p.agents}`;
    return verdict ? [{ finding: 'engines through each server', what, verdict }] : [];
  });
};

/** The databases of a server's pairs at one load, fastest first, each with its calls/s. */
function fastestFirst(pairs: readonly ServedPair[], name: (p: ServedPair, side: 'base' | 'other') => string): string {
  const rates = new Map<string, number>();
  for (const p of pairs)
    for (const side of ['base', 'other'] as const) {
      const x = stepsRate(stepsOf(p.file, sidesOfPair(p, side)));
      if (x !== undefined) rates.set(name(p, side), x);
    }
  return [...rates]
    .sort((a, b) => b[1] - a[1])
    .map(([db, x]) => `${db} ${rate(x)}`)
    .join(' > ');
}

/**
 * The engine spread through each server: per workload and agent count, each database against
 * each other one as measured through ours and through each peer (the published study measured
 * its engine ratios through one server, Faucet), so a reader sees whether the choice of server
 * changes which database looks fastest. Nothing when no peer ran or only one database did.
 */
export function spreadThroughServers(files: readonly ResultFile[], j: Judged): Finding | undefined {
  const pairs = throughOneServer(files);
  if (!pairs.length) return undefined;
  const name = databaseNames(files);
  const pairName = (p: ServedPair) => `${name(p.other)} / ${name(p.base)}`;
  const names = [...new Set(pairs.map(pairName))];
  const servers = [...new Set(pairs.map((p) => p.base.server))];
  const loads = [...new Set(pairs.map((p) => `${p.workload} × ${p.agents}`))];
  const loadOf = (p: ServedPair) => `${p.workload} × ${p.agents}`;
  const find = (load: string, server: string, pair: string) =>
    pairs.find((p) => loadOf(p) === load && p.base.server === server && pairName(p) === pair);
  const rows: Cell[][] = loads.flatMap((load) =>
    servers.flatMap((server) => {
      const mine = pairs.filter((p) => loadOf(p) === load && p.base.server === server);
      if (!mine.length) return [];
      const [workload, agents] = load.split(' × ') as [string, string];
      return [
        [
          workload,
          agents,
          server,
          fastestFirst(mine, (p, side) => name(p[side])),
          ...names.map((pair) => ratioCell(j.of(find(load, server, pair)?.comparison))),
        ],
      ];
    }),
  );
  const categories = loads.flatMap((load) => names.map((pair) => `${load} ${pair}`));
  const at = (server: string, category: string) => {
    const load = loads.find((l) => category.startsWith(`${l} `))!;
    return j.of(find(load, server, category.slice(load.length + 1))?.comparison);
  };
  return {
    id: 'server-spread',
    title: 'Servers compared: which database looks fastest through each server',
    note:
      'The engines compared as each server sees them: per workload and agent count, the databases through one ' +
      'server, fastest first by calls/s (median of the iterations), and each database against each other one ' +
      'through that server (calls/s over calls/s, paired per iteration, judged by the claims rules: the legend ' +
      `above). The published study's engine spread (5x on session discovery, 3.5x on point reads) was measured ` +
      `through Faucet alone; where ${OURS} and a peer disagree on the order, the server is part of what that spread measured.`,
    head: ['workload', 'agents', 'server', 'fastest first, calls/s', ...names],
    rows,
    chart: barChart(
      'server-spread',
      'Database against database through each server (calls/s ratio, median)',
      categories,
      { label: 'ratio ×', log: 10 },
      servers.map((server) => ({
        label: server,
        color: colorAmong(servers, server),
        ...verdictBars(categories.map((c) => at(server, c))),
      })),
    ),
    commands: commandsOf([...new Set(pairs.map((p) => p.file))]),
  };
}
