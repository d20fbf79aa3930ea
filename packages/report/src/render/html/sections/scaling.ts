import { int, pct } from '../../../format.js';
import { summary } from '../../../histogram.js';
import { type Group, groupHistogram, medianGoodput, roundLabel } from '../../groups.js';
import { efficiency, kneeIndex, scalingSeries } from '../../report.js';
import { type SeriesSpec, slug } from '../charts.js';
import { type Context, num, rateCell } from '../context.js';
import type { Block, ReportSection } from '../types.js';

export interface ScalingLine {
  agents: number[];
  /** goodput: successful calls/s, the median of the iterations */
  goodput: number[];
  p99Ms: number[];
  efficiency: number[];
  /** the agent count after which goodput grows less than 10%, if any */
  knee: number | undefined;
}

/** One target round's sweep over agent counts, from its step groups. */
export function scalingLine(groups: readonly Group[]): ScalingLine {
  const sorted = [...groups].sort((a, b) => a.agents - b.agents);
  const agents = sorted.map((g) => g.agents);
  const goodput = sorted.map((g) => medianGoodput(g).median);
  const k = kneeIndex(goodput);
  return {
    agents,
    goodput,
    p99Ms: sorted.map((g) => summary(groupHistogram(g)).p99 / 1000),
    efficiency: efficiency(agents, goodput),
    // no gain past the first count is no knee (the terminal says so in words)
    knee: k === undefined || k === 0 ? undefined : agents[k],
  };
}

export function scalingSection(ctx: Context): ReportSection {
  const blocks: Block[] = [];
  for (const workload of ctx.workloads) {
    const lines = ctx.groups.flatMap((groups, run) =>
      scalingSeries(groups)
        .filter((list) => list[0]!.workload === workload)
        .map((list) => ({
          label: ctx.name(run, roundLabel(list[0]!)),
          color: ctx.colorOf(run, list[0]!),
          line: scalingLine(list),
        })),
    );
    if (!lines.some((l) => l.line.agents.length > 1)) continue;
    const agents = [...new Set(lines.flatMap((l) => l.line.agents))].sort((a, b) => a - b);
    const series: SeriesSpec[] = [];
    const data: (number | null)[][] = [agents];
    for (const { label, color, line } of lines) {
      const at = (values: number[]) => agents.map((a) => values[line.agents.indexOf(a)] ?? null);
      series.push({ label: `${label} calls/s`, scale: 'rate', color });
      data.push(at(line.goodput));
      series.push({ label: `${label} p99 ms`, scale: 'ms', color, dash: true });
      data.push(at(line.p99Ms));
    }
    const rows = lines.flatMap(({ label, line }) =>
      line.agents.map((a, i) => ({
        cells: [
          label,
          int(a),
          rateCell(line.goodput[i]!),
          { text: pct(line.efficiency[i]!), value: line.efficiency[i]! },
          num(line.p99Ms[i]!),
          i === 0
            ? line.knee === undefined
              ? `none up to ${int(line.agents.at(-1)!)}`
              : `${int(line.knee)} agents`
            : '',
        ],
      })),
    );
    blocks.push({
      chart: {
        id: slug('scaling', workload),
        title: `${workload}: calls/s (solid) and p99 (dashed) by agents`,
        x: { label: 'agents', log: 2, ticks: agents.map((a) => ({ value: a, label: int(a) })) },
        axes: [
          { scale: 'rate', label: 'calls/s, higher is better' },
          { scale: 'ms', label: 'p99 ms, lower is better', log: 10, side: 'right' },
        ],
        series,
        data,
      },
      table: { head: ['series', 'agents', 'calls/s', 'efficiency', 'p99 ms', 'knee'], rows },
    });
  }
  return {
    id: 'scaling',
    title: 'Goodput and p99 by agents',
    note:
      'Successful calls/s (median of iterations) and p99. Efficiency = X(N) / (N × X(first) / first): 100% is linear ' +
      'scaling. The knee is the agent count after which goodput grows less than 10%.',
    blocks,
  };
}
