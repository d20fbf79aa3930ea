import { InvalidArgumentError } from 'commander';

/**
 * `10s`, `500ms` or `2m` → milliseconds. A bare number is refused: whether `1500` meant
 * milliseconds or seconds (25 minutes a step) is the user's to say.
 */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected a duration such as 10s, 500ms or 2m');
  if (!m[2]) throw new InvalidArgumentError(`a duration needs its unit, ms, s or m (${m[1]}ms or ${m[1]}s)`);
  const n = Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000);
  if (n <= 0 || n > 3_600_000) throw new InvalidArgumentError('a duration must be above 0 and at most 1 hour');
  return n;
}

/** A longer time, such as a whole study's (`90m`, `3h`): seconds, minutes or hours, up to a week. */
export function parseLongDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected a time such as 90m, 3h or 600s');
  const n = Number(m[1]) * (m[2] === 'h' ? 3_600_000 : m[2] === 'm' ? 60_000 : 1000);
  if (n <= 0 || n > 7 * 24 * 3_600_000) throw new InvalidArgumentError('a time must be above 0 and at most a week');
  return n;
}

/**
 * `--duration-at 10=20s,50=90s`: a step's measured time at these agent counts instead of
 * --duration (calls of seconds need longer steps the more agents share the machine).
 */
export function parseDurationAt(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of value.split(',')) {
    const at = item.indexOf('=');
    if (at < 1) throw new InvalidArgumentError(`expected AGENTS=TIME, e.g. 10=20s,50=90s; got ${item}`);
    const agents = parsePositiveInt('agents')(item.slice(0, at).trim());
    if (String(agents) in out) throw new InvalidArgumentError(`${agents} agents are given a duration twice`);
    out[agents] = parseDuration(item.slice(at + 1));
  }
  return out;
}

export function parseList<T>(parse: (item: string) => T) {
  return (value: string): T[] => value.split(',').map((s) => parse(s.trim()));
}

/** A whole number from 1 to `max` (10,000 by default: counts of agents, workers, iterations). */
export function parsePositiveInt(name: string, max = 10_000) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new InvalidArgumentError(`${name} must be a whole number from 1 to ${max}`);
    return n;
  };
}
