import type { ResultFile } from '@mcp-db-bench/contract';
import { int, ms } from '../format.js';
import { merge, summary } from '../histogram.js';
import type { Section } from './table.js';

/** What each target's tools/list and session start cost the agent's context, from the untimed check pass. */
export function tokenSection(result: ResultFile): Section {
  const tokens = result.tokens ?? [];
  return {
    title: 'Token cost: what each server sends the agent’s model',
    note: tokens[0]
      ? `tokenizer ${tokens[0].tokenizer}; tools/list as hosts pass it (name, description, input schema); session start = initialize’s instructions + tools/list + discovery answers`
      : undefined,
    head: ['target', 'tools/list bytes', 'tools/list tokens', 'session start bytes', 'session start tokens'],
    rows: tokens.map((t) => [
      t.target,
      int(t.toolsList.bytes),
      int(t.toolsList.tokens),
      int(t.sessionStart.bytes),
      int(t.sessionStart.tokens),
    ]),
  };
}

/** One workload's answers on one target: bytes and tokens, p50 and max over the sampled calls, and its p50 latency. */
export interface CallTokenRow {
  workload: string;
  target: string;
  bytes: { p50: number; max: number };
  tokens: { p50: number; max: number };
  /** p50 ms at the fewest agents run; null when the run measured no such step */
  latencyMs: number | null;
}

/** Each workload's answers beside its latency, target after target: the rows of every report's per-call token table. */
export function callTokenRows(result: ResultFile): CallTokenRow[] {
  const workloads = [...new Set((result.tokens ?? []).flatMap((t) => t.calls.map((c) => c.workload)))];
  return workloads.flatMap((workload) =>
    (result.tokens ?? []).flatMap((t) => {
      const c = t.calls.find((x) => x.workload === workload);
      return c
        ? [
            {
              workload,
              target: t.target,
              bytes: c.bytes,
              tokens: c.tokens,
              latencyMs: latencyMs(result, t.target, workload),
            },
          ]
        : [];
    }),
  );
}

export const CALL_TOKEN_HEAD = [
  'workload',
  'target',
  'bytes p50 / max',
  'tokens p50 / max',
  'latency p50 ms (fewest agents)',
];

/** Each workload's answers in bytes and tokens beside its latency (the fewest agents run), side by side. */
export function callTokenSection(result: ResultFile): Section {
  return {
    title: 'Token cost per call: each answer, p50 / max over the sampled calls, beside latency',
    head: CALL_TOKEN_HEAD,
    rows: callTokenRows(result).map((r) => [
      r.workload,
      r.target,
      `${int(r.bytes.p50)} / ${int(r.bytes.max)}`,
      `${int(r.tokens.p50)} / ${int(r.tokens.max)}`,
      r.latencyMs === null ? '–' : ms(r.latencyMs * 1000),
    ]),
  };
}

function latencyMs(result: ResultFile, target: string, workload: string): number | null {
  const steps = result.steps.filter((s) => s.target === target && s.workload === workload);
  const fewest = Math.min(...steps.map((s) => s.agents));
  const mine = steps.filter((s) => s.agents === fewest);
  if (!mine.length) return null;
  return summary(merge(mine.map((s) => s.all.histogram))).p50 / 1000;
}

/** One workload's answers on a target compared with the reference's: the rows of every report's agreement table. */
export function agreementRows(result: ResultFile): {
  workload: string;
  reference: string;
  target: string;
  calls: number;
  mismatches: number;
  verdict: 'agree' | 'DISAGREE';
  firstDifference: string;
}[] {
  return (result.agreement ?? []).map((a) => ({
    workload: a.workload,
    reference: a.reference,
    target: a.target,
    calls: a.calls,
    mismatches: a.mismatches,
    verdict: a.mismatches ? 'DISAGREE' : 'agree',
    firstDifference: a.differences[0]?.slice(0, 160) ?? '',
  }));
}

export const AGREEMENT_HEAD = ['workload', 'reference', 'target', 'calls', 'mismatches', 'verdict', 'first difference'];

/** The same sampled calls on every target, compared with the first: a fast wrong answer shows here. */
export function agreementSection(result: ResultFile): Section {
  return {
    title: 'Answer agreement: the same seeded calls on every target, row counts and keys compared with the first',
    head: AGREEMENT_HEAD,
    rows: agreementRows(result).map((a) => [
      a.workload,
      a.reference,
      a.target,
      int(a.calls),
      int(a.mismatches),
      a.verdict,
      a.firstDifference,
    ]),
  };
}

/** Header lines for answers that disagree: a visible warning above the tables. */
export function disagreementLines(result: ResultFile): string[] {
  return (result.agreement ?? [])
    .filter((a) => a.mismatches > 0)
    .map(
      (a) =>
        `warning: ${a.target} answered ${int(a.mismatches)} of ${int(a.calls)} ${a.workload} calls differently from ${a.reference}`,
    );
}
