/**
 * What a run compared, paired by iteration: each index profile against the first on every
 * target, and each target against the first under every profile, for each workload and agent
 * count both sides measured. The values per iteration go in the result file; the median ratio
 * and its interval are the renderers' (`ratioInterval` in the contract).
 */
import type { Comparison, StepResult } from '@mcp-db-bench/contract';
import { summarize } from './histogram.js';

type Side = Comparison['base'];

const throughput = (s: StepResult) => (s.durationMs > 0 ? s.calls / (s.durationMs / 1000) : 0);

/** `order`: the targets and index profiles as the plan lists them; the first of each is the base. */
export function comparisons(
  steps: readonly StepResult[],
  order: { targets: readonly string[]; indexes: readonly string[] },
): Comparison[] {
  const cells = new Map<string, StepResult[]>();
  const cell = (target: string, indexes: string | null, workload: string, agents: number) =>
    `${target}\u0000${indexes}\u0000${workload}\u0000${agents}`;
  for (const s of steps) {
    const key = cell(s.target, s.indexes, s.workload, s.agents);
    cells.set(key, [...(cells.get(key) ?? []), s]);
  }
  const measured = new Set(steps.map((s) => s.indexes));
  const profiles = order.indexes.filter((p) => measured.has(p));
  const targets = order.targets;
  const workloads = [...new Set(steps.map((s) => `${s.workload}\u0000${s.agents}`))];
  const out: Comparison[] = [];
  const pair = (kind: Comparison['kind'], workload: string, agents: number, base: Side, other: Side) => {
    const a = cells.get(cell(base.target, base.indexes, workload, agents));
    const b = cells.get(cell(other.target, other.indexes, workload, agents));
    if (!a || !b) return;
    const paired = a.flatMap((x) => {
      const y = b.find((s) => s.iteration === x.iteration);
      return y && x.calls > 0 && y.calls > 0 ? [[x, y] as const] : [];
    });
    if (paired.length === 0) return;
    out.push({
      kind,
      workload,
      agents,
      base,
      other,
      iterations: paired.map(([x]) => x.iteration),
      throughput: paired.map(([x, y]) => throughput(y) / throughput(x)),
      p50: paired.map(([x, y]) => summarize(x.all.histogram).p50 / Math.max(summarize(y.all.histogram).p50, 1)),
    });
  };
  for (const w of workloads) {
    const [workload, agents] = w.split('\u0000') as [string, string];
    for (const target of targets)
      for (const p of profiles.slice(1))
        pair('indexes', workload, Number(agents), { target, indexes: profiles[0]! }, { target, indexes: p });
    for (const indexes of [...profiles, null]) {
      const present = targets.filter((t) => cells.has(cell(t, indexes, workload, Number(agents))));
      for (const t of present.slice(1))
        pair('targets', workload, Number(agents), { target: present[0]!, indexes }, { target: t, indexes });
    }
  }
  return out;
}
