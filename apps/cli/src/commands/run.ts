import { writeFileSync } from 'node:fs';
import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import type { WriteVerification } from '@mcp-db-bench/loadgen';
import {
  checkThresholds,
  htmlReport,
  junitXml,
  prometheusText,
  renderRuns,
  writeResultFile,
} from '@mcp-db-bench/report';
import { Command } from 'commander';
import { type RunConfig, type RunFlags, runConfig } from '../benchmark/config.js';
import { runOptions } from '../benchmark/flags.js';
import { keptResultPath } from '../benchmark/kept.js';
import { measure } from '../benchmark/measure.js';
import { measureReplay } from '../benchmark/replay.js';
import { examples } from '../options.js';
import { endProgress, logLine, stdoutColumns } from '../render/progress.js';
import { pinSelf } from '../serving/cpus.js';
import { type PeerTarget, trackTargets } from '../serving/targets.js';
import { testDelayWarning } from '../warnings.js';

const EXAMPLES = examples(
  'mcp-db-bench run --agents 1,8 --duration 5s',
  'mcp-db-bench run --db sqlite:shop.db --db postgres://bench:bench@127.0.0.1:5432/bench --indexes optimized ' +
    '--out result.json',
  'mcp-db-bench run --db sqlite:shop.db --peer faucet=./faucet --peer dbhub --workloads point-read,filtered ' +
    '--agents 1,10',
  'mcp-db-bench run --target https://mcp.example.com/mcp --token $TOKEN --workloads point-read,filtered',
  'mcp-db-bench run --target http://127.0.0.1:7400/mcp --profile ours --target http://127.0.0.1:7500/mcp ' +
    '--profile dbhub:sqlite --workloads point-read,filtered',
  'mcp-db-bench run --target-cmd "npx @modelcontextprotocol/server-postgres $PG_URL" --profile ' +
    'sql-tool:postgres --sql-tool query --sql-arg sql',
  'mcp-db-bench run --stages 5s:1,2s:16,5s:16,2s:1 --workloads point-read',
  'mcp-db-bench run --workloads handshake,point-read,analytical-entity --workload-agents point-read=1,10,50 ' +
    '--agents 1',
  'mcp-db-bench run --db sqlite:shop.db --server-cpus 0 --client-cpus 1 --workloads point-read,filtered',
  'mcp-db-bench run --db postgres://bench:bench@127.0.0.1:5432/bench --trace-split --agents 1,16',
  'mcp-db-bench run --rate-stages 10s:100,30s:1000,10s:0 --agents 32 --workloads point-read',
  'mcp-db-bench run --replay session.jsonl --agents 1,10,50 --think 0.5x --db sqlite:shop.db',
  'mcp-db-bench run --replay session.jsonl --agents 1,10 --target http://127.0.0.1:7400/mcp',
  'AT=$(date -u -d +2min +%FT%TZ); mcp-db-bench run --target http://db-mcp:8080/mcp --shard 0/4 --start-at $AT ' +
    '--agents 64 --rate 8000 --out shard-0.json',
);

/** The run's phases: the flags checked into a configuration, the targets, the measuring, the outputs. */
export function runCommand(): Command {
  const command = new Command('run');
  const peers = trackTargets(command);
  command.description(
    'seed (if needed), serve and benchmark: the default command; with no options, all on embedded SQLite',
  );
  for (const option of runOptions()) command.addOption(option);
  return command
    .allowExcessArguments()
    .addHelpText('after', EXAMPLES)
    .action(async (flags: RunFlags, command: Command) => {
      const config = runConfig(flags, command);
      const targets = peers.read({ sqlTool: config.sqlTool, sqlArg: config.sqlArg, service: config.service });
      if (config.clientCpus) pinSelf(config.clientCpus);
      conclude(await measureRun(config, targets), config);
    });
}

/**
 * The steps measured, the workloads' or a trace's. An interrupt (Ctrl-C) still writes what was
 * asked for, from the steps finished, and prints their report.
 */
async function measureRun(config: RunConfig, targets: readonly PeerTarget[]): Promise<ResultFile> {
  const keep = (partial: ResultFile) => {
    endProgress();
    deliver(partial, config);
  };
  const result = config.replay
    ? await measureReplay({ ...config, replay: config.replay }, targets, keep)
    : await measure(config, targets, keep);
  endProgress();
  return result;
}

/** The finished run's warnings, failures and outputs: it exits 1 when a check failed or a threshold did not hold. */
function conclude(result: ResultFile, config: RunConfig): void {
  const delayed = testDelayWarning(config);
  if (delayed) result.warnings.push(delayed);
  if (failures(result).length) process.exitCode = 1;
  if (!deliver(result, config)) process.exitCode = 1;
}

/**
 * Every file the run was asked for (--out, --html, --junit, --prometheus), then the report on
 * stdout: the default summary, or every table with --full. Without --out the result file is kept
 * all the same (benchmark/kept.ts) and the summary says where. False when a threshold failed.
 */
function deliver(result: ResultFile, config: RunConfig): boolean {
  const kept = config.out ?? (config.format === 'json' ? undefined : keptResultPath(result.startedAt));
  if (kept) writeResultFile(kept, result);
  if (kept && !config.out) logLine(`result file: ${kept} (--out FILE keeps it where you choose)`);
  if (config.html) writeFileSync(config.html, htmlReport([{ label: 'run', result }]));
  const verdicts = checkThresholds(result, config.threshold);
  for (const verdict of verdicts) logLine(verdict.line);
  if (config.junit) writeFileSync(config.junit, junitXml(result, verdicts));
  if (config.prometheus) writeFileSync(config.prometheus, prometheusText(result));
  const written = [config.out, config.html, config.junit, config.prometheus].filter(Boolean);
  if (result.partial && written.length)
    logLine(`${result.steps.length} finished step(s) written to ${written.join(', ')}, marked partial`);
  process.stdout.write(
    config.format === 'json'
      ? `${JSON.stringify(result, null, 2)}\n`
      : renderRuns([{ label: 'run', result, file: kept }], config.format, stdoutColumns(), config.full),
  );
  return verdicts.every((v) => v.ok);
}

/** Failed write verifications and disagreeing answers, each said on stderr: the run exits 1. */
function failures(result: ResultFile): string[] {
  const failed = result.steps.filter(
    (s): s is StepResult & { verification: WriteVerification } => s.verification?.ok === false,
  );
  const disagreed = (result.agreement ?? []).filter((a) => a.mismatches > 0);
  const lines = [
    ...failed.map(
      (s) => `write verification failed: ${s.target} ${s.workload} × ${s.agents} (${s.verification.marker})`,
    ),
    ...disagreed.map(
      (a) => `answers disagree: ${a.target} vs ${a.reference} on ${a.workload} (${a.mismatches} of ${a.calls} calls)`,
    ),
  ];
  for (const line of lines) logLine(line);
  return lines;
}
