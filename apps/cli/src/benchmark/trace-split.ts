/**
 * `run --trace-split`: each step's calls joined to the spans our server exported, by time: a
 * call belongs to the step whose measured window its request span began in (steps run one after
 * another, and warm-ups, the decomposition and the check pass fall outside every window).
 */
import type { StepResult, TraceSplit } from '@mcp-db-bench/contract';
import { merge, summary } from '@mcp-db-bench/report';
import type { ServedCall } from '../serving/span-receiver.js';

/** One call's parts, microseconds: they add up to its request span. */
interface Parts {
  server: number;
  database: number;
  wait: number;
  protocol: number;
}

/** The step's split, or undefined when none of its calls' spans came back (not our server, or none exported). */
export function traceSplitOf(step: StepResult, calls: readonly ServedCall[]): TraceSplit | undefined {
  if (step.startedAt === undefined) return undefined;
  const from = step.startedAt;
  const to = from + step.durationMs;
  const parts = calls.filter((c) => c.startMs >= from && c.startMs < to).map(partsOf);
  if (parts.length === 0) return undefined;
  parts.sort((a, b) => a.server - b.server);
  const client = summary(merge([step.all.histogram]));
  const p50 = splitAt(parts, 50, 10);
  return {
    calls: parts.length,
    p50: { clientUs: client.p50, ...p50, networkUs: round(client.p50 - p50.serverUs) },
    p99: { clientUs: client.p99, ...splitAt(parts, 99, 0.5) },
  };
}

/** Statements and waits run one after another within a call: clipped, so the parts never exceed the request. */
function partsOf(c: ServedCall): Parts {
  const server = c.serverNs / 1000;
  const database = Math.min(c.databaseNs / 1000, server);
  const wait = Math.min(c.waitNs / 1000, server - database);
  return { server, database, wait, protocol: server - database - wait };
}

/**
 * The server's `p`th percentile (nearest rank), split in the proportions the calls around it
 * (within `band` percentiles either side, by server time) spent in each part: the parts add up
 * to it, which the parts' own percentiles would not.
 */
function splitAt(sorted: readonly Parts[], p: number, band: number) {
  const n = sorted.length;
  const rank = Math.max(0, Math.ceil((p / 100) * n) - 1);
  const server = sorted[rank]!.server;
  const lo = Math.min(rank, Math.floor(((p - band) / 100) * n));
  const hi = Math.max(rank + 1, Math.ceil(((p + band) / 100) * n));
  const near = sorted.slice(Math.max(0, lo), Math.min(n, hi));
  const total = near.reduce((sum, c) => sum + c.server, 0);
  const share = (pick: (c: Parts) => number) => (total > 0 ? near.reduce((sum, c) => sum + pick(c), 0) / total : 0);
  const databaseUs = round(server * share((c) => c.database));
  const waitUs = round(server * share((c) => c.wait));
  const serverUs = round(server);
  return { serverUs, databaseUs, waitUs, protocolUs: round(Math.max(0, serverUs - databaseUs - waitUs)) };
}

const round = (us: number) => Math.round(us * 10) / 10;
