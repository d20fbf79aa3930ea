import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { merge, roundLabel, summary } from '@mcp-db-bench/report';
import { result as resultOf, stats, step } from '@mcp-db-bench/report/testing';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

/**
 * The HTML report of a real run, opened in a real browser: Debian's Chromium (installed by
 * .ci/run), driven by playwright-core, with the network off. No console or page errors, every
 * chart drawn (its canvas has pixels in its series' colours, not only axes), and the numbers on the page equal the result
 * file's. Locally without Chromium the suite is skipped with a message; under CI it fails.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
/** CI as CI services set it (true, or 1): CI=false or CI=0 is a developer saying it is not CI. */
const inCi = /^(true|1)$/i.test(process.env.CI ?? '');
if (!haveChromium) {
  if (inCi)
    throw new Error(`CI needs Chromium at ${CHROMIUM} for the HTML report test (.ci/run installs Debian's chromium)`);
  console.warn(
    `report-browser.test.ts skipped: no Chromium at ${CHROMIUM}; apt-get install chromium (or set CHROMIUM_PATH)`,
  );
}

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

interface Drawn {
  charts: number;
  /** per timeline chart: its plot area and where the step markers' labels went (CSS pixels of its canvas) */
  markerLabels: { plot: Box; labels: Box[] }[];
  /** per chart: its id and how many pixels of its canvas have a series' colour (axes and grid are grey) */
  painted: { id: string; pixels: number }[];
  summary: Record<string, number>;
  /** latency table: row key → p99 ms */
  p99: Record<string, number>;
  legends: string[];
  /** compare's page: its one-line verdict */
  headline: string;
  /** the legends' series names of the timeline charts */
  timelines: string[];
  specs: { id: string; series: { label: string }[]; data: (number | null)[][] }[];
  /** every table's box: its section, widths, whether it scrolls, and whether its first column stays in view */
  boxes: { section: string; scrollWidth: number; clientWidth: number; overflowX: string; stickyFirst: boolean }[];
  /** every legend entry as shown (hidden ones left out) */
  entries: string[];
  /** section ids on the page */
  sections: string[];
  /** data-value of each table cell, by section id */
  values: Record<string, number[]>;
}

