/**
 * What a run compared, paired by iteration with the contract's `pairSteps` (the one pairing):
 * each index set against the first on every target; each target against each earlier one under
 * every index set; each agent count against the fewest; and MCP echo against the bare node:http
 * floor measured beside it. The runner writes these into the result file; every report and the
 * study's findings read them (`comparisonsOf`) and never pair steps themselves.
 */
import { type Comparison, pairSteps, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import { summarize } from './histogram.js';

/** How reports name the bare node:http echo floor. */
export const FLOOR_LABEL = 'bare node:http';

/**
 * floor: each target's own floor, measured in the turn right before it, so each is compared with
 * the floor of its moment.
 */
export const floorBefore = (target: string): string => `${FLOOR_LABEL} before ${target}`;

const isFloor = (target: string) => target === FLOOR_LABEL || target.startsWith(`${FLOOR_LABEL} before `);

/** The steps of one target under one index set, one workload and one agent count. */
export interface Cell {
  target: string;
  indexes: string | null;
  workload: string;
  agents: number;
}

const keyOf = (c: Cell) => `${c.target}\u0000${c.indexes}\u0000${c.workload}\u0000${c.agents}`;

/** A step's p50, µs, decoded once however many comparisons it is in. */
const p50s = new WeakMap<StepResult, number>();
const p50Us = (s: StepResult) => {
  const known = p50s.get(s);
  if (known !== undefined) return known;
  const p = summarize(s.all.histogram).p50;
  p50s.set(s, p);
  return p;
};

/** `order`: the targets and index sets as the plan lists them; the first index set is the base. */
export function comparisons(
  steps: readonly StepResult[],
  order: { targets: readonly string[]; indexes: readonly string[] },
): Comparison[] {
  const cells = new Map<string, StepResult[]>();
  for (const s of steps) cells.set(keyOf(s), [...(cells.get(keyOf(s)) ?? []), s]);
  const out: Comparison[] = [];
  const pair = (kind: Comparison['kind'], base: Cell, other: Cell) => {
    const a = cells.get(keyOf(base));
    const b = cells.get(keyOf(other));
    if (a && b) out.push(comparisonOf(kind, base, other, a, b));
  };
  const measured = new Set(steps.map((s) => s.indexes));
  const sets = order.indexes.filter((p) => measured.has(p));
  const named = [...new Set([...order.targets, ...steps.map((s) => s.target)])].filter((t) => !isFloor(t));
  const loads = distinct(steps, (s) => ({ workload: s.workload, agents: s.agents }));
  for (const load of loads) {
    for (const target of named)
      for (const set of sets.slice(1))
        pair('indexes', { target, indexes: sets[0]!, ...load }, { target, indexes: set, ...load });
    for (const indexes of [...sets, null]) {
      const present = named.filter((target) => cells.has(keyOf({ target, indexes, ...load })));
      for (const [j, other] of present.entries())
        for (const base of present.slice(0, j))
          pair('targets', { target: base, indexes, ...load }, { target: other, indexes, ...load });
    }
  }
  const ours = steps.filter((s) => !isFloor(s.target));
  for (const series of distinct(ours, ({ target, indexes, workload }) => ({ target, indexes, workload }))) {
    const counts = [...new Set(ours.filter((s) => sameSeries(s, series)).map((s) => s.agents))].sort((a, b) => a - b);
    for (const agents of counts.slice(1)) pair('agents', { ...series, agents: counts[0]! }, { ...series, agents });
  }
  for (const cell of distinct(ours, ({ target, indexes, workload, agents }) => ({ target, indexes, workload, agents })))
    pair('floor', floorOf(cell), cell);
  return out;
}

const sameSeries = (s: Cell, series: Omit<Cell, 'agents'>) =>
  s.target === series.target && s.indexes === series.indexes && s.workload === series.workload;

/** The floor a cell is compared with: `run`'s bare floor beside MCP echo, or `floor`'s measured right before it. */
const floorOf = (cell: Cell): Cell =>
  cell.workload === 'echo'
    ? { target: FLOOR_LABEL, indexes: null, workload: 'http-echo', agents: cell.agents }
    : { target: floorBefore(cell.target), indexes: null, workload: cell.workload, agents: cell.agents };

/** `of` each item, each distinct result once, in the order first seen. */
function distinct<T, K extends object>(items: readonly T[], of: (item: T) => K): K[] {
  const seen = new Map<string, K>();
  for (const item of items) {
    const k = of(item);
    const key = JSON.stringify(Object.values(k));
    if (!seen.has(key)) seen.set(key, k);
  }
  return [...seen.values()];
}

function comparisonOf(
  kind: Comparison['kind'],
  base: Cell,
  other: Cell,
  baseSteps: readonly StepResult[],
  otherSteps: readonly StepResult[],
): Comparison {
  const side = ({ target, indexes, workload, agents }: Cell) => ({
    target,
    indexes,
    ...(workload !== other.workload ? { workload } : {}),
    ...(agents !== other.agents ? { agents } : {}),
  });
  return {
    kind,
    workload: other.workload,
    agents: other.agents,
    base: side(base),
    other: { target: other.target, indexes: other.indexes },
    ...pairSteps(baseSteps, otherSteps, p50Us),
  };
}

/** An older file's steps paired once, however many tables read them (a result file is not changed once read). */
const paired = new WeakMap<ResultFile, Comparison[]>();

/**
 * The comparisons every report and finding reads: the file's own, as the run wrote them; a file
 * written before its comparisons carried `rate` (calls/s for transfers, overran steps kept) or
 * the claims rules' `withheld` (too few calls, a disturbed machine) has its steps paired now by
 * the same function, so every file reads by today's rules.
 */
export function comparisonsOf(file: ResultFile): Comparison[] {
  if (file.comparisons?.every((c) => c.rate !== undefined && c.withheld !== undefined)) return file.comparisons;
  let found = paired.get(file);
  if (!found) {
    found = comparisons(file.steps, { targets: file.config.targets.map((t) => t.label), indexes: file.config.indexes });
    paired.set(file, found);
  }
  return found;
}

/** A comparison side is this cell (its own workload and agents, or the comparison's). */
const sideIs = (c: Comparison, side: Comparison['base'], cell: Cell) =>
  side.target === cell.target &&
  side.indexes === cell.indexes &&
  (side.workload ?? c.workload) === cell.workload &&
  (side.agents ?? c.agents) === cell.agents;

/** The comparison of `kind` the run made between two cells, if it made one. */
export function comparisonBetween(
  file: ResultFile,
  kind: Comparison['kind'],
  base: Cell,
  other: Cell,
): Comparison | undefined {
  return comparisonsOf(file).find((c) => c.kind === kind && sideIs(c, c.base, base) && sideIs(c, c.other, other));
}

/** The cells of a comparison's two sides. */
export const sidesOf = (c: Comparison): { base: Cell; other: Cell } => ({
  base: {
    target: c.base.target,
    indexes: c.base.indexes,
    workload: c.base.workload ?? c.workload,
    agents: c.base.agents ?? c.agents,
  },
  other: { target: c.other.target, indexes: c.other.indexes, workload: c.workload, agents: c.agents },
});

/** The steps of a cell: one target, index set, workload and agent count. */
export const stepsOf = (file: Pick<ResultFile, 'steps'>, c: Cell): StepResult[] =>
  file.steps.filter(
    (s) => s.target === c.target && s.indexes === c.indexes && s.workload === c.workload && s.agents === c.agents,
  );
