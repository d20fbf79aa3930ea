import type { ChartSpec, SeriesSpec } from './charts.js';

/**
 * The page's only script besides uPlot: chart specs in, uPlot charts out. It runs in the browser
 * and is embedded as source (runtimeScript: each function below by its `toString()`), so each is
 * self-contained: no imports, no outer names but each other's, and the browser objects they touch
 * are typed here by their shape.
 */
export function runtimeScript(): string {
  const parts = [
    drawCharts,
    drawChart,
    formatValue,
    xLayout,
    chartScales,
    chartAxes,
    chartSeries,
    barLayout,
    drawMarkers,
    drawIntervals,
    placeLabels,
  ];
  return `(() => {\nconst BAR_GROUP = ${BAR_GROUP};\n${parts.map(String).join('\n')}\ndrawCharts(uPlot, JSON.parse(document.getElementById('chart-specs').textContent), document);\n})();`;
}

/** The share of a category's slot its bars take together (the rest is the gap between categories). */
const BAR_GROUP = 0.8;

function drawCharts(uPlot: UPlotStatic, specs: readonly ChartSpec[], doc: Doc): void {
  for (const spec of specs) {
    const el = doc.querySelector(`[data-chart="${spec.id}"]`);
    if (el) drawChart(uPlot, spec, el);
  }
}

function drawChart(uPlot: UPlotStatic, spec: ChartSpec, el: ChartElement): void {
  const layout = xLayout(spec, el);
  const bars = barLayout(spec);
  const draw = [
    ...(spec.markers?.length ? [(u: UPlotChart) => drawMarkers(u, spec)] : []),
    ...(spec.series.some((s) => s.intervals) ? [(u: UPlotChart) => drawIntervals(u, spec, bars)] : []),
  ];
  new uPlot(
    {
      title: spec.title,
      width: layout.width,
      height: 300 + layout.labelSize,
      scales: chartScales(spec),
      axes: chartAxes(spec, layout),
      series: chartSeries(uPlot, spec, bars),
      legend: { live: true },
      hooks: { ...(draw.length ? { draw } : {}), ready: [(u: UPlotChart) => placeLabels(u, el, spec, layout)] },
    },
    spec.data,
    el,
  );
}

function formatValue(v: number | null): string {
  // no value (the legend before the cursor is on a point): nothing, not a placeholder
  if (v === null || v === undefined || Number.isNaN(v)) return '';
  const a = Math.abs(v);
  if (a >= 100) return Math.round(v).toLocaleString('en-US');
  return a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toPrecision(2);
}

/** The chart's width, and its category names: flat, or upright (and every k-th) where they would run into each other. */
function xLayout(spec: ChartSpec, el: ChartElement): XLayout {
  const ticks = spec.x.ticks;
  const width = Math.max(320, Math.min(760, el.clientWidth || 640));
  // about 6.5 px a character at the axis font; 80 px go to the value axis
  const longest = Math.max(0, ...(ticks ?? []).map((t) => t.label.length));
  const room = (width - 80) / Math.max(ticks?.length ?? 1, 1);
  const upright = ticks !== undefined && longest * 6.5 + 8 > room;
  // upright names take 16 px each: where categories are denser, every k-th is named (the table has them all)
  const every = upright ? Math.ceil(16 / room) : 1;
  // the chart grows by its upright names, so its plot keeps its height
  return {
    width,
    upright,
    named: ticks?.filter((_, i) => i % every === 0),
    labelSize: upright ? Math.ceil(longest * 6.5 + 24) : 0,
  };
}

function chartScales(spec: ChartSpec): Record<string, object> {
  const bars = spec.series.some((s) => s.bars);
  const ticks = spec.x.ticks;
  const scales: Record<string, object> = {
    x: spec.x.log
      ? {
          time: false,
          distr: 3,
          log: spec.x.log,
          ...(ticks ? { range: () => [ticks[0]!.value, ticks.at(-1)!.value] } : {}),
        }
      : bars
        ? { time: false, range: () => [-0.5, spec.data[0]!.length - 0.5] }
        : { time: false },
  };
  // bars on a log axis start a decade below the smallest, so the smallest bar still shows
  const decades = (_u: unknown, min: number, max: number) => [
    10 ** Math.floor(Math.log10(min)),
    10 ** Math.ceil(Math.log10(max)),
  ];
  // a linear axis is a quantity, not a ratio: it starts at 0 (and goes below only for negative values)
  const fromZero = (_u: unknown, min: number | null, max: number | null) => {
    const lo = Math.min(0, min ?? 0);
    const hi = Math.max(0, max ?? 0);
    const pad = (hi - lo) * 0.05 || 1;
    return [lo < 0 ? lo - pad : 0, hi > 0 ? hi + pad : lo < 0 ? 0 : 1];
  };
  for (const a of spec.axes)
    scales[a.scale] = a.log ? { distr: 3, log: a.log, ...(bars ? { range: decades } : {}) } : { range: fromZero };
  return scales;
}

