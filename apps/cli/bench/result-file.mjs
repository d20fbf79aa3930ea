// @ts-check
/**
 * What a bench script measured as an mcp-db-bench result file (--out FILE), so `mcp-db-bench
 * report` and `compare` open it like a run's. A cell is one target's load (a client or a server)
 * of one workload × agents in one round; its latencies are exact: each whole microsecond a call
 * took and how many calls took it, as the load clients print them (`latencyUs`).
 */
import { readFileSync } from 'node:fs';
import { RESULT_FILE_VERSION, resultFile } from '@mcp-db-bench/contract';
import { encode, environment, newHistogram, record, writeResultFile } from '@mcp-db-bench/report';

/** @typedef {import('@mcp-db-bench/contract').ResultFile} ResultFile */
/** @typedef {import('@mcp-db-bench/contract').StepResult} StepResult */

/**
 * @typedef {object} Cell
 * @property {string} target how the report names who was measured
 * @property {string} workload
 * @property {number} agents
 * @property {number} round 1-based: the report's iteration
 * @property {number} durationSec the measured window
 * @property {[number, number][]} latencyUs [microseconds, calls] of the successful calls
 * @property {Record<string, number>} errors failed calls by kind
 * @property {number} [clientCpuUsPerCall]
 * @property {number} [serverCpuUsPerCall] the server's CPU per call, when the script read it
 */

const VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/**
 * One step of a result file from a cell.
 * @param {Cell} cell
 * @returns {StepResult}
 */
export function stepOf(cell) {
  const h = newHistogram();
  let calls = 0;
  for (const [us, n] of cell.latencyUs) {
    for (let i = 0; i < n; i++) record(h, us);
    calls += n;
  }
  const stats = { count: calls, histogram: encode(h) };
  const durationMs = cell.durationSec * 1000;
  const cpu = cell.clientCpuUsPerCall ?? 0;
  const server = cell.serverCpuUsPerCall;
  return {
    target: cell.target,
    indexes: null,
    workload: cell.workload,
    agents: cell.agents,
    iteration: cell.round,
    mode: 'closed',
    rate: null,
    durationMs,
    calls,
    errors: cell.errors,
    operations: { [cell.workload]: stats },
    all: stats,
    intervals: [],
    client: {
      cpuPerCallUs: cpu,
      cpuUtilization: durationMs > 0 ? (cpu * calls) / (durationMs * 1000) : 0,
      eventLoopDelayP99Ms: 0,
      eventLoopDelayMaxMs: 0,
    },
    ...(server !== undefined && Number.isFinite(server) ? { server: { cpuPerCallUs: server } } : {}),
    openLoop: null,
  };
}

/**
 * The result file of a bench script's cells, checked against the contract's schema.
 * @param {{ command: string, startedAt: string, cells: Cell[], targets: { label: string, url?: string | null }[],
 *   client: string, warmupSec: number, warnings?: string[] }} run
 * @returns {ResultFile}
 */
export function benchResult(run) {
  const steps = run.cells.map(stepOf);
  const unique = (/** @type {(s: StepResult) => any} */ f) => [...new Set(steps.map(f))];
  return resultFile.parse({
    version: RESULT_FILE_VERSION,
    tool: { name: 'mcp-db-bench', version: VERSION },
    startedAt: run.startedAt,
    finishedAt: new Date().toISOString(),
    environment: environment(),
    config: {
      targets: run.targets.map((t) => ({ label: t.label, engine: null, url: t.url ?? null })),
      workloads: unique((s) => s.workload),
      agents: unique((s) => s.agents),
      durationMs: Math.max(0, ...steps.map((s) => s.durationMs)),
      warmupMs: run.warmupSec * 1000,
      iterations: Math.max(1, ...steps.map((s) => s.iteration)),
      protocol: 'legacy',
      client: run.client,
      scale: null,
      seed: 1,
      indexes: [],
      rate: null,
      command: run.command,
    },
    sessionInit: [],
    steps,
    decomposition: [],
    warnings: run.warnings ?? [],
    skipped: [],
  });
}

/**
 * Writes the file and says so on stderr.
 * @param {string} file
 * @param {Parameters<typeof benchResult>[0]} run
 */
export function writeBenchResult(file, run) {
  const result = benchResult(run);
  writeResultFile(file, result);
  process.stderr.write(`${result.steps.length} step(s) written to ${file} (mcp-db-bench report ${file})\n`);
}

/**
 * Sorted latencies as [whole microseconds, calls]: exact, and short (calls cluster).
 * @param {readonly number[]} sortedUs
 * @returns {[number, number][]}
 */
export function runLengths(sortedUs) {
  /** @type {[number, number][]} */
  const out = [];
  for (const raw of sortedUs) {
    const us = Math.round(raw);
    const last = out.at(-1);
    if (last && last[0] === us) last[1]++;
    else out.push([us, 1]);
  }
  return out;
}
