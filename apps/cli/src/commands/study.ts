import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { CLAIM_RULES, type ResultFile } from '@mcp-db-bench/contract';
import { WORKLOADS } from '@mcp-db-bench/loadgen';
import {
  findingsHtml,
  findingsMarkdown,
  judge,
  machineLines,
  readResultFile,
  withheldLines,
  writeResultFile,
  writeWhole,
} from '@mcp-db-bench/report';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  isSized,
  otherData,
  type SegmentRun,
  STUDY,
  type StudySegment,
  type StudySettings,
  segmentArgs,
  segmentFile,
  segmentState,
  sizedBy,
} from '../benchmark/study.js';
import {
  estimateText,
  guessedOverheads,
  learnedOverheads,
  type Overheads,
  segmentEstimate,
  sum,
  total,
} from '../benchmark/study-estimate.js';
import { extendResult, sequential, settlement, settlementText } from '../benchmark/study-settle.js';
import {
  type CallTimes,
  callTimesOf,
  fallbackCalls,
  type Sizing,
  sizingArgs,
  stepDurations,
} from '../benchmark/study-sizing.js';
import { EXIT, redactAll, UsageError } from '../errors.js';
import { bandOption, checkOutputDir, dbListOption, examples, scaleOption, seedOption } from '../options.js';
import { parseDuration, parseLongDuration, parsePositiveInt } from '../parse/durations.js';
import { collect } from '../parse/values.js';
import { logLine } from '../render/progress.js';
import { trackChild } from '../serving/interrupt.js';
import { parsePeer } from '../serving/peers/index.js';

interface StudyFlags {
  db?: string[];
  peer?: string[];
  scale: number;
  seed: number;
  out: string;
  duration: number;
  warmup: number;
  iterations: number;
  budget?: number;
  against?: string;
  /** --band: the claims rules' practical band, as a factor */
  band?: number;
  /** --segments: the design's segments to measure, by name (all when absent) */
  segments?: StudySegment[];
}

const design = STUDY.segments.map((s) => `${s.workloads.join(',')} at ${s.agents.join(',')} agent(s)`).join('; ');

export function studyCommand(): Command {
  return new Command('study')
    .description(
      `run the study over the databases given: ${STUDY.indexes.join(' and ')} indexes alternated, ${design}; ` +
        'a result file per segment and a findings page (HTML and Markdown) in --out; a rerun resumes',
    )
    .addOption(dbListOption('databases to study, repeat for several (default: a SQLite file in --out)'))
    .addOption(
      new Option(
        '--peer <name[=command]>',
        "another MCP server started beside ours on each database in every segment (run's --peer); repeatable",
      ).argParser(collect(checkedPeer)),
    )
    .addOption(scaleOption('dataset scale'))
    .addOption(seedOption())
    .addOption(
      new Option('-o, --out <dir>', 'where the result files and findings go; rerun with it to resume').default('study'),
    )
    .addOption(
      new Option(
        '--duration <time>',
        'measured time per step (session start and whole-table groupings: sized to their calls)',
      )
        .default(STUDY.durationMs, `${STUDY.durationMs / 1000}s`)
        .argParser(parseDuration),
    )
    .addOption(
      new Option('--warmup <time>', 'unmeasured warm-up before each step')
        .default(STUDY.warmupMs, `${STUDY.warmupMs}ms`)
        .argParser(parseDuration),
    )
    .addOption(
      new Option('--iterations <n>', 'iterations of every step (5: the fewest with an interval of 90% or more)')
        .default(STUDY.iterations)
        .argParser(parsePositiveInt('iterations')),
    )
    .addOption(
      new Option(
        '--budget <time>',
        `the whole study's time, e.g. 90m or 3h: once every segment ran, segments with undecided ratios get ` +
          `${STUDY.batch} more iterations at a time until every ratio is decided or the time is spent`,
      ).argParser(parseLongDuration),
    )
    .addOption(bandOption())
    .addOption(
      new Option(
        '--segments <list>',
        `the segments to measure, comma-separated (${STUDY.segments.map((s) => s.name).join(', ')}); the ` +
          'findings name the others as not measured (default: all)',
      ).argParser(parseSegments),
    )
    .addOption(
      new Option(
        '--against <dir>',
        "an earlier study's --out: the findings set each ratio's verdict beside that study's (reproduced, " +
          "flipped, newly claimed, claim lost, ...), and a sized segment's steps are sized as that study's were",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench study --db sqlite:shop.db --db postgres://bench:bench@127.0.0.1:5432/bench_study --out study',
        'mcp-db-bench study --scale 0.01 --duration 1s --out study-small',
        'mcp-db-bench study --db sqlite:shop.db --peer faucet=./faucet --peer dbhub --out servers',
        'mcp-db-bench study --scale 0.01 --duration 1s --out study-again --against study-small',
        'mcp-db-bench study --scale 1 --budget 3h --out study-long',
        'mcp-db-bench study --scale 1 --segments analytical-table --out study-tables',
      ),
    )
    .action(study);
}