function chartAxes(spec: ChartSpec, layout: XLayout): object[] {
  const ticks = spec.x.ticks;
  return [
    {
      label: spec.x.label,
      // category names that would run into each other stand upright, ending at their tick:
      // nothing overlaps and nothing passes the chart's right edge
      ...(layout.upright ? { rotate: 90, size: layout.labelSize, gap: 4 } : {}),
      ...(ticks
        ? {
            splits: () => layout.named!.map((t) => t.value),
            filter: (_u: unknown, splits: number[]) => splits,
            values: (_u: unknown, splits: number[]) => splits.map((v) => ticks.find((t) => t.value === v)?.label ?? ''),
          }
        : {}),
    },
    ...spec.axes.map((a, i) => ({
      scale: a.scale,
      label: a.label,
      side: a.side === 'right' ? 1 : 3,
      grid: { show: i === 0 },
      size: 60,
      values: (_u: unknown, splits: number[]) => splits.map((v) => formatValue(v)),
    })),
  ];
}

function chartSeries(uPlot: UPlotStatic, spec: ChartSpec, bars: BarLayout): object[] {
  const ticks = spec.x.ticks;
  const x = {
    label: spec.x.label,
    value: (_u: unknown, v: number | null) =>
      ticks ? (ticks.find((t) => t.value === v)?.label ?? formatValue(v)) : formatValue(v),
  };
  return [
    x,
    ...spec.series.map((s, k) => {
      // overlaid runs need not share every x: a run's line goes on across the other's points
      const common = {
        label: s.label,
        scale: s.scale,
        stroke: s.color,
        width: 2,
        spanGaps: true,
        value: (_u: unknown, v: number | null) => formatValue(v),
      };
      if (!s.bars)
        return {
          ...common,
          dash: s.dash ? [6, 4] : undefined,
          paths: s.stepped ? uPlot.paths.stepped!({ align: 1 }) : undefined,
          points: { show: spec.data[0]!.length <= 40, size: 5 },
        };
      const { left, width } = bars[k]!;
      const disp = {
        // each bar 90% of its slot, in its middle; where there is none, a left edge that keeps
        // uPlot's narrowest gap between bars as it is
        x0: { unit: 1, values: () => left.map((l, i) => (l ?? spec.data[0]![i]! - BAR_GROUP / 2) + width * 0.05) },
        size: { unit: 1, values: () => left.map(() => width * 0.9) },
      };
      return { ...common, width: 1, fill: `${s.color}cc`, points: { show: false }, paths: uPlot.paths.bars!({ disp }) };
    }),
  ];
}

/**
 * Where each bar series' bars stand, in x units, shared by the bars and their whiskers: the bars
 * with a value at an x side by side, centred on it (a lone bar in the middle). A series keeps one
 * width throughout (uPlot draws all its bars at one): the share its largest group leaves it.
 */
export function barLayout(spec: ChartSpec): BarLayout {
  const xs = spec.data[0]!;
  const has = (k: number, i: number) =>
    spec.series[k]!.bars === true && spec.data[k + 1]![i] !== null && spec.data[k + 1]![i] !== undefined;
  const present = xs.map((_, i) => spec.series.map((_s, k) => k).filter((k) => has(k, i)));
  const width = spec.series.map(
    (_s, k) => BAR_GROUP / Math.max(1, ...present.filter((ks) => ks.includes(k)).map((ks) => ks.length)),
  );
  const sum = (ks: number[]) => ks.reduce((a, j) => a + width[j]!, 0);
  return spec.series.map((_s, k) => ({
    width: width[k]!,
    left: xs.map((x, i) => (has(k, i) ? x! - sum(present[i]!) / 2 + sum(present[i]!.filter((j) => j < k)) : null)),
  }));
}

/**
 * Vertical lines with their labels (a label only where it has room after the last one). A line
 * left of the plot (a step begins at 0 s, the x axis at its first interval's middle) is drawn on
 * its left edge. A label keeps inside the plot and below its top edge, where the axes' top values
 * sit, centred on it: at the top of a line left of the plot it ran into the left axis's top value.
 * One that would run past the right edge goes on the line's left. Where each label went is left
 * on the chart (`data-marker-labels`, CSS pixels), for the browser test.
 */
