import { int, median, ms } from '../format.js';
import type { Group } from './groups.js';
import { roundLabel } from './groups.js';
import type { Section } from './table.js';

/**
 * `run --trace-split`: each step's calls split by our server's own spans, per target, workload
 * and agents (iterations: the median of each figure).
 */
export function traceSplitSection(groups: readonly Group[]): Section {
  const rows = groups
    .filter((g) => g.steps.some((s) => s.traceSplit))
    .map((g) => {
      const splits = g.steps.flatMap((s) => (s.traceSplit ? [s.traceSplit] : []));
      const at = (pick: (s: (typeof splits)[number]) => number) => median(splits.map(pick));
      return [
        roundLabel(g),
        g.workload,
        int(g.agents),
        int(splits.reduce((n, s) => n + s.calls, 0)),
        ms(at((s) => s.p50.clientUs)),
        ms(at((s) => s.p50.serverUs)),
        ms(at((s) => s.p50.databaseUs)),
        ms(at((s) => s.p50.waitUs)),
        ms(at((s) => s.p50.protocolUs)),
        ms(at((s) => s.p50.networkUs)),
        ms(at((s) => s.p99.clientUs)),
        ms(at((s) => s.p99.serverUs)),
      ];
    });
  return {
    title: "Where each call's time went, from the server's own spans (run --trace-split; p50, ms)",
    note:
      'server = its request span (POST /mcp), split in the proportions of the calls around its p50: database (the ' +
      'statement spans), wait (for a pooled connection) and protocol (the rest: parse, validate, serialize); ' +
      'network + client = client p50 − server p50. Measured with OpenTelemetry on, which costs the server CPU of its own',
    head: [
      'target',
      'workload',
      'agents',
      'calls traced',
      'client p50',
      'server p50',
      'database',
      'wait',
      'protocol',
      'network + client',
      'client p99',
      'server p99',
    ],
    rows,
  };
}
