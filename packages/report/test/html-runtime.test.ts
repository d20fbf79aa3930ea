import { describe, expect, it } from 'vitest';
import type { ChartSpec } from '../src/render/html/charts.js';
import { barLayout, runtimeScript, type UPlotChart } from '../src/render/html/runtime.js';

/**
 * The page's script, run as the page runs it (its source, with uPlot and the document stood in
 * by objects that record what they are given): where bars stand and where their whiskers go.
 */

// three categories: both series at the first, A alone at the second, B alone at the third
const spec: ChartSpec = {
  id: 'ratios',
  title: 'ratios',
  x: { label: 'category', ticks: ['both', 'a', 'b'].map((label, value) => ({ value, label })) },
  axes: [{ scale: 'x-times', label: 'times' }],
  series: [
    { label: 'A', scale: 'x-times', color: '#0969da', bars: true, intervals: [[1.5, 2.5], [2.8, 3.2], null] },
    { label: 'B', scale: 'x-times', color: '#cf222e', bars: true, intervals: [[0.9, 1.1], null, [3.5, 4.5]] },
  ],
  data: [
    [0, 1, 2],
    [2, 3, null],
    [1, null, 4],
  ],
};

describe('bar charts', () => {
  it('sets the bars at an x side by side and a lone bar in the middle, each series one width', () => {
    const layout = barLayout(spec);
    expect(layout.map((s) => s.width)).toEqual([0.4, 0.4]);
    // both at 0: A left of the centre, B right of it; A alone at 1 and B alone at 2, centred
    expect(layout[0]!.left.map((l) => l?.toFixed(2))).toEqual(['-0.40', '0.80', undefined]);
    expect(layout[1]!.left.map((l) => l?.toFixed(2))).toEqual(['0.00', undefined, '1.80']);
  });

  it('draws each whisker through the middle of the bar it belongs to, a lone bar’s included', () => {
    const made: { options: Record<string, unknown> }[] = [];
    class FakePlot {
      static paths = { bars: (o: object) => o, stepped: (o: object) => o };
      constructor(options: Record<string, unknown>) {
        made.push({ options });
      }
    }
    const el = { clientWidth: 700, dataset: {} as Record<string, string> };
    const doc = {
      querySelector: (sel: string) => (sel === '[data-chart="ratios"]' ? el : null),
      getElementById: () => ({ textContent: JSON.stringify([spec]) }),
    };
    new Function('uPlot', 'document', 'devicePixelRatio', runtimeScript())(FakePlot, doc, 1);
    expect(made).toHaveLength(1);
    const options = made[0]!.options as {
      series: { paths?: { disp: { x0: { values: () => number[] }; size: { values: () => number[] } } } }[];
      hooks: { draw: ((u: UPlotChart) => void)[] };
    };
    // the bars as uPlot is told to draw them: left edge and width per x; 100 px an x unit
    const centres = options.series.slice(1).map((s) => {
      const x0 = s.paths!.disp.x0.values();
      const size = s.paths!.disp.size.values();
      return x0.map((x, i) => Math.round((x + size[i]! / 2) * 100));
    });
    const lines: number[] = [];
    let at: [number, number] = [0, 0];
    const u: UPlotChart = {
      ctx: {
        save() {},
        restore() {},
        beginPath() {},
        moveTo: (x, y) => {
          at = [x, y];
        },
        lineTo: (x) => {
          // the whisker's upright line (its caps run across)
          if (x === at[0]) lines.push(x);
        },
        stroke() {},
        fillText() {},
        measureText: () => ({ width: 10 }),
        strokeStyle: '',
        fillStyle: '',
        lineWidth: 1,
        font: '',
      },
      bbox: { left: 0, top: 0, width: 400, height: 300 },
      over: { getBoundingClientRect: () => ({ left: 0 }) },
      root: { dataset: {} },
      valToPos: (v, scale) => (scale === 'x' ? v * 100 : 300 - v * 50),
    };
    for (const draw of options.hooks.draw) draw(u);
    // A at 0 and 1, then B at 0 and 2: each whisker where its bar's middle is
    expect(lines).toEqual([centres[0]![0], centres[0]![1], centres[1]![0], centres[1]![2]]);
    // the lone bars' whiskers are on their category
    expect(lines[1]).toBe(100);
    expect(lines[3]).toBe(200);
  });
});
