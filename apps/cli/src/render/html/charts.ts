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

/** Okabe–Ito and Tableau hues: distinguishable, also for the colour-blind, on a white page. */
const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#D55E00',
  '#CC79A7',
  '#56B4E9',
  '#8C564B',
  '#7F7F7F',
  '#BCBD22',
  '#17BECF',
  '#1F3A93',
  '#B8860B',
];

export const color = (i: number) => PALETTE[i % PALETTE.length]!;

/** HTML ids and data-chart keys from free text. */
export const slug = (...parts: (string | number)[]) =>
  parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