interface Study {
  settings: StudySettings;
  /** when this invocation began, for --budget */
  began: number;
  cpus: number;
  overheads: Overheads;
  /** the sized segments' step durations, by name */
  sizes: Map<string, Sizing>;
  /** the finished segments, in the design's order */
  done: Map<string, ResultFile>;
  interrupted?: NodeJS.Signals;
  /** a segment that measured nothing, and why */
  failed?: string;
  /** the segments this invocation measures (--segments), in the design's order */
  chosen: readonly StudySegment[];
  /** --against: the earlier study's folder, whose sizing a sized segment takes */
  against?: string;
}

async function study(flags: StudyFlags): Promise<void> {
  checkOutputDir('--out', flags.out);
  const settings: StudySettings = {
    dbs: flags.db?.length ? flags.db : [`sqlite:${join(flags.out, 'study.db')}`],
    peers: flags.peer ?? [],
    scale: flags.scale,
    seed: flags.seed,
    out: flags.out,
    durationMs: flags.duration,
    warmupMs: flags.warmup,
    iterations: flags.iterations,
    ...(flags.band ? { band: flags.band } : {}),
  };
  const earlier = flags.against === undefined ? undefined : earlierStudy(flags.against);
  const states = STUDY.segments.map((segment) => ({ segment, ...segmentState(segment, settings) }));
  const other = states.find((s) => s.state === 'other');
  if (other?.state === 'other')
    throw new UsageError(
      `${segmentFile(other.segment, flags.out)} is a study of other settings (${other.why}): give another --out, ` +
        'or the same settings to resume it',
    );
  const run: Study = {
    settings,
    began: Date.now(),
    cpus: availableParallelism(),
    overheads: guessedOverheads(settings.scale),
    sizes: new Map(),
    done: new Map(),
    chosen: flags.segments ?? STUDY.segments,
    ...(flags.against === undefined ? {} : { against: flags.against }),
  };
  for (const s of states) if (s.state === 'done') run.done.set(s.segment.name, s.result);
  for (const s of states) if (s.state === 'done' && isSized(s.segment)) recallSizing(run, s.segment, s.result);
  const todo = states.filter((s) => s.state !== 'done' && run.chosen.includes(s.segment)).map((s) => s.segment);
  if (todo.length) logLine(`study: ${todo.length} segment(s) to measure, ${estimateText(remaining(run, todo))}`);
  for (const [i, segment] of STUDY.segments.entries()) {
    const name = `study ${i + 1}/${STUDY.segments.length} ${segment.name}`;
    if (!run.chosen.includes(segment)) {
      logLine(`${name}: not measured (--segments)${run.done.has(segment.name) ? ', its earlier file kept' : ''}`);
      continue;
    }
    if (!todo.includes(segment)) {
      logLine(`${name}: finished before, kept (${segmentFile(segment, flags.out)})`);
      continue;
    }
    await measureSegment(run, segment, name);
    if (run.interrupted || run.failed) break;
  }
  if (flags.budget !== undefined && !run.interrupted && !run.failed) await extend(run, flags.budget);
  report(run, earlier);
}

/** --segments: names of the design's segments, each once, kept in the design's order. */
export function parseSegments(value: string): StudySegment[] {
  const names = value.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !STUDY.segments.some((s) => s.name === n));
  if (unknown.length || !names.length)
    throw new InvalidArgumentError(
      `unknown segment ${unknown.join(', ')}; segments: ${STUDY.segments.map((s) => s.name).join(', ')}`,
    );
  return STUDY.segments.filter((s) => names.includes(s.name));
}

/** A --peer value checked as run reads it (a mistake is a usage error now), kept as given for the segments. */
function checkedPeer(value: string): string {
  parsePeer(value);
  return value;
}

