import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { WORKLOADS } from '@mcp-db-bench/loadgen';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { STUDY } from '../src/benchmark/study.js';
import { BIN, type CliRun, runCli } from './support/cli.js';

/**
 * `mcp-db-bench study` on a real SQLite database, short: interrupted (SIGINT) in its third
 * segment, then run again with the same --out, it finishes without measuring the first two
 * again; its findings page, in Chromium at 1000 px, has no label over another or cut off.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const inCi = /^(true|1)$/i.test(process.env.CI ?? '');
if (!haveChromium && inCi) throw new Error(`CI needs Chromium at ${CHROMIUM} for the findings page's screenshot test`);

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-study-'));
const out = join(dir, 'study');
const ARGS = [
  'study',
  '--scale',
  '0.002',
  '--iterations',
  '2',
  '--duration',
  '200ms',
  '--warmup',
  '100ms',
  '--out',
  out,
];
const names = STUDY.segments.map((s) => s.name);
const file = (name: string) => join(out, `${name}.json`);
const read = (name: string): ResultFile => resultFile.parse(JSON.parse(readFileSync(file(name), 'utf8')));

/** The study started, SIGINT sent once its third segment has measured a step. */
function interrupted(): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...ARGS], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => {
      stderr += c;
      const third = stderr.indexOf(`study 3/${names.length} ${names[2]}:`);
      if (!sent && third >= 0 && / calls\/s/.test(stderr.slice(third))) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mcp-db-bench study', () => {
  let first: CliRun;
  let second: CliRun;
  let finishedBefore: Record<string, number>;

  it('stops on SIGINT with the segments it finished kept, and the one it was in marked partial', async () => {
    first = await interrupted();
    expect(first.code, first.stderr).toBe(130);
    for (const name of names.slice(0, 2)) expect(read(name).partial).toBeUndefined();
    expect(read(names[2]!).partial).toBe(true);
    for (const name of names.slice(3)) expect(existsSync(file(name))).toBe(false);
    expect(first.stderr).toContain('study interrupted: rerun the same command to finish it');
    // the findings of what it finished are written already
    expect(readFileSync(join(out, 'findings.md'), 'utf8')).toContain('The index effect per database');
    finishedBefore = Object.fromEntries(names.slice(0, 2).map((n) => [n, statSync(file(n)).mtimeMs]));
  }, 300_000);

  it('resumes: a rerun with the same --out measures only what is left', async () => {
    second = await runCli(ARGS, { cwd: dir, timeoutMs: 400_000 });
    expect(second.code, second.stderr).toBe(0);
    for (const name of names.slice(0, 2)) {
      expect(second.stderr).toContain(`${name}: finished before, kept`);
      expect(statSync(file(name)).mtimeMs).toBe(finishedBefore[name]);
    }
    // the two kept segments ran no step this time: every step line is of the other three's workloads
    const stepLines = second.stderr.split('\n').filter((l) => / × \d+: [\d,.]+ calls\/s/.test(l));
    expect(stepLines.length).toBeGreaterThan(0);
    const kept = STUDY.segments.slice(0, 2).flatMap((s) => s.workloads);
    expect(stepLines.filter((l) => kept.some((w) => l.includes(` ${w} × `)))).toEqual([]);
    for (const [i, segment] of STUDY.segments.entries()) {
      const r = read(segment.name);
      expect(r.partial).toBeUndefined();
      expect(r.config.workloads).toEqual(segment.workloads);
      expect(r.config.agents).toEqual(segment.agents);
      expect(r.config.indexes).toEqual(STUDY.indexes);
      // every step of the design, once per iteration and index set (the handshake, with no
      // database, under the first profile only)
      const perIteration = segment.workloads.reduce((n, w) => n + (WORKLOADS[w]!.database ? 2 : 1), 0);
      expect(r.steps.length).toBe(perIteration * segment.agents.length * 2);
      expect(r.config.command).toContain(`--workloads ${segment.workloads.join(',')}`);
      if (i >= 2) expect(second.stderr).toContain(`study ${i + 1}/${names.length} ${segment.name}: `);
    }
    const md = readFileSync(join(out, 'findings.md'), 'utf8');
    for (const title of [
      'The index effect per database',
      'Concurrency scaling per database',
      'Where the time goes',
      'Session start per database',
      'Transfers per engine',
    ])
      expect(md).toContain(`### ${title}`);
    expect(md).toContain(`mcp-db-bench run --db sqlite:${join(out, 'study.db')} --scale 0.002`);
    // whole-table groupings: one call timed alone first, the steps sized from it (here: the design's)
    expect(second.stderr).toMatch(
      /analytical-table: a call takes [\d.]+ s alone on average, the longest [\d.]+ s; steps of 1 agent\(s\) [\d.]+ s, /,
    );
    expect(second.stderr).not.toContain('not measured: taken from the design');
    const table = read('analytical-table');
    const sized = table.config.durationAt!;
    expect(Object.keys(sized)).toEqual(['1', '10', '50']);
    for (const ms of Object.values(sized)) expect(ms).toBeGreaterThanOrEqual(200);
    expect(table.config.command).toContain(`--duration-at 1=${sized[1]}ms,10=${sized[10]}ms,50=${sized[50]}ms`);
    expect(existsSync(join(out, 'analytical-table.sizing.json'))).toBe(true);
    // session start too, sized in the first run: ours takes milliseconds, so steps of about the design's
    expect(first.stderr).toMatch(
      /session-init: a call takes [\d.]+ s alone on average, the longest [\d.]+ s; steps of /,
    );
    expect(Object.keys(read('session-init').config.durationAt!)).toEqual(['1', '10', '50']);
    expect(existsSync(join(out, 'session-init.sizing.json'))).toBe(true);
    // session start on the server just started, and again in the last pass
    const init = read('session-init').sessionInit[0]!;
    expect([init.iteration, init.later?.iteration]).toEqual([1, 2]);
    if (platform() === 'linux') {
      expect(read('point-read').steps.every((s) => s.interference !== undefined)).toBe(true);
      expect(read('point-read').machine?.interference.measured).toBe(true);
    }
    expect(second.stderr).toMatch(
      new RegExp(`^study: ${names.length - 2} segment\\(s\\) to measure, about \\d+ min \\(steps`, 'm'),
    );
    expect(second.stderr).toMatch(/ratios decided against the ±10% band \(a claim, or no difference\): \d+ of \d+/);
  }, 420_000);

  it('checks a rerun against an earlier study with --against, and refuses a folder without one', async () => {
    const again = await runCli([...ARGS, '--against', out], { cwd: dir, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    const md = readFileSync(join(out, 'findings.md'), 'utf8');
    expect(md).toContain('### Against the earlier run');
    // the same files against themselves: the same verdict on every ratio, never a disagreement
    const [, total] = md.match(/(\d+) ratios of both runs, judged by their verdicts/) ?? [];
    expect(Number(total)).toBeGreaterThan(0);
    const verdicts = md
      .split('### Against the earlier run')[1]!
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| finding') && !/^\|[\s:-]+\|/.test(l))
      .map((l) => l.split('|').at(-2)!.trim());
    expect(verdicts).toHaveLength(Number(total));
    expect(verdicts.filter((v) => /flipped|newly claimed|claim lost/.test(v))).toEqual([]);
    // what chance alone explains, whether some ratio was claimed or (a busy machine) none
    expect(md).toMatch(
      /By chance alone, were each claim's measured effect|Neither run claims a ratio, so none can be lost/,
    );
    expect(md).toMatch(/either run may hold a false claim with a chance of at most \d+%/);
    const none = await runCli([...ARGS, '--against', join(dir, 'nowhere')], { cwd: dir, timeoutMs: 60_000 });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no study result file there (session-init.json');
  }, 240_000);

  it('fails when it measured nothing: the error once, no findings page, exit 1', async () => {
    const nowhere = join(dir, 'unreachable');
    const failed = await runCli(['study', '--db', 'postgres://bench:bench@127.0.0.1:1/none', '--out', nowhere], {
      cwd: dir,
      timeoutMs: 120_000,
    });
    expect(failed.code).toBe(1);
    expect(failed.stderr.match(/Cannot reach the PostgreSQL server/g)).toHaveLength(1);
    expect(failed.stderr).toContain(
      `study 1/${names.length} session-init: measured nothing (mcp-db-bench run exited 1`,
    );
    expect(failed.stderr).toContain('mcp-db-bench: the study measured nothing, so it wrote no findings');
    expect(existsSync(join(nowhere, 'findings.html'))).toBe(false);
    expect(existsSync(join(nowhere, 'findings.md'))).toBe(false);
  }, 120_000);

  it('--segments: measures the segments named, names the others as not measured, exits 0', async () => {
    const some = join(dir, 'some');
    const args = ARGS.map((a) => (a === out ? some : a));
    // the session segment is sized: its sessions timed alone first (about 30 s), then measured
    const run = await runCli([...args, '--segments', 'session-init'], { cwd: dir, timeoutMs: 200_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(some, 'session-init.json'))).toBe(true);
    for (const name of names.slice(1)) expect(existsSync(join(some, `${name}.json`))).toBe(false);
    expect(run.stderr).toContain(`study 2/${names.length} ${names[1]}: not measured (--segments)`);
    expect(run.stderr).toContain(
      `findings of 1/${names.length} segments (not measured: ${names.slice(1).join(', ')}, by --segments)`,
    );
    // the session segment at every agent count of the design, a newcomer beside a fleet
    const file = resultFile.parse(JSON.parse(readFileSync(join(some, 'session-init.json'), 'utf8')));
    expect(new Set(file.steps.map((s) => s.agents))).toEqual(new Set(STUDY.segments[0].agents));
    expect(readFileSync(join(some, 'findings.md'), 'utf8')).toContain('sessions/s, 1 / 10 / 50 agent(s)');
    // a rerun --against it on the same database takes its sizing: no quick run, the same steps
    const again = join(dir, 'some-again');
    const sameDb = ['--db', `sqlite:${join(some, 'study.db')}`];
    const rerun = await runCli(
      [...args.map((a) => (a === some ? again : a)), ...sameDb, '--segments', 'session-init', '--against', some],
      { cwd: dir, timeoutMs: 200_000 },
    );
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(
      `session-init: sized as the earlier study was (${join(some, 'session-init.sizing.json')}, --against)`,
    );
    expect(rerun.stderr).not.toContain('timing its calls alone');
    const rerunFile = resultFile.parse(JSON.parse(readFileSync(join(again, 'session-init.json'), 'utf8')));
    expect(rerunFile.config.durationAt).toEqual(file.config.durationAt);
    const unknown = await runCli([...args, '--segments', 'session-init,nosuch'], { cwd: dir, timeoutMs: 60_000 });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`unknown segment nosuch; segments: ${names.join(', ')}`);
  }, 240_000);

  it('refuses to mix a study of other settings into the same --out', async () => {
    const other = await runCli([...ARGS.filter((a) => a !== '0.002' && a !== '--scale'), '--scale', '0.003'], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is a study of other settings (scale 0.002)');
  }, 60_000);

  it.skipIf(!haveChromium)(
    'draws the findings page at 1000 px with no label over another or cut off',
    async () => {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        const context = await browser.newContext({ offline: true, viewport: { width: 1000, height: 900 } });
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('pageerror', (e) => problems.push(e.message));
        page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
        await page.goto(pathToFileURL(join(out, 'findings.html')).href, { waitUntil: 'load' });
        const layout = (await page.evaluate(`(() => {
        const labels = [...document.querySelectorAll('h1, h2, nav a, p, li, th, td, pre, .u-title, .u-legend .u-label, div.chart canvas')]
          .filter((el) => el.getClientRects().length > 0)
          .map((el) => ({ el, r: el.getBoundingClientRect() }));
        const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '') + ' "' + (el.textContent || '').trim().slice(0, 30) + '"';
        const overlaps = [];
        for (let i = 0; i < labels.length; i++)
          for (let j = i + 1; j < labels.length; j++) {
            const a = labels[i], b = labels[j];
            if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
            const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
            const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
            if (x > 1 && y > 1) overlaps.push(name(a.el) + ' over ' + name(b.el));
          }
        const outside = labels.filter(({ r }) => r.left < 0 || r.right > window.innerWidth + 0.5).map(({ el }) => name(el));
        const clipped = [...document.querySelectorAll('.numbers, pre')].filter((el) => el.scrollWidth > el.clientWidth + 1).map(name);
        return { overlaps, outside, clipped, charts: document.querySelectorAll('div.chart canvas').length, pageWidth: document.documentElement.scrollWidth };
      })()`)) as { overlaps: string[]; outside: string[]; clipped: string[]; charts: number; pageWidth: number };
        const png = join(dir, 'findings-1000.png');
        writeFileSync(png, await page.screenshot({ fullPage: true }));
        expect(problems).toEqual([]);
        expect(layout.charts).toBe(5);
        expect(layout.overlaps).toEqual([]);
        expect(layout.outside).toEqual([]);
        expect(layout.clipped).toEqual([]);
        expect(layout.pageWidth).toBeLessThanOrEqual(1000);
        expect(statSync(png).size).toBeGreaterThan(10_000);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );

  it('--budget: adds iterations to segments with undecided ratios while time is left, merged into their files', async () => {
    const copy = join(dir, 'budget');
    cpSync(out, copy, { recursive: true });
    const args = ARGS.map((a) => (a === out ? copy : a));
    const budget = await runCli([...args, '--db', `sqlite:${join(out, 'study.db')}`, '--budget', '100s'], {
      cwd: dir,
      timeoutMs: 300_000,
    });
    expect(budget.code, budget.stderr).toBe(0);
    expect(budget.stderr).toMatch(
      /study --budget: [\w-]+: \d+ ratio\(s\) not decided(?: \(\d+ withheld\))?, 2 more iterations/,
    );
    const files = names.map((name) => resultFile.parse(JSON.parse(readFileSync(join(copy, `${name}.json`), 'utf8'))));
    // every file is marked a sequential design, so the findings judge each look as the loop did
    expect(files.every((r) => r.config.extended?.batch === 2)).toBe(true);
    const extended = files.filter((r) => r.config.extended!.iterations > r.config.iterations);
    expect(extended.length).toBeGreaterThan(0);
    for (const r of extended) {
      const last = r.config.extended!.iterations;
      expect(r.config.iterations).toBe(2);
      expect(Math.max(...r.steps.map((s) => s.iteration))).toBe(last);
      // the pairing covers the added iterations: each paired, or left out with why (a busy machine withholds them)
      const covered = (c: NonNullable<typeof r.comparisons>[number]) =>
        c.iterations.includes(last) || (c.withheld ?? []).some((w) => w.iteration === last && w.reason.length > 0);
      expect(r.comparisons!.every(covered)).toBe(true);
    }
    expect(budget.stderr).toMatch(/ratios decided against the ±10% band .*: \d+ of \d+/);
  }, 300_000);
});
