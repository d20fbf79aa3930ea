/**
 * `run --trace-split`: each step's calls joined to the spans our server exported, by time: a
 * call belongs to the step whose measured window its request span began in (steps run one after
 * another, and warm-ups, the decomposition and the check pass fall outside every window).
 */
import { merge, summary } from '@mcp-db-bench/agent';
import type { StepResult, TraceSplit } from '@mcp-db-bench/contract';
import type { ServedCall } from '../serving/span-receiver.js';

/** The step's split, or undefined when none of its calls' spans came back (not our server, or none exported). */
export function traceSplitOf(step: StepResult, calls: readonly ServedCall[]): TraceSplit | undefined {
  if (step.startedAt === undefined) return undefined;
  const from = step.startedAt;
  const to = from + step.durationMs;
  const inWindow = calls.filter((c) => c.startMs >= from && c.startMs < to);
  if (inWindow.length === 0) return undefined;
  const us = (ns: number) => ns / 1000;
  const server = inWindow.map((c) => us(c.serverNs));
  // statements run one after another within a call; clipped, so a part never exceeds the request
  const database = inWindow.map((c) => us(Math.min(c.databaseNs, c.serverNs)));
  const wait = inWindow.map((c) => us(Math.min(c.waitNs, c.serverNs - Math.min(c.databaseNs, c.serverNs))));
  const protocol = server.map((s, i) => Math.max(0, s - database[i]! - wait[i]!));
  const client = summary(merge([step.all.histogram]));
  const at = (p: number) => ({
    serverUs: round(percentile(server, p)),
    databaseUs: round(percentile(database, p)),
    waitUs: round(percentile(wait, p)),
    protocolUs: round(percentile(protocol, p)),
  });
  const p50 = { clientUs: client.p50, ...at(50) };
  return {
    calls: inWindow.length,
    p50: { ...p50, networkUs: round(p50.clientUs - p50.serverUs) },
    p99: { clientUs: client.p99, ...at(99) },
  };
}

/** Nearest-rank percentile, as the client's histograms answer. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const round = (us: number) => Math.round(us * 10) / 10;