/** The finished segments of an earlier study, read before this one measures anything. */
function earlierStudy(dir: string): ResultFile[] {
  const files = STUDY.segments.map((segment) => segmentFile(segment, dir)).filter((file) => existsSync(file));
  if (!files.length)
    throw new UsageError(
      `--against ${dir}: no study result file there (${STUDY.segments.map((s) => `${s.name}.json`).join(', ')})`,
    );
  return files.flatMap((file) => {
    const result = readResultFile(file);
    return result.partial ? [] : [result];
  });
}

/** The time the segments still to measure take, with what the study has learned so far. */
const remaining = (run: Study, segments: readonly StudySegment[]) =>
  sum(
    segments.map((segment) =>
      segmentEstimate(segment, run.settings, {
        sizing: run.sizes.get(segment.name) ?? guessedSizing(run, segment),
        overheads: run.overheads,
        cpus: run.cpus,
      }),
    ),
  );

/** A sized segment before its quick measurement: the calls its workload is known for, by scale. */
function guessedSizing(run: Study, segment: StudySegment): Sizing | undefined {
  const guess = sizedBy(segment);
  return guess && sizingFor(run, segment, fallbackCalls(guess, run.settings.scale));
}

const sizingFor = (run: Study, segment: StudySegment, calls: CallTimes): Sizing => ({
  ...calls,
  durationAt: stepDurations(calls, segment.agents, { cpus: run.cpus, baseMs: run.settings.durationMs }),
});

/** A sized segment measured before: its steps as its file says, its call's time as its sizing file does. */
function recallSizing(run: Study, segment: StudySegment, file: ResultFile): void {
  const durationAt = file.config.durationAt;
  if (!durationAt) return;
  let calls: CallTimes = { meanMs: 0, longestMs: 0 };
  try {
    calls = callTimesOf(readResultFile(sizingFile(run, segment))) ?? calls;
  } catch {
    // no sizing file: the estimate counts no calls past their steps' end
  }
  run.sizes.set(segment.name, { ...calls, durationAt });
}

const sizingFile = (run: Study, segment: StudySegment) => join(run.settings.out, `${segment.name}.sizing.json`);

/** One segment: sized first where the design says so, then its run; what it measured, or why nothing. */
async function measureSegment(run: Study, segment: StudySegment, name: string): Promise<void> {
  const s = run.settings;
  const more: SegmentRun = {};
  if (isSized(segment)) {
    const sizing = await size(run, segment, name);
    if (!sizing) return;
    more.durationAt = sizing.durationAt;
  }
  const estimate = segmentEstimate(segment, s, {
    sizing: run.sizes.get(segment.name),
    overheads: run.overheads,
    cpus: run.cpus,
  });
  logLine(`${name}: ${stepCount(segment, s)} steps, ${estimateText(estimate)}`);
  const outcome = await runChild(segmentArgs(segment, s, more));
  if (outcome.signal) run.interrupted = outcome.signal;
  const result = finished(segment, s, more);
  if (result) {
    run.done.set(segment.name, result);
    run.overheads = learnedOverheads(result, guessedOverheads(s.scale));
    for (const line of segmentNotes(result, s.band)) logLine(`${name}: ${line}`);
    return;
  }
  if (!outcome.signal) {
    run.failed = `${segment.name} measured nothing`;
    logLine(
      `${name}: measured nothing (mcp-db-bench run exited ${outcome.code}, its message above); the segments after ` +
        'it use the same databases: the study stops here',
    );
  }
}

/**
 * A sized segment's steps: its calls measured alone first (a quick run, its file kept in --out
 * as `<segment>.sizing.json`, so a rerun sizes alike), each agent count's duration from them.
 * With --against, the earlier study's sizing file when it has one: both runs' steps alike, so
 * that a ratio's two verdicts differ by the measurement only.
 */
