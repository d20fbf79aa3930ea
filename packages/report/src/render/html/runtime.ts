import type { ChartSpec } from './charts.js';

/**
 * The page's only script besides uPlot: chart specs in, uPlot charts out. It runs in the
 * browser and is embedded as source (`drawCharts.toString()`), so it is self-contained: no
 * imports, no outer names, and the browser objects it touches are typed here by their shape.
 */
export function drawCharts(uPlot: UPlotStatic, specs: readonly ChartSpec[], doc: Doc): void {
  const fmt = (v: number | null) => {
    // no value (the legend before the cursor is on a point): nothing, not a placeholder
    if (v === null || v === undefined || Number.isNaN(v)) return '';
    const a = Math.abs(v);
    return a >= 100
      ? Math.round(v).toLocaleString('en-US')
      : a >= 10
        ? v.toFixed(1)
        : a >= 1
          ? v.toFixed(2)
          : v.toPrecision(2);
  };
  for (const spec of specs) {
    const el = doc.querySelector(`[data-chart="${spec.id}"]`);
    if (!el) continue;
    const barSeries = spec.series.filter((s) => s.bars);
    const groupWidth = 0.8;
    const scales: Record<string, object> = {
      x: spec.x.log
        ? {
            time: false,
            distr: 3,
            log: spec.x.log,
            ...(spec.x.ticks ? { range: () => [spec.x.ticks![0]!.value, spec.x.ticks!.at(-1)!.value] } : {}),
          }
        : barSeries.length
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
      scales[a.scale] = a.log
        ? { distr: 3, log: a.log, ...(barSeries.length ? { range: decades } : {}) }
        : { range: fromZero };
    const ticks = spec.x.ticks;
    const width = Math.max(320, Math.min(760, el.clientWidth || 640));
    // about 6.5 px a character at the axis font; 80 px go to the value axis
    const longest = Math.max(0, ...(ticks ?? []).map((t) => t.label.length));
    const room = (width - 80) / Math.max(ticks?.length ?? 1, 1);
    const upright = ticks !== undefined && longest * 6.5 + 8 > room;
    // upright names take 16 px each: where categories are denser, every k-th is named (the table has them all)
    const every = upright ? Math.ceil(16 / room) : 1;
    const named = ticks?.filter((_, i) => i % every === 0);
    // the chart grows by its upright names, so its plot keeps its height
    const labelSize = upright ? Math.ceil(longest * 6.5 + 24) : 0;
    const axes: object[] = [
      {
        label: spec.x.label,
        // category names that would run into each other stand upright, ending at their tick:
        // nothing overlaps and nothing passes the chart's right edge
        ...(upright ? { rotate: 90, size: labelSize, gap: 4 } : {}),
        ...(ticks
          ? {
              splits: () => named!.map((t) => t.value),
              filter: (_u: unknown, splits: number[]) => splits,
              values: (_u: unknown, splits: number[]) =>
                splits.map((v) => ticks.find((t) => t.value === v)?.label ?? ''),
            }
          : {}),
      },
      ...spec.axes.map((a, i) => ({
        scale: a.scale,
        label: a.label,
        side: a.side === 'right' ? 1 : 3,
        grid: { show: i === 0 },
        size: 60,
        values: (_u: unknown, splits: number[]) => splits.map((v) => fmt(v)),
      })),
    ];
    const series: object[] = [
      {
        label: spec.x.label,
        value: (_u: unknown, v: number | null) =>
          ticks ? (ticks.find((t) => t.value === v)?.label ?? fmt(v)) : fmt(v),
      },
      ...spec.series.map((s) => {
        // overlaid runs need not share every x: a run's line goes on across the other's points
        const common = {
          label: s.label,
          scale: s.scale,
          stroke: s.color,
          width: 2,
          spanGaps: true,
          value: (_u: unknown, v: number | null) => fmt(v),
        };
        if (s.bars) {
          // each bar takes a slot among the bars that have a value at its x: a group of one is centred
          const me = spec.series.indexOf(s) + 1;
          const mine = barSeries.map((b) => spec.series.indexOf(b) + 1);
          const slots = (u: { data: (number | null)[][] }, i: number) => {
            const present = mine.filter((k) => u.data[k]![i] !== null && u.data[k]![i] !== undefined);
            return { slot: Math.max(present.indexOf(me), 0), w: groupWidth / Math.max(present.length, 1) };
          };
          return {
            ...common,
            width: 1,
            fill: `${s.color}cc`,
            points: { show: false },
            paths: uPlot.paths.bars!({
              disp: {
                x0: {
                  unit: 1,
                  values: (u: { data: (number | null)[][] }) =>
                    u.data[0]!.map((x, i) => {
                      const { slot, w } = slots(u, i);
                      return x! - groupWidth / 2 + slot * w;
                    }),
                },
                size: {
                  unit: 1,
                  values: (u: { data: (number | null)[][] }) => u.data[0]!.map((_, i) => slots(u, i).w * 0.9),
                },
              },
            }),
          };
        }
        return {
          ...common,
          dash: s.dash ? [6, 4] : undefined,
          paths: s.stepped ? uPlot.paths.stepped!({ align: 1 }) : undefined,
          points: { show: spec.data[0]!.length <= 40, size: 5 },
        };
      }),
    ];
    const markers = spec.markers ?? [];
    const drawMarkers = (u: UPlotChart) => {
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = '#0003';
      ctx.fillStyle = '#555';
      ctx.font = `${11 * devicePixelRatio}px sans-serif`;
      let lastLabel = -Infinity;
      for (const m of markers) {
        const x = Math.round(u.valToPos(m.x, 'x', true));
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
        if (x - lastLabel > 90 * devicePixelRatio) {
          ctx.fillText(m.label, x + 3, u.bbox.top + 12 * devicePixelRatio);
          lastLabel = x;
        }
      }
      ctx.restore();
    };
    // whiskers: a series' intervals, through the middle of its bar (or its point), clipped to the plot
    const drawIntervals = (u: UPlotChart) => {
      const ctx = u.ctx;
      const bottom = u.bbox.top + u.bbox.height;
      const y = (v: number, scale: string) => {
        const p = u.valToPos(v, scale, true);
        return Number.isFinite(p) ? Math.min(Math.max(p, u.bbox.top), bottom) : bottom;
      };
      ctx.save();
      ctx.strokeStyle = '#24292f';
      ctx.lineWidth = devicePixelRatio;
      for (const s of spec.series) {
        const w = groupWidth / barSeries.length;
        const offset = s.bars ? -groupWidth / 2 + (barSeries.indexOf(s) + 0.45) * w : 0;
        const cap = 3 * devicePixelRatio;
        (s.intervals ?? []).forEach((iv, i) => {
          if (!iv) return;
          const x = Math.round(u.valToPos(spec.data[0]![i]! + offset, 'x', true));
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
      }
      ctx.restore();
    };
    const draw = [
      ...(markers.length ? [drawMarkers] : []),
      ...(spec.series.some((s) => s.intervals) ? [drawIntervals] : []),
    ];
    // where each category name stands on the page, left to right edge (data-x-labels): the
    // browser test checks that none overlaps another or passes the page's right edge
    const placeLabels = (u: UPlotChart) => {
      if (!ticks) return;
      const left = u.over.getBoundingClientRect().left;
      u.ctx.save();
      u.ctx.font = '12px system-ui, -apple-system, sans-serif';
      el.dataset.xLabels = JSON.stringify(
        named!.map((t) => {
          const x = left + u.valToPos(t.value, 'x', false);
          const half = upright ? 7 : u.ctx.measureText(t.label).width / 2;
          return [x - half, x + half];
        }),
      );
      u.ctx.restore();
    };
    new uPlot(
      {
        title: spec.title,
        width,
        height: 300 + labelSize,
        scales,
        axes,
        series,
        legend: { live: true },
        hooks: { ...(draw.length ? { draw } : {}), ready: [placeLabels] },
      },
      spec.data,
      el,
    );
  }
}

/** The parts of uPlot, the DOM and a canvas the runtime uses. */
interface UPlotChart {
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
  bbox: { top: number; height: number };
  over: { getBoundingClientRect(): { left: number } };
  valToPos(value: number, scale: string, canvasPixels: boolean): number;
}
interface UPlotStatic {
  new (options: object, data: unknown, target: unknown): unknown;
  paths: { bars?: (options: object) => unknown; stepped?: (options: object) => unknown };
}
interface Doc {
  querySelector(selector: string): { clientWidth: number; dataset: Record<string, string | undefined> } | null;
}
declare const devicePixelRatio: number;
