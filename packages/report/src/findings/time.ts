import { medianInterval, type ResultFile } from '@mcp-db-bench/contract';
import { ms, pct } from '../format.js';
import { summarize } from '../histogram.js';
import { MEANING } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import { OURS, servedBy } from '../served.js';
import { barChart, commandsOf, type Finding } from './common.js';

/**
 * Where the time goes: the decomposition's p50s (the statement through the driver alone, the
 * echo tool: MCP and HTTP alone, the whole call) as shares that add to 100%. The database's share
 * is raw / whole, the protocol's echo / whole, the server's own work the rest; when raw and echo
 * together exceed the whole call (they overlap in it), both are scaled to it and the rest is 0.
 */
export function shares(raw: number, echo: number, full: number): { database: number; protocol: number; rest: number } {
  const whole = Math.max(full, raw + echo);
  if (whole <= 0) return { database: 0, protocol: 0, rest: 0 };
  const database = raw / whole;
  const protocol = echo / whole;
  return { database, protocol, rest: 1 - database - protocol };
}

export function timeShares(files: readonly ResultFile[]): Finding | undefined {
  const seen = new Set<string>();
  const parts: {
    target: string;
    operation: string;
    raw: number;
    echo: number;
    full: number;
    rounds: { raw: number; echo: number; full: number }[];
    file: ResultFile;
  }[] = [];
  for (const f of files) {
    // a peer's (run --peer) is in the servers' finding, beside ours on its database
    const peers = new Set(servedBy(f).flatMap((s) => (s.server === OURS ? [] : [s.label])));
    for (const d of f.decomposition) {
      const key = `${d.target} ${d.operation}`;
      if (seen.has(key) || peers.has(d.target)) continue;
      seen.add(key);
      const p50 = (h: string) => summarize(h).p50 / 1000;
      parts.push({
        target: d.target,
        operation: d.operation,
        raw: p50(d.raw.histogram),
        echo: p50(d.echo.histogram),
        full: p50(d.full.histogram),
        rounds: d.rounds ?? [],
        file: f,
      });
    }
  }
  if (!parts.length) return undefined;
  // with rounds: the median of the rounds' shares, inside their range by construction; without
  // (an older file): the share of the whole run's p50s
  const headline = (p: (typeof parts)[number], k: 'database' | 'protocol' | 'rest') => {
    const i = medianInterval(p.rounds.map((r) => shares(r.raw, r.echo, r.full)[k]));
    return i && i.n > 1 ? i : undefined;
  };
  const share = (p: (typeof parts)[number], k: 'database' | 'protocol' | 'rest', whole: number): Cell => {
    const i = headline(p, k);
    return i
      ? { text: `${pct(i.median)} [${pct(i.low)}–${pct(i.high)}]`, value: i.median }
      : { text: pct(whole), value: whole };
  };
  const rows = parts.map((p) => {
    const s = shares(p.raw, p.echo, p.full);
    return [
      p.target,
      p.operation,
      { text: ms(p.full * 1000), value: p.full },
      { text: ms(p.raw * 1000), value: p.raw },
      { text: ms(p.echo * 1000), value: p.echo },
      share(p, 'database', s.database),
      share(p, 'protocol', s.protocol),
      share(p, 'rest', s.rest),
    ] satisfies Cell[];
  });
  const categories = parts.map((p) => `${p.target.split(' ')[0]} ${p.operation}`);
  const of = (k: 'database' | 'protocol' | 'rest') =>
    parts.map((p) => (headline(p, k)?.median ?? shares(p.raw, p.echo, p.full)[k]) * 100);
  return {
    id: 'time',
    title: 'Where the time goes: protocol against database',
    note:
      'p50 of one call end to end, of the same statement through the database driver alone (database), and of the ' +
      "echo tool (MCP and HTTP, no database: protocol). Shares of the whole: database and protocol, the server's own " +
      'work the rest; in each round they add to 100% (when database and protocol together exceed the whole, both ' +
      'are scaled to it). Timed in the last iteration, in 5 rounds that take turns: each share is the median of the ' +
      "rounds' shares, in brackets their range (so the three medians need not add to exactly 100%); a file written " +
      "before rounds were kept gives the whole run's shares, no range. Our server's calls: the other servers' " +
      'are in "Servers compared".',
    head: [
      'database',
      'operation',
      'call p50 ms',
      'database p50 ms',
      'protocol p50 ms',
      'database',
      'protocol',
      'rest',
    ],
    rows,
    chart: barChart('time', 'Share of a call (%)', categories, { label: '% of the call' }, [
      { label: 'database', color: MEANING.raw, values: of('database') },
      { label: 'protocol', color: MEANING.echo, values: of('protocol') },
      { label: 'rest (server)', color: MEANING.full, values: of('rest') },
    ]),
    commands: commandsOf([...new Set(parts.map((p) => p.file))]),
  };
}