async function size(run: Study, segment: StudySegment, name: string): Promise<Sizing | undefined> {
  const file = sizingFile(run, segment);
  if (!existsSync(file) && run.against !== undefined)
    takeEarlierSizing(run, join(run.against, basename(file)), file, name);
  if (!existsSync(file)) {
    logLine(`${name}: timing its calls alone on each database, to size its steps`);
    const outcome = await runChild(sizingArgs(segment, run.settings, file));
    if (outcome.signal) {
      run.interrupted = outcome.signal;
      return undefined;
    }
    // exit 1 with a file: some step failed its checks, the times still size; without one the
    // databases are out of reach, and the segment's own run would only say so again
    if (outcome.code !== 0 && !(outcome.code === 1 && existsSync(file))) {
      run.failed = `${segment.name} measured nothing`;
      logLine(
        `${name}: measured nothing (mcp-db-bench run exited ${outcome.code}, its message above); the segments ` +
          'after it use the same databases: the study stops here',
      );
      return undefined;
    }
  }
  let calls: CallTimes | undefined;
  try {
    calls = callTimesOf(readResultFile(file));
  } catch {
    calls = undefined;
  }
  const sizing = sizingFor(run, segment, calls ?? fallbackCalls(sizedBy(segment)!, run.settings.scale));
  run.sizes.set(segment.name, sizing);
  const steps = Object.entries(sizing.durationAt).map(([n, ms]) => `${n} agent(s) ${ms / 1000} s`);
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  logLine(
    `${name}: a call takes ${s(sizing.meanMs)} alone on average, the longest ${s(sizing.longestMs)}` +
      `${calls === undefined ? ' (not measured: taken from the design)' : ''}; steps of ${steps.join(', ')}`,
  );
  return sizing;
}

/** Workloads without a database (the handshake) run under the first index set only. */
const stepCount = (segment: StudySegment, s: StudySettings) =>
  s.dbs.length *
  (1 + s.peers.length) *
  segment.agents.length *
  s.iterations *
  segment.workloads.reduce((n, name) => n + (WORKLOADS[name]!.database ? STUDY.indexes.length : 1), 0);

/** --against: the earlier study's sizing file written into --out, when it sized the same data. */
function takeEarlierSizing(run: Study, earlier: string, file: string, name: string): void {
  if (!existsSync(earlier)) return;
  let differs: string[];
  try {
    differs = otherData(readResultFile(earlier).config, run.settings);
  } catch {
    return; // cut short while written: this study sizes its own
  }
  if (differs.length) {
    logLine(`${name}: not sized as the earlier study was: it measured other data (${differs.join(', ')})`);
    return;
  }
  writeWhole(file, readFileSync(earlier, 'utf8'));
  logLine(`${name}: sized as the earlier study was (${earlier}, --against)`);
}

/**
 * One `mcp-db-bench run` in a process of its own, its progress on our stderr. The child is
 * detached so that a Ctrl-C reaches it once, from us: it then writes its finished steps marked
 * partial, which a rerun measures again.
 */
function runChild(args: readonly string[]): Promise<{ code: number; signal?: NodeJS.Signals }> {
  const bin = process.argv[1]!;
  const child = trackChild(
    spawn(process.execPath, [...process.execArgv, bin, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: true,
    }),
  );
  let signal: NodeJS.Signals | undefined;
  const forward = (sig: NodeJS.Signals) => () => {
    signal = sig;
    child.kill(sig);
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, forward(sig)] as const);
  for (const [sig, handler] of handlers) process.on(sig, handler);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      for (const [sig, handler] of handlers) process.off(sig, handler);
      resolve({ code: code ?? 1, ...(signal ? { signal } : {}) });
    });
  });
}

/** The segment's file if complete, with the command that measured it written in (URLs redacted). */
function finished(segment: StudySegment, s: StudySettings, more: SegmentRun): ResultFile | undefined {
  const file = segmentFile(segment, s.out);
  let result: ResultFile;
  try {
    result = readResultFile(file);
  } catch {
    return undefined;
  }
  if (result.partial) return undefined;
  const command = redactAll(['mcp-db-bench', ...segmentArgs(segment, s, more)].map(quote).join(' '));
  const kept = { ...result, config: { ...result.config, command } };
  writeResultFile(file, kept);
  return kept;
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);

/**
 * What a segment's run warned of and what its machine did, for the console (the segment's own
 * report goes nowhere): its warnings, whether other processes made the machine busy, and how many
 * of its ratios were withheld for it.
 */
function segmentNotes(file: ResultFile, band: number | undefined): string[] {
  const j = judge([file], { band });
  return [
    ...file.warnings.map((w) => `warning: ${w}`),
    ...machineLines([file], j),
    ...withheldLines(j, { atMost: 0, where: 'the findings page lists them' }),
  ];
}

/**
 * --budget: while time is left, the segment with the most undecided ratios gets `STUDY.batch`
 * more iterations (a run of its own, merged into its file), until every ratio is decided. Every
 * file is marked a sequential design first, so the findings judge each look as this loop did.
 */