function drawMarkers(u: UPlotChart, spec: ChartSpec): void {
  const ctx = u.ctx;
  const dpr = devicePixelRatio;
  const size = 11;
  // below the band of the axes' top values (uPlot's 12 px font, centred on the plot's top edge)
  const clear = 9;
  const pad = 4;
  ctx.save();
  ctx.strokeStyle = '#0003';
  ctx.fillStyle = '#555';
  ctx.font = `${size * dpr}px sans-serif`;
  const right = u.bbox.left + u.bbox.width;
  const labels: { left: number; top: number; width: number; height: number }[] = [];
  let lastLabel = -Infinity;
  for (const m of spec.markers ?? []) {
    const x = Math.max(Math.round(u.valToPos(m.x, 'x', true)), Math.round(u.bbox.left));
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    const width = ctx.measureText(m.label).width;
    const left = x + pad * dpr + width <= right ? x + pad * dpr : x - pad * dpr - width;
    if (x - lastLabel > 90 * dpr && left >= u.bbox.left) {
      ctx.fillText(m.label, left, u.bbox.top + (clear + size) * dpr);
      labels.push({ left: left / dpr, top: u.bbox.top / dpr + clear, width: width / dpr, height: size });
      lastLabel = x;
    }
  }
  ctx.restore();
  const plot = {
    left: u.bbox.left / dpr,
    top: u.bbox.top / dpr,
    width: u.bbox.width / dpr,
    height: u.bbox.height / dpr,
  };
  u.root.dataset.markerLabels = JSON.stringify({ plot, labels });
}

/** Whiskers: a series' intervals through the middle of its bar (where barLayout put it) or its point, clipped to the plot. */
function drawIntervals(u: UPlotChart, spec: ChartSpec, bars: BarLayout): void {
  const ctx = u.ctx;
  const bottom = u.bbox.top + u.bbox.height;
  const y = (v: number, scale: string) => {
    const p = u.valToPos(v, scale, true);
    return Number.isFinite(p) ? Math.min(Math.max(p, u.bbox.top), bottom) : bottom;
  };
  const cap = 3 * devicePixelRatio;
  ctx.save();
  ctx.strokeStyle = '#24292f';
  ctx.lineWidth = devicePixelRatio;
  spec.series.forEach((s: SeriesSpec, k) => {
    (s.intervals ?? []).forEach((iv, i) => {
      const left = bars[k]!.left[i];
      if (!iv || (s.bars && left === null)) return;
      const x = Math.round(u.valToPos(s.bars ? left! + bars[k]!.width / 2 : spec.data[0]![i]!, 'x', true));
      const [lo, hi] = [y(iv[0], s.scale), y(iv[1], s.scale)];
      ctx.beginPath();
      for (const [x0, y0, x1, y1] of [
        [x, lo, x, hi],
        [x - cap, lo, x + cap, lo],
        [x - cap, hi, x + cap, hi],
      ] as const) {
        ctx.moveTo(x0, y0);
        ctx.lineTo(x1, y1);
      }
      ctx.stroke();
    });
  });
  ctx.restore();
}

/**
 * Where each category name stands on the page, left to right edge (data-x-labels): the browser
 * test checks that none overlaps another or passes the page's right edge.
 */
function placeLabels(u: UPlotChart, el: ChartElement, spec: ChartSpec, layout: XLayout): void {
  if (!spec.x.ticks) return;
  const left = u.over.getBoundingClientRect().left;
  u.ctx.save();
  u.ctx.font = '12px system-ui, -apple-system, sans-serif';
  el.dataset.xLabels = JSON.stringify(
    layout.named!.map((t) => {
      const x = left + u.valToPos(t.value, 'x', false);
      const half = layout.upright ? 7 : u.ctx.measureText(t.label).width / 2;
      return [x - half, x + half];
    }),
  );
  u.ctx.restore();
}

interface XLayout {
  width: number;
  upright: boolean;
  /** the ticks that get their name (every k-th when upright names are too dense) */
  named: { value: number; label: string }[] | undefined;
  /** the height the upright names add */
  labelSize: number;
}
/** per series: its bars' width and, per x, its bar's left edge (null: no bar there), in x units */
export type BarLayout = { width: number; left: (number | null)[] }[];

/** The parts of uPlot, the DOM and a canvas the runtime uses. */
export interface UPlotChart {
  ctx: {
    save(): void;
    restore(): void;
    beginPath(): void;
    moveTo(x: number, y: number): void;
    lineTo(x: number, y: number): void;
    stroke(): void;
    fillText(text: string, x: number, y: number): void;
    measureText(text: string): { width: number };
    strokeStyle: string;
    fillStyle: string;
    lineWidth: number;
    font: string;
  };
  bbox: { left: number; top: number; width: number; height: number };
  over: { getBoundingClientRect(): { left: number } };
  root: { dataset: Record<string, string> };
  valToPos(value: number, scale: string, canvasPixels: boolean): number;
}
export interface UPlotStatic {
  new (options: object, data: unknown, target: unknown): unknown;
  paths: { bars?: (options: object) => unknown; stepped?: (options: object) => unknown };
}
interface ChartElement {
  clientWidth: number;
  dataset: Record<string, string | undefined>;
}
interface Doc {
  querySelector(selector: string): ChartElement | null;
}
declare const devicePixelRatio: number;