describe.skipIf(!haveChromium)('the HTML report in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-html-'));
  let browser: Browser;
  let result: ResultFile;

  beforeAll(async () => {
    const run = await runCli(
      [
        'run',
        '--scale',
        '0.002',
        '--workloads',
        'point-read,filtered,echo',
        '--agents',
        '1,2',
        '--duration',
        '1s',
        '--warmup',
        '200ms',
        // one pass, so compare's verdicts below follow the 20% drop, not this machine's spread
        '--iterations',
        '1',
        '--out',
        'run.json',
        '--html',
        'run.html',
      ],
      { cwd: dir, timeoutMs: 180_000 },
    );
    if (run.code !== 0) throw new Error(`run exited ${run.code}: ${run.stderr}`);
    result = resultFile.parse(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')));
    const staged = await runCli(
      [
        'run',
        '--scale',
        '0.002',
        '--workloads',
        'point-read',
        '--indexes',
        'optimized',
        '--stages',
        '1s:1,1s:3',
        '--warmup',
        '200ms',
        '--out',
        'staged.json',
        '--html',
        'staged.html',
      ],
      { cwd: dir, timeoutMs: 180_000 },
    );
    if (staged.code !== 0) throw new Error(`staged run exited ${staged.code}: ${staged.stderr}`);
    // a second run, 20% slower in calls/s, to compare against: a rendering test, not a measurement
    const slower = { ...result, steps: result.steps.map((step) => ({ ...step, calls: Math.round(step.calls * 0.8) })) };
    writeFileSync(join(dir, 'slower.json'), JSON.stringify(slower));
    const compared = await runCli(['compare', 'run.json', 'slower.json', '--format', 'html', '-o', 'compare.html'], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    if (compared.code !== 0) throw new Error(`compare exited ${compared.code}: ${compared.stderr}`);
    // two servers side by side (the two protocol eras of one engine): Engines compared, answer agreement, tokens
    const side = await runCli(
      [
        'run',
        '--scale',
        '0.002',
        '--protocol',
        'legacy,modern',
        '--workloads',
        'point-read,filtered',
        '--agents',
        '1',
        '--indexes',
        'optimized',
        '--duration',
        '500ms',
        '--warmup',
        '100ms',
        '--out',
        'side.json',
        '--html',
        'side.html',
      ],
      { cwd: dir, timeoutMs: 180_000 },
    );
    if (side.code !== 0) throw new Error(`side-by-side run exited ${side.code}: ${side.stderr}`);
    const both = await runCli(
      [
        'report',
        'run.json',
        'run.json',
        '--label',
        'first',
        '--label',
        'second',
        '--format',
        'html',
        '-o',
        'both.html',
      ],
      { cwd: dir, timeoutMs: 60_000 },
    );
    if (both.code !== 0) throw new Error(`report exited ${both.code}: ${both.stderr}`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 360_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a report offline; any request beyond the file itself is refused and counted. */
  async function open(file: string, width = 1400): Promise<{ drawn: Drawn; problems: string[]; requests: string[] }> {
    const context = await browser.newContext({ offline: true, viewport: { width, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(join(dir, file)).href, { waitUntil: 'load' });
    const drawn = (await page.evaluate(`(() => {
      const specs = JSON.parse(document.getElementById('chart-specs').textContent);
      const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
      const painted = [...document.querySelectorAll('div.chart[data-chart]')].map((el) => {
        const canvas = el.querySelector('canvas');
        if (!canvas || !canvas.width || !canvas.height) return { id: el.dataset.chart, pixels: 0 };
        const colors = specs.find((s) => s.id === el.dataset.chart).series.map((s) => rgb(s.color));
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let pixels = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] > 100 && colors.some((c) => Math.abs(c[0] - data[i]) + Math.abs(c[1] - data[i + 1]) + Math.abs(c[2] - data[i + 2]) < 60)) pixels++;
        }
        return { id: el.dataset.chart, pixels };
      });
      const headline = document.querySelector('[data-summary=headline]')?.textContent ?? '';
      const summary = Object.fromEntries([...document.querySelectorAll('#summary [data-summary][data-value]')].map((el) => [el.dataset.summary, Number(el.dataset.value)]));
      const p99 = Object.fromEntries([...document.querySelectorAll('#latency tr[data-key]')].map((tr) => [tr.dataset.key, Number(tr.children[4].dataset.value)]));
      const legends = [...document.querySelectorAll('#latency .u-legend .u-label')].map((el) => el.textContent);
      const timelines = [...document.querySelectorAll('#timeline .u-legend .u-label')].map((el) => el.textContent);
      const boxes = [...document.querySelectorAll('.numbers')].map((el) => {
        const first = el.querySelector('tbody td');
        return {
          section: el.closest('section').id,
          scrollWidth: el.scrollWidth,
          clientWidth: el.clientWidth,
          overflowX: getComputedStyle(el).overflowX,
          stickyFirst: !first || getComputedStyle(first).position === 'sticky',
        };
      });
      const entries = [...document.querySelectorAll('.u-legend .u-series')].filter((el) => el.offsetParent !== null).map((el) => el.textContent);
      const sections = [...document.querySelectorAll('section[id]')].map((el) => el.id);
      const values = Object.fromEntries(sections.map((id) => [id, [...document.querySelectorAll('#' + id + ' td[data-value]')].map((td) => Number(td.dataset.value))]));
      const markerLabels = [...document.querySelectorAll('#timeline [data-marker-labels]')].map((el) => JSON.parse(el.dataset.markerLabels));
      return { charts: painted.length, painted, summary, p99, legends, timelines, headline, specs, boxes, entries, sections, values, markerLabels };
    })()`)) as Drawn;
    await context.close();
    return { drawn, problems, requests };
  }

  it('run --html: draws every chart offline without an error, with the result file’s numbers', async () => {
    const { drawn, problems, requests } = await open('run.html');
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    // spectra and scaling for 3 workloads + the floor's, timelines, indexes, session init, where the time goes
    expect(drawn.charts).toBeGreaterThanOrEqual(10);
    for (const chart of drawn.painted) expect(chart.pixels, `chart ${chart.id} drew no series`).toBeGreaterThan(200);

    const calls = result.steps.reduce((n, s) => n + s.calls, 0);
    const errors = result.steps.reduce((n, s) => n + Object.values(s.errors).reduce((a, b) => a + b, 0), 0);
    expect(drawn.summary).toMatchObject({ steps: result.steps.length, calls, errors });
    expect(drawn.summary['measured-seconds']).toBeCloseTo(result.steps.reduce((n, s) => n + s.durationMs, 0) / 1000, 6);

    const groups = new Map<string, string[]>();
    for (const s of result.steps) {
      const key = `run/${roundLabel(s)}/${s.workload}/${s.agents}`;
      groups.set(key, [...(groups.get(key) ?? []), s.all.histogram]);
    }
    expect(Object.keys(drawn.p99).sort()).toEqual([...groups.keys()].sort());
    for (const [key, histograms] of groups) expect(drawn.p99[key], key).toBe(summary(merge(histograms)).p99 / 1000);
  }, 60_000);

  it('report FILE FILE --label …: overlays the two runs, every series once per label', async () => {
    const { drawn, problems, requests } = await open('both.html');
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    for (const chart of drawn.painted) expect(chart.pixels, `chart ${chart.id} drew no series`).toBeGreaterThan(200);
    const first = drawn.legends.filter((l) => l.startsWith('first: '));
    const second = drawn.legends.filter((l) => l.startsWith('second: '));
    expect(first.length).toBeGreaterThan(0);
    expect(second.map((l) => l.slice('second: '.length))).toEqual(first.map((l) => l.slice('first: '.length)));
  }, 60_000);

  it.each([
    ['run.html', 1000],
    ['run.html', 1400],
    ['side.html', 1000],
    ['both.html', 1000],
    ['compare.html', 1000],
  ])(
    '%s at %i px: every table whole in its box, no legend entry without a name',
    async (file, width) => {
      const { drawn, problems } = await open(file, width);
      expect(problems).toEqual([]);
      expect(drawn.boxes.length).toBeGreaterThan(0);
      for (const box of drawn.boxes) {
        // these runs' tables all fit beside or below their charts: no column is out of sight
        expect(box.scrollWidth, `a table of ${box.section} is wider than its box`).toBeLessThanOrEqual(
          box.clientWidth + 1,
        );
        // and a wider one would scroll inside its box, its first column in view
        expect(['auto', 'scroll'], box.section).toContain(box.overflowX);
        expect(box.stickyFirst, box.section).toBe(true);
      }
      for (const entry of drawn.entries) expect(entry).not.toMatch(/–|--/);
    },
    60_000,
  );

  it('a run of two servers side by side: Servers compared, answer agreement and token cost, from the result file', async () => {
    const { drawn, problems } = await open('side.html');
    expect(problems).toEqual([]);
    for (const chart of drawn.painted) expect(chart.pixels, `chart ${chart.id} drew no series`).toBeGreaterThan(200);
    expect(drawn.sections).toEqual(expect.arrayContaining(['servers', 'agreement', 'tokens']));
    const side = resultFile.parse(JSON.parse(readFileSync(join(dir, 'side.json'), 'utf8')));
    const servers = drawn.specs.find((s) => s.id.startsWith('servers'))!;
    expect(servers.series.map((s) => s.label)).toEqual(side.config.targets.map((t) => t.label));
    // the agreement rows' calls and mismatches, as the result file has them
    expect(drawn.values.agreement).toEqual(side.agreement!.flatMap((a) => [a.calls, a.mismatches]));
    // each server has one colour on every chart it is on
    const colours = new Map<string, Set<string>>();
    for (const spec of drawn.specs as unknown as { series: { label: string; color: string }[] }[])
      for (const s of spec.series) {
        // full discovery and the later session starts are the server's colour, paler
        if (s.label.endsWith('full discovery') || s.label.endsWith(', later')) continue;
        const server = side.config.targets.find((t) => s.label === t.label || s.label.startsWith(`${t.label} `));
        if (server) colours.set(server.label, (colours.get(server.label) ?? new Set()).add(s.color));
      }
    expect([...colours.values()].map((c) => c.size)).toEqual(side.config.targets.map(() => 1));
    expect(new Set([...colours.values()].map((c) => [...c][0])).size).toBe(side.config.targets.length);
  }, 60_000);

  it('compare --format html: calls/s charted apart from p50 and p99, offline and without an error', async () => {
    const { drawn, problems, requests } = await open('compare.html');
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    // calls/s is 20% lower everywhere (bad); the latencies are unchanged (within noise)
    expect(drawn.painted.map((c) => c.id)).toEqual(['change-calls-s', 'change-p50-ms', 'change-p99-ms']);
    expect(drawn.painted[0]!.pixels, 'the calls/s chart drew no bars').toBeGreaterThan(200);
    // one series per verdict, coloured as the table's arrows are: all of calls/s went down, which is worse
    expect(drawn.specs.map((s) => s.series.map((x) => x.label))).toEqual([
      ['slower (down)'],
      ['within noise'],
      ['within noise'],
    ]);
    // every step is 20% slower in calls/s (beyond the default 5% floor) with the same latencies
    const steps = new Set(result.steps.map((s) => `${roundLabel(s)}/${s.workload}/${s.agents}`)).size;
    expect(drawn.headline).toMatch(
      new RegExp(`^${steps} of ${steps * 3} changes beyond noise \\(${steps} slower, 0 faster\\)`),
    );
  }, 60_000);

  /**
   * A page at 1000 px: every chart's category names (where the page's script says it drew them)
   * side by side without overlapping and inside the viewport, nothing wider than the viewport;
   * the page as a PNG (the screenshots of docs/reports.md, set SCREENSHOTS=docs/images to keep them).
   */
  async function layoutAt1000(file: string, png: string, keep: string[]) {
    const context = await browser.newContext({ offline: true, viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const layout = (await page.evaluate(`(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      charts: [...document.querySelectorAll('div.chart[data-chart]')].map((el) => ({
        id: el.dataset.chart,
        right: el.getBoundingClientRect().right,
        labels: el.dataset.xLabels ? JSON.parse(el.dataset.xLabels) : [],
      })),
    }))()`)) as { scrollWidth: number; charts: { id: string; right: number; labels: [number, number][] }[] };
    // the PNG shows the charts of category names alone: the page whole is megabytes
    await page.evaluate(
      `document.querySelectorAll('section[id]').forEach((s) => { if (!${JSON.stringify(keep)}.includes(s.id)) s.style.display = 'none'; })`,
    );
    await page.screenshot({ path: join(process.env.SCREENSHOTS ?? dir, png), fullPage: true });
    await context.close();
    expect(problems).toEqual([]);
    expect(layout.scrollWidth).toBeLessThanOrEqual(1000);
    for (const chart of layout.charts) {
      expect(chart.right, chart.id).toBeLessThanOrEqual(1000);
      const boxes = [...chart.labels].sort((a, b) => a[0] - b[0]);
      for (const [i, box] of boxes.entries()) {
        expect(box[0], `${chart.id}: label ${i} starts left of the page`).toBeGreaterThanOrEqual(0);
        expect(box[1], `${chart.id}: label ${i} passes the right edge`).toBeLessThanOrEqual(1000);
        if (i > 0)
          expect(box[0], `${chart.id}: label ${i} overlaps the one before`).toBeGreaterThanOrEqual(boxes[i - 1]![1]);
      }
    }
    return layout;
  }

  it('two databases and a compare page at 1000 px: no category name overlaps another or is cut', async () => {
    const fixture = join(import.meta.dirname, '../../../fixtures/results/two-databases.json');
    const made = await runCli(['report', fixture, '--format', 'html', '-o', join(dir, 'two.html')], {
      timeoutMs: 30_000,
    });
    expect(made.code, made.stderr).toBe(0);
    const two = await layoutAt1000(join(dir, 'two.html'), 'report-two-databases.png', [
      'servers',
      'indexes',
      'decomposition',
    ]);
    // the charts with category names were checked: where the time goes, the index and engine bars
    expect(two.charts.filter((c) => c.labels.length > 0).map((c) => c.id)).toEqual(
      expect.arrayContaining(['decomposition', expect.stringMatching(/^indexes/), expect.stringMatching(/^servers/)]),
    );
    const html = readFileSync(join(dir, 'two.html'), 'utf8');
    // one name with the terminal, and the echo floor is no engine compared
    expect(html).toMatch(/Engines compared/);
    expect(html).not.toMatch(/Servers compared/);
    const servers = html.slice(
      html.indexOf('<section id="servers">'),
      html.indexOf('</section>', html.indexOf('<section id="servers">')),
    );
    expect(servers).toMatch(/<td>point-read<\/td>/);
    expect(servers).not.toMatch(/http-echo/);
    const compared = await runCli(['compare', fixture, fixture, '--format', 'html', '-o', join(dir, 'same.html')], {
      timeoutMs: 30_000,
    });
    expect(compared.code, compared.stderr).toBe(0);
    await layoutAt1000(join(dir, 'same.html'), 'compare-two-databases.png', ['summary', 'changes']);
  }, 60_000);

  it('operations, overrun and transactions at 1000 px: the terminal’s tables, each whole in its box', async () => {
    // a mix of two operations whose slow one outlasted its step, and a transfer step with its commits
    const mix = step({
      workload: 'mixed',
      agents: 4,
      calls: 1500,
      operations: { get: stats(Array(1200).fill(1000)), aggregate: stats(Array(300).fill(20_000)) },
      overrun: { calls: 2, lastEndedAfterMs: 3200 },
    });
    const transfer = step({
      workload: 'transfer',
      agents: 8,
      calls: 9000,
      commits: { op: 'transfer:commit', committed: 2400, conflicts: 100, failed: 0 },
    });
    writeFileSync(join(dir, 'ops.json'), JSON.stringify(resultOf([mix, transfer])));
    const made = await runCli(['report', 'ops.json', '--format', 'html', '-o', 'ops.html'], {
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(made.code, made.stderr).toBe(0);
    const { drawn, problems } = await open('ops.html', 1000);
    expect(problems).toEqual([]);
    expect(drawn.sections).toEqual(expect.arrayContaining(['operations', 'overrun', 'commits']));
    for (const box of drawn.boxes)
      expect(box.scrollWidth, `a table of ${box.section} is wider than its box`).toBeLessThanOrEqual(
        box.clientWidth + 1,
      );
    // agents, iteration, calls running at its end
    expect(drawn.values.overrun).toEqual([4, 1, 2]);
    // agents, committed/s, committed, conflicts, conflict rate, other failures, calls/s
    expect(drawn.values.commits).toEqual([8, 2400, 2400, 100, 4, 0, 9000]);
  }, 60_000);

  it('the timeline’s step labels stay inside the plot, clear of the axes’ values, at 1000 px', async () => {
    const { drawn, problems } = await open('staged.html', 1000);
    expect(problems).toEqual([]);
    expect(drawn.markerLabels.length).toBeGreaterThan(0);
    for (const { plot, labels } of drawn.markerLabels) {
      expect(labels.length).toBeGreaterThan(0);
      for (const label of labels) {
        // the left and right axes' values sit beside the plot; their top values centred on its top edge (12 px)
        expect(label.left).toBeGreaterThanOrEqual(plot.left);
        expect(label.left + label.width).toBeLessThanOrEqual(plot.left + plot.width);
        expect(label.top).toBeGreaterThanOrEqual(plot.top + 6);
      }
    }
  }, 60_000);

  it('run --stages: the timeline draws each interval’s agents beside calls/s and p99', async () => {
    const { drawn, problems, requests } = await open('staged.html');
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    for (const chart of drawn.painted) expect(chart.pixels, `chart ${chart.id} drew no series`).toBeGreaterThan(200);
    expect(drawn.timelines).toEqual(expect.arrayContaining(['calls/s', 'p99 ms', 'agents']));
    const staged = resultFile.parse(JSON.parse(readFileSync(join(dir, 'staged.json'), 'utf8')));
    const timeline = drawn.specs.find(
      (s) => s.id.startsWith('timeline-') && s.series.some((x) => x.label === 'agents'),
    )!;
    const agents = timeline.data[1 + timeline.series.findIndex((x) => x.label === 'agents')]!;
    const step = staged.steps.find((s) => s.workload === 'point-read')!;
    expect(agents).toEqual(step.intervals.map((i) => i.agents));
    expect(drawn.summary.steps).toBe(staged.steps.length);
  }, 60_000);
});
