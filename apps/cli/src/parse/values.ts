import { WORKLOADS } from '@mcp-db-bench/loadgen';
import { InvalidArgumentError } from 'commander';
import type { ProtocolChoice } from '../labels.js';
import { parsePositiveInt } from './durations.js';

/** Flag values the commands share, each parsed one way with one message. */

export const parseCount = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`must be a whole number, 0 or more: ${value}`);
  return n;
};

export const parseProtocol = (name: string): ProtocolChoice => {
  if (name !== 'legacy' && name !== 'modern' && name !== 'auto')
    throw new InvalidArgumentError(`protocol must be legacy, modern or auto, not ${name}`);
  return name;
};

/** The two eras a server speaks, where `auto` (negotiate) would measure one of them twice. */
export const parseEra = (value: string): 'legacy' | 'modern' => {
  if (value !== 'legacy' && value !== 'modern')
    throw new InvalidArgumentError(`protocol must be legacy or modern, not ${value}`);
  return value;
};

export const parseWorkload = (name: string): string => {
  if (!(name in WORKLOADS))
    throw new InvalidArgumentError(`unknown workload ${name}; workloads: ${Object.keys(WORKLOADS).join(', ')}`);
  return name;
};

/**
 * --workload-agents, repeatable: `WORKLOAD=LIST` gives one workload agent counts of its own
 * (`point-read=1,10,50`), so a study's sweep and its single-agent steps are one run.
 */
export function parseWorkloadAgents(
  value: string,
  previous: Record<string, number[]> | undefined,
): Record<string, number[]> {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError(`expected WORKLOAD=AGENTS, e.g. point-read=1,10,50; got ${value}`);
  const name = value.slice(0, at).trim();
  if (previous && name in previous) throw new InvalidArgumentError(`${name} is given agent counts twice`);
  const counts = value
    .slice(at + 1)
    .split(',')
    .map((s) => parsePositiveInt(`${name}'s agents`)(s.trim()));
  return { ...previous, [parseWorkload(name)]: counts };
}

/** A command that holds one workload (soak): a name, not a list. */
export const parseOneWorkload = (name: string): string => {
  if (name.includes(',')) throw new InvalidArgumentError('soak runs one workload at a time');
  return parseWorkload(name);
};

/** An http(s) URL for --target, or a usage error naming what was given. */
export function parseTarget(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('--target must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('--target must be an http(s) URL');
  return value;
}

/** A TCP port to listen on; 0 picks a free one. */
export const parsePort = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`port must be a whole number from 0 to 65535, not ${value}`);
  return n;
};

/** A percentage, 0 or more; `10` and `10%` alike. */
export const parsePct = (name: string) => (value: string) => {
  const n = Number(value.replace(/%$/, ''));
  if (!Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`${name} must be a percentage, 0 or more (e.g. 10 for 10%)`);
  return n;
};

/** Repeats: every value given, in order. */
export const collect =
  <T>(parse: (value: string) => T) =>
  (value: string, previous: T[] | undefined): T[] => [...(previous ?? []), parse(value)];

/** --think: `1x`, `0.5x`, `2`, `0`: a factor, 0 or more. */
export function parseThink(value: string): number {
  const m = /^(\d+(?:\.\d+)?|\.\d+)x?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected a factor such as 1x, 0.5x or 0');
  return Number(m[1]);
}
