import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultFile } from '@mcp-db-bench/contract';
import { WORKLOADS } from '@mcp-db-bench/loadgen';
import { findingsHtml, findingsMarkdown, readResultFile, writeResultFile } from '@mcp-db-bench/report';
import { Command, Option } from 'commander';
import {
  STUDY,
  type StudySegment,
  type StudySettings,
  segmentArgs,
  segmentFile,
  segmentState,
} from '../benchmark/study.js';
import { EXIT, redactAll, UsageError } from '../errors.js';
import { dbListOption, examples, scaleOption, seedOption } from '../options.js';
import { parseDuration, parsePositiveInt } from '../parse/durations.js';
import { logLine } from '../render/progress.js';
import { trackChild } from '../serving/interrupt.js';

interface StudyFlags {
  db?: string[];
  scale: number;
  seed: number;
  out: string;
  duration: number;
  warmup: number;
  iterations: number;
  against?: string;
}

const design = STUDY.segments.map((s) => `${s.workloads.join(',')} at ${s.agents.join(',')} agent(s)`).join('; ');

export function studyCommand(): Command {
  return new Command('study')
    .description(
      `run the study over the databases given: ${STUDY.indexes.join(' and ')} indexes alternated, ${design}; ` +
        'a result file per segment and a findings page (HTML and Markdown) in --out; a rerun resumes',
    )
    .addOption(dbListOption('databases to study, repeat for several (default: a SQLite file in --out)'))
    .addOption(scaleOption('dataset scale'))
    .addOption(seedOption())
    .addOption(
      new Option('-o, --out <dir>', 'where the result files and findings go; rerun with it to resume').default('study'),
    )
    .addOption(
      new Option('--duration <time>', 'measured time per step')
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
        '--against <dir>',
        "an earlier study's --out: the findings say which ratios of this run fall inside its intervals",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench study --db sqlite:shop.db --db postgres://bench:bench@127.0.0.1:5432/bench_study --out study',
        'mcp-db-bench study --scale 0.01 --duration 1s --out study-small',
        'mcp-db-bench study --scale 0.01 --duration 1s --out study-again --against study-small',
      ),
    )
    .action(async (flags: StudyFlags) => {
      mkdirSync(flags.out, { recursive: true });
      const settings: StudySettings = {
        dbs: flags.db?.length ? flags.db : [`sqlite:${join(flags.out, 'study.db')}`],
        scale: flags.scale,
        seed: flags.seed,
        out: flags.out,
        durationMs: flags.duration,
        warmupMs: flags.warmup,
        iterations: flags.iterations,
      };
      const earlier = flags.against === undefined ? undefined : earlierStudy(flags.against);
      const states = STUDY.segments.map((segment) => ({ segment, ...segmentState(segment, settings) }));
      const other = states.find((s) => s.state === 'other');
      if (other?.state === 'other')
        throw new UsageError(
          `${segmentFile(other.segment, flags.out)} is a study of other settings (${other.why}): give another --out, ` +
            'or the same settings to resume it',
        );
      const done: ResultFile[] = [];
      let interrupted: NodeJS.Signals | undefined;
      for (const [i, s] of states.entries()) {
        const name = `study ${i + 1}/${states.length} ${s.segment.name}`;
        if (s.state === 'done') {
          logLine(`${name}: finished before, kept (${segmentFile(s.segment, flags.out)})`);
          done.push(s.result);
          continue;
        }
        logLine(`${name}: ${stepCount(s.segment, settings)} steps, ${minutes(s.segment, settings)} of them`);
        interrupted = await runSegment(s.segment, settings);
        const result = finished(s.segment, settings);
        if (result) done.push(result);
        if (interrupted) break;
      }
      writeFileSync(join(flags.out, 'findings.html'), findingsHtml(done, earlier));
      writeFileSync(join(flags.out, 'findings.md'), findingsMarkdown(done, earlier));
      logLine(
        `${interrupted ? 'study interrupted: rerun the same command to finish it; ' : ''}findings of ` +
          `${done.length}/${states.length} segments: ${join(flags.out, 'findings.html')}, ${join(flags.out, 'findings.md')}`,
      );
      if (interrupted) process.exitCode = interrupted === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
    });
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

/** Workloads without a database (the handshake) run under the first index set only. */
const stepCount = (segment: StudySegment, s: StudySettings) =>
  s.dbs.length *
  segment.agents.length *
  s.iterations *
  segment.workloads.reduce((n, name) => n + (WORKLOADS[name]!.database ? STUDY.indexes.length : 1), 0);

const minutes = (segment: StudySegment, s: StudySettings) =>
  `${Math.max(1, Math.round((stepCount(segment, s) * (s.durationMs + s.warmupMs)) / 60_000))} min`;

/**
 * One segment as `mcp-db-bench run` in a process of its own, its progress on our stderr. The
 * child is detached so that a Ctrl-C reaches it once, from us: it then writes its finished steps
 * marked partial, which a rerun measures again.
 */
function runSegment(segment: StudySegment, s: StudySettings): Promise<NodeJS.Signals | undefined> {
  const bin = process.argv[1]!;
  const child = trackChild(
    spawn(process.execPath, [...process.execArgv, bin, ...segmentArgs(segment, s)], {
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
      if (signal) return resolve(signal);
      // 0, or 1 for a failure the file records (a write verification, answers that disagree)
      if (code === 0 || code === 1) return resolve(undefined);
      reject(new Error(`${segment.name}: mcp-db-bench run exited ${code}; its messages are above`));
    });
  });
}

/** The segment's file if complete, with the command that measured it written in (URLs redacted). */
function finished(segment: StudySegment, s: StudySettings): ResultFile | undefined {
  const file = segmentFile(segment, s.out);
  let result: ResultFile;
  try {
    result = readResultFile(file);
  } catch {
    return undefined;
  }
  if (result.partial) return undefined;
  const command = redactAll(['mcp-db-bench', ...segmentArgs(segment, s)].map(quote).join(' '));
  const kept = { ...result, config: { ...result.config, command } };
  writeResultFile(file, kept);
  return kept;
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
