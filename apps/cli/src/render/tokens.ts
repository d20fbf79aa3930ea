import { merge, summary } from '@mcp-db-bench/agent';
import type { ResultFile } from '@mcp-db-bench/contract';
import type { Section } from './table.js';

const count = (n: number) => n.toLocaleString('en-US');

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
      count(t.toolsList.bytes),
      count(t.toolsList.tokens),
      count(t.sessionStart.bytes),
      count(t.sessionStart.tokens),
    ]),
  };
}

/** Each workload's answers in bytes and tokens beside its latency (the fewest agents run), side by side. */
export function callTokenSection(result: ResultFile): Section {
  const rows: string[][] = [];
  const workloads = [...new Set((result.tokens ?? []).flatMap((t) => t.calls.map((c) => c.workload)))];
  for (const workload of workloads) {
    for (const t of result.tokens ?? []) {
      const c = t.calls.find((x) => x.workload === workload);
      if (!c) continue;
      rows.push([
        workload,
        t.target,
        `${count(c.bytes.p50)} / ${count(c.bytes.max)}`,
        `${count(c.tokens.p50)} / ${count(c.tokens.max)}`,
        latency(result, t.target, workload),
      ]);
    }
  }
  return {
    title: 'Token cost per call: each answer, p50 / max over the sampled calls, beside latency',
    head: ['workload', 'target', 'bytes p50 / max', 'tokens p50 / max', 'latency p50 ms (fewest agents)'],
    rows,
  };
}

function latency(result: ResultFile, target: string, workload: string): string {
  const steps = result.steps.filter((s) => s.target === target && s.workload === workload);
  const fewest = Math.min(...steps.map((s) => s.agents));
  const mine = steps.filter((s) => s.agents === fewest);
  if (!mine.length) return '–';
  const p50 = summary(merge(mine.map((s) => s.all.histogram))).p50;
  return (p50 / 1000).toFixed(p50 < 10_000 ? 2 : 1);
}

/** The same sampled calls on every target, compared with the first: a fast wrong answer shows here. */
export function agreementSection(result: ResultFile): Section {
  return {
    title: 'Answer agreement: the same seeded calls on every target, row counts and keys compared with the first',
    head: ['workload', 'reference', 'target', 'calls', 'mismatches', 'verdict', 'first difference'],
    rows: (result.agreement ?? []).map((a) => [
      a.workload,
      a.reference,
      a.target,
      String(a.calls),
      String(a.mismatches),
      a.mismatches ? 'DISAGREE' : 'agree',
      a.differences[0]?.slice(0, 160) ?? '',
    ]),
  };
}

/** Header lines for answers that disagree: a visible warning above the tables. */
export function disagreementLines(result: ResultFile): string[] {
  return (result.agreement ?? [])
    .filter((a) => a.mismatches > 0)
    .map(
      (a) =>
        `warning: ${a.target} answered ${a.mismatches} of ${a.calls} ${a.workload} calls differently from ${a.reference}`,
    );
}