async function extend(run: Study, budgetMs: number): Promise<void> {
  const s = run.settings;
  for (const segment of run.chosen) {
    const file = run.done.get(segment.name);
    if (!file || file.config.extended) continue;
    const marked = sequential(file, STUDY.batch);
    writeResultFile(segmentFile(segment, s.out), marked);
    run.done.set(segment.name, marked);
  }
  for (;;) {
    const files = run.chosen.flatMap((segment) => {
      const file = run.done.get(segment.name);
      return file ? [{ name: segment.name, file, segment }] : [];
    });
    const open = settlement(files, { band: s.band })
      .map((r, i) => ({ ...r, segment: files[i]!.segment, file: files[i]!.file }))
      .filter((r) => r.unsettled > 0)
      .sort((a, b) => b.unsettled - a.unsettled);
    if (!open.length) {
      logLine('study --budget: every ratio is decided');
      return;
    }
    const left = budgetMs - (Date.now() - run.began);
    const next = open.find(
      (r) =>
        total(
          segmentEstimate(r.segment, s, {
            sizing: run.sizes.get(r.segment.name),
            overheads: run.overheads,
            iterations: STUDY.batch,
            cpus: run.cpus,
          }),
        ) <= left,
    );
    if (!next) {
      logLine(`study --budget: ${Math.max(0, Math.round(left / 60_000))} min left, too little for more iterations`);
      return;
    }
    const extra = join(s.out, `${next.segment.name}.more.json`);
    const sizing = run.sizes.get(next.segment.name);
    logLine(
      `study --budget: ${next.segment.name}: ${next.unsettled} ratio(s) not decided` +
        `${next.withheld ? ` (${next.withheld} withheld)` : ''}, ${STUDY.batch} more iterations`,
    );
    const outcome = await runChild(
      segmentArgs(next.segment, s, { iterations: STUDY.batch, out: extra, durationAt: sizing?.durationAt }),
    );
    if (outcome.signal) run.interrupted = outcome.signal;
    const more = existsSync(extra) ? readResultFile(extra) : undefined;
    rmSync(extra, { force: true });
    if (!more || more.partial || outcome.signal) return;
    const merged = extendResult(next.file, more, STUDY.batch);
    writeResultFile(segmentFile(next.segment, s.out), merged);
    run.done.set(next.segment.name, merged);
  }
}

/** The findings of what was measured, and how the study ended: its exit status says whether it measured everything. */
function report(run: Study, earlier: ResultFile[] | undefined): void {
  const { out } = run.settings;
  const files = STUDY.segments.flatMap((s) => {
    const f = run.done.get(s.name);
    return f ? [{ name: s.name, file: f }] : [];
  });
  const missing = run.chosen.filter((s) => !run.done.has(s.name)).map((s) => s.name);
  const notChosen = STUDY.segments.filter((s) => !run.chosen.includes(s) && !run.done.has(s.name)).map((s) => s.name);
  if (!files.length) {
    if (run.interrupted) {
      logLine('study interrupted before any segment finished: rerun the same command to measure it');
      process.exitCode = run.interrupted === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
      return;
    }
    throw new Error('the study measured nothing, so it wrote no findings');
  }
  const results = files.map((f) => f.file);
  const band = run.settings.band;
  writeWhole(join(out, 'findings.html'), findingsHtml(results, earlier, { band }));
  writeWhole(join(out, 'findings.md'), findingsMarkdown(results, earlier, { band }));
  logLine(settlementText(settlement(files, { band }), band ?? CLAIM_RULES.band));
  const j = judge(results, { band });
  const notes = [
    ...machineLines(results, j),
    ...withheldLines(j, { atMost: 0, where: 'the findings page lists them' }),
  ];
  for (const line of notes) logLine(`study: ${line}`);
  logLine(
    `${run.interrupted ? 'study interrupted: rerun the same command to finish it; ' : ''}findings of ` +
      `${files.length}/${STUDY.segments.length} segments${missing.length ? ` (missing: ${missing.join(', ')})` : ''}` +
      `${notChosen.length ? ` (not measured: ${notChosen.join(', ')}, by --segments)` : ''}: ` +
      `${join(out, 'findings.html')}, ${join(out, 'findings.md')}`,
  );
  if (run.interrupted) process.exitCode = run.interrupted === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
  else if (missing.length) process.exitCode = EXIT.failure;
}
