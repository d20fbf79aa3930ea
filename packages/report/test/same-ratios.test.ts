import { fileURLToPath } from 'node:url';
import { type ResultFile, stepRate } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { comparisons, comparisonsOf } from '../src/comparisons.js';
import { readResultFile } from '../src/files.js';
import { studyFindings } from '../src/findings/findings.js';
import { htmlReport } from '../src/render/html/index.js';
import { reportModel } from '../src/render/html/model.js';
import type { Cell } from '../src/render/html/types.js';
import { overview } from '../src/render/overview.js';
import { reportSections } from '../src/render/report.js';

/**
 * The terminal report, the HTML report and the study's findings page, rendered from the same
 * result files, give every ratio the same: each is the run's one pairing, written by one function.
 * transfers.json (fixtures/results/README.md) is a run of transfers, whose unit is a committed
 * transaction, not a call, with one step that overran: the two cases where rules used to differ.
 */
const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/results/${name}`, import.meta.url));
const TRANSFERS = readResultFile(fixture('transfers.json'));
const TWO_DATABASES = readResultFile(fixture('two-databases.json'));

/** The same file as a run writes it today: its comparisons paired when it ran. */
const asWrittenNow = (file: ResultFile): ResultFile => ({
  ...file,
  comparisons: comparisons(file.steps, {
    targets: file.config.targets.map((t) => t.label),
    indexes: file.config.indexes,
  }),
});

const text = (c: Cell | undefined) => (c === undefined ? undefined : typeof c === 'string' ? c : c.text);
const at = (head: readonly string[], name: string) => {
  const i = head.indexOf(name);
  expect(i, `a column named ${name} in ${head.join(', ')}`).toBeGreaterThanOrEqual(0);
  return i;
};

/** Every index speed-up each renderer shows, by `target|workload|agents`. */
function indexSpeedups(file: ResultFile) {
  const terminal = new Map<string, string>();
  const section = reportSections(file).find((s) => s.title.startsWith('Index speed-up'))!;
  for (const r of section.rows) terminal.set(`${r[0]}|${r[1]}|${r[2]}`, r[at(section.head, 'speed-up')]!);
  const html = new Map<string, string>();
  for (const b of reportModel([{ label: 'run', result: file }]).sections.find((s) => s.id === 'indexes')!.blocks)
    for (const { cells } of b.table.rows)
      html.set(`${text(cells[0])}|${text(cells[1])}|${text(cells[2])}`, text(cells[at(b.table.head, 'speed-up')])!);
  const findings = new Map<string, string>();
  const effect = studyFindings([file]).find((f) => f.id === 'index-effect')!;
  for (const r of effect.rows)
    findings.set(`${text(r[0])}|${text(r[1])}|${text(r[2])}`, text(r[at(effect.head, 'speed-up')])!);
  return { terminal, html, findings };
}

/** Each target against the first, under the last index set, as each renderer shows it, by `target|workload|agents`. */
function targetRatios(file: ResultFile) {
  const [first, ...others] = file.config.targets.map((t) => t.label);
  const terminal = new Map<string, string>();
  const section = reportSections(file).find((s) => / compared \(/.test(s.title))!;
  for (const r of section.rows)
    for (const t of others)
      terminal.set(`${t}|${r[0]}|${r[1]}`, r[at(section.head, t)]!.split(', ').slice(2).join(', '));
  const html = new Map<string, string>();
  for (const b of reportModel([{ label: 'run', result: file }]).sections.find((s) => s.id === 'servers')!.blocks)
    for (const { cells } of b.table.rows)
      for (const t of others)
        html.set(`${t}|${text(cells[0])}|${text(cells[1])}`, text(cells[at(b.table.head, `${t} against ${first}`)])!);
  const findings = new Map<string, string>();
  const engines = studyFindings([file]).find((f) => f.id === 'engines')!;
  const engine = (label: string) => file.config.targets.find((t) => t.label === label)!.engine;
  for (const r of engines.rows)
    for (const t of others)
      findings.set(`${t}|${text(r[0])}|${text(r[1])}`, text(r[at(engines.head, `${engine(t)} / ${engine(first!)}`)])!);
  return { terminal, html, findings };
}

const same = (shown: { terminal: Map<string, string>; html: Map<string, string>; findings: Map<string, string> }) => {
  expect(shown.terminal.size).toBeGreaterThan(0);
  expect(Object.fromEntries(shown.html)).toEqual(Object.fromEntries(shown.terminal));
  expect(Object.fromEntries(shown.findings)).toEqual(Object.fromEntries(shown.terminal));
};

describe('one pairing, every renderer', () => {
  for (const [name, file] of [
    ['transfers.json as saved', TRANSFERS],
    ['transfers.json as a run writes it now', asWrittenNow(TRANSFERS)],
    ['two-databases.json', TWO_DATABASES],
  ] as const) {
    // the whole HTML model of a saved run takes seconds on a busy machine
    it(`${name}: the terminal, HTML and findings give every index speed-up the same`, { timeout: 60_000 }, () =>
      same(indexSpeedups(file)),
    );
    it(`${name}: the terminal, HTML and findings give every engine ratio the same`, { timeout: 60_000 }, () =>
      same(targetRatios(file)),
    );
  }

  it('pairs transfers by committed transactions per second, and leaves out the step that overran', () => {
    const ratios = comparisonsOf(TRANSFERS).filter((c) => c.workload === 'transfer');
    expect(ratios.length).toBeGreaterThan(0);
    expect(ratios.every((c) => c.unit === 'commits')).toBe(true);
    // mariadb's optimized transfer step at 4 agents, iteration 3, ran 700 ms past its 1 s end
    const overran = ratios.find(
      (c) => c.kind === 'indexes' && c.other.target === 'mariadb 2025 session' && c.agents === 4,
    )!;
    expect(overran.excluded).toEqual({ empty: 0, overran: 1, unpaired: 0 });
    expect(overran.iterations).toEqual([1, 2, 4, 5]);
    // each ratio is the two steps' committed/s, not their calls/s
    const steps = (indexes: string, iteration: number) =>
      TRANSFERS.steps.find(
        (s) =>
          s.target === 'mariadb 2025 session' &&
          s.workload === 'transfer' &&
          s.agents === 4 &&
          s.indexes === indexes &&
          s.iteration === iteration,
      )!;
    expect(overran.rate![0]).toBeCloseTo(stepRate(steps('optimized', 1)) / stepRate(steps('baseline', 1)), 12);
    expect(steps('optimized', 1).commits!.committed).toBeLessThan(steps('optimized', 1).calls);
  });

  it('shows the same ratios on the HTML page and in the short summary', { timeout: 60_000 }, () => {
    const page = htmlReport([{ label: 'run', result: TRANSFERS }]);
    const { terminal } = indexSpeedups(TRANSFERS);
    for (const ratio of terminal.values()) expect(page).toContain(ratio);
    // the summary's speed-ups are the most agents' of the same comparisons
    const summary = overview(TRANSFERS, 400);
    for (const [key, ratio] of terminal)
      if (key.endsWith('|4')) expect(summary).toContain(`${key.split('|')[1]} ${ratio}`);
  });
});
