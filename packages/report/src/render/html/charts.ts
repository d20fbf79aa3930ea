/**
 * What a chart is, as plain data: the model builds these, the page embeds them as JSON, and
 * the browser-side runtime (runtime.ts) turns each into a uPlot chart. No functions cross that
 * line, so the model stays pure and testable.
 */

export interface AxisSpec {
  /** scale key the series refer to */
  scale: string;
  label: string;
  /** log scale of this base */
  log?: 2 | 10;
  side?: 'left' | 'right';
}

export interface SeriesSpec {
  label: string;
  scale: string;
  color: string;
  /** dashed line (a second measure of the same series, e.g. p99 beside calls/s) */
  dash?: boolean;
  /** drawn as bars, grouped side by side with the chart's other bar series */
  bars?: boolean;
  /** a stepped line (agent counts) */
  stepped?: boolean;
  /** per x: an interval around the value (a ratio's), drawn as a whisker; null: none */
  intervals?: ([number, number] | null)[];
}

export interface ChartSpec {
  id: string;
  title: string;
  x: {
    label: string;
    log?: 2 | 10;
    /** where to put ticks, and what to write there (bar charts: the categories at 0, 1, 2 …) */
    ticks?: { value: number; label: string }[];
  };
  axes: AxisSpec[];
  series: SeriesSpec[];
  /** x values, then one array per series (null: no value there) */
  data: (number | null)[][];
  /** vertical lines with a label, e.g. where each step of a timeline begins */
  markers?: { x: number; label: string }[];
}

/**
 * A chart without its series that have no value anywhere (a run without load stages beside a
 * staged one, a step with no call timed): a legend entry with nothing behind it only says "–".
 */
export function dropEmptySeries(chart: ChartSpec): ChartSpec {
  const keep = chart.series.map((_, i) => chart.data[i + 1]!.some((v) => v !== null));
  if (keep.every(Boolean)) return chart;
  return {
    ...chart,
    series: chart.series.filter((_, i) => keep[i]),
    data: [chart.data[0]!, ...chart.data.slice(1).filter((_, i) => keep[i])],
  };
}

/** HTML ids and data-chart keys from free text. */
export const slug = (...parts: (string | number)[]) =>
  parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
