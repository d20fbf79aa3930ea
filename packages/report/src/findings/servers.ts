import type { Comparison, ResultFile } from '@mcp-db-bench/contract';
import { comparisonsOf, stepsOf } from '../comparisons.js';
import { int } from '../format.js';
import type { Cell } from '../render/html/types.js';
import { lastIndexSet } from '../render/ratios.js';
import { databaseNames, hasPeers, OURS, type Served, servedBy } from '../served.js';
import type { Judged } from '../verdicts.js';
import {
  barChart,
  type Claim,
  colorAmong,
  commandsOf,
  type Finding,
  ratioCell,
  stepsRateCell,
  verdictBars,
} from './common.js';

/** One comparison of two targets of a file, each with its server and database. */
export interface ServedPair {
  file: ResultFile;
  base: Served;
  other: Served;
  workload: string;
  agents: number;
  comparison: Comparison;
}

/**
 * The run's comparisons of two targets that `keep` accepts, under the file's last index set (or
 * the first a workload without a database ran under), as the engines' finding picks them.
 */
export function servedPairs(
  files: readonly ResultFile[],
  keep: (base: Served, other: Served) => boolean,
): ServedPair[] {
  return files.filter(hasPeers).flatMap((file) => {
    const served = new Map(servedBy(file).map((s) => [s.label, s]));
    const paired = comparisonsOf(file).filter((c) => {
      const [base, other] = [served.get(c.base.target), served.get(c.other.target)];
      return c.kind === 'targets' && base && other && keep(base, other);
    });
    const loads = [...new Set(paired.map((c) => `${c.workload}\u0000${c.agents}`))];
    return loads.flatMap((load) => {
      const mine = paired.filter((c) => `${c.workload}\u0000${c.agents}` === load);
      const indexes = [lastIndexSet(file), ...file.config.indexes, null].find((p) =>
        mine.some((c) => c.other.indexes === p),
      );
      return mine
        .filter((c) => c.other.indexes === indexes)
        .map((c) => ({
          file,
          base: served.get(c.base.target)!,
          other: served.get(c.other.target)!,
          workload: c.workload,
          agents: c.agents,
          comparison: c,
        }));
    });
  });
}

/** Each peer against our server on the same database: peer's calls/s over ours. */
const peerAgainstOurs = (files: readonly ResultFile[]) =>
  servedPairs(files, (base, other) => base.server === OURS && other.ours === base.label);

const peersOf = (pairs: readonly ServedPair[]) => [...new Set(pairs.map((p) => p.other.server))];

export const serverClaims = (files: readonly ResultFile[], j: Judged): Claim[] => {
  const name = databaseNames(files);
  return peerAgainstOurs(files).flatMap((p) => {
    const verdict = j.of(p.comparison);
    const what = `${p.other.server}/${OURS} ${name(p.base)} ${p.workload} × ${p.agents}`;
    return verdict ? [{ finding: 'servers compared', what, verdict }] : [];
  });
};

/** What a server's answer to a workload's call costs the agent, tokens p50 (a session start's whole discovery). */
function tokensPerAnswer(file: ResultFile, target: string, workload: string): number | undefined {
  const cost = file.tokens?.find((t) => t.target === target);
  if (!cost) return undefined;
  if (workload === 'session-init') return cost.sessionStart.tokens;
  return cost.calls.find((c) => c.workload === workload)?.tokens.p50;
}

/**
 * Servers compared: per database, workload and agent count, each peer `run --peer` started
 * against our server on the same database (calls/s over calls/s, paired per iteration: the
 * servers take turns within each iteration), judged by the claims rules; the tokens each one's
 * answer costs beside it. Nothing when no peer ran.
 */
export function serversCompared(files: readonly ResultFile[], j: Judged): Finding | undefined {
  const pairs = peerAgainstOurs(files);
  if (!pairs.length) return undefined;
  const name = databaseNames(files);
  const peers = peersOf(pairs);
  const rowKey = (p: ServedPair) => `${p.base.label}\u0000${p.workload}\u0000${p.agents}`;
  const keys = [...new Set(pairs.map(rowKey))];
  const rows: Cell[][] = keys.map((key) => {
    const mine = pairs.filter((p) => rowKey(p) === key);
    const [first] = mine as [ServedPair];
    const { file, workload, agents } = first;
    const steps = (p: ServedPair, side: 'base' | 'other') => stepsOf(file, sidesOfPair(p, side));
    const tokens = [first.base.label, ...peers.map((peer) => mine.find((p) => p.other.server === peer)?.other.label)]
      .map((t) => (t === undefined ? undefined : tokensPerAnswer(file, t, workload)))
      .map((x) => (x === undefined ? '–' : int(x)));
    return [
      name(first.base),
      workload,
      String(agents),
      stepsRateCell(steps(first, 'base')),
      ...peers.flatMap((peer): Cell[] => {
        const p = mine.find((x) => x.other.server === peer);
        return p ? [stepsRateCell(steps(p, 'other')), ratioCell(j.of(p.comparison))] : ['–', '–'];
      }),
      tokens.join(' · '),
    ];
  });
  const categories = keys.map((k) => {
    const p = pairs.find((x) => rowKey(x) === k)!;
    return `${name(p.base)} ${p.workload} × ${p.agents}`;
  });
  const at = (peer: string, k: string) =>
    j.of(pairs.find((p) => rowKey(p) === k && p.other.server === peer)?.comparison);
  return {
    id: 'servers',
    title: 'Servers compared',
    note:
      'Each other server the study started on the same database (run --peer) against ours: its calls/s over ours ' +
      '(session-init: whole sessions/s), paired per iteration (the servers take turns within each iteration, in an ' +
      'order rotated from one to the next), median and interval, each judged by the claims rules among all the ' +
      "study's ratios (the legend above); below 1 ours is faster. Optimized indexes (the handshake reads no " +
      'table). Each server is driven through its own tools (docs/profiles.md); a workload a server cannot run has ' +
      'no cell. Tokens per answer: what one ' +
      "answer costs the agent's context, p50 of the sampled calls (session-init: the whole discovery), ours first " +
      `then ${peers.join(', ')}. The server's own share of a call and which database looks fastest through each ` +
      'server follow.',
    head: [
      'database',
      'workload',
      'agents',
      `${OURS} /s`,
      ...peers.flatMap((peer) => [`${peer} /s`, `${peer}/${OURS}`]),
      `tokens per answer (${[OURS, ...peers].join(' · ')})`,
    ],
    rows,
    chart: barChart(
      'servers',
      'Each server against ours (calls/s ratio, median)',
      categories,
      { label: 'ratio ×', log: 10 },
      peers.map((peer) => ({
        label: `${peer}/${OURS}`,
        color: colorAmong(peers, peer),
        ...verdictBars(keys.map((k) => at(peer, k))),
      })),
    ),
    commands: commandsOf([...new Set(pairs.map((p) => p.file))]),
  };
}

/** A pair's side as a cell of steps: its target under the comparison's index set, workload and agents. */
export const sidesOfPair = (p: ServedPair, side: 'base' | 'other') => ({
  target: p[side].label,
  indexes: p.comparison[side].indexes,
  workload: p.comparison[side].workload ?? p.workload,
  agents: p.comparison[side].agents ?? p.agents,
});
