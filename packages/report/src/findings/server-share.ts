import { type DecompositionResult, medianInterval, type ResultFile } from '@mcp-db-bench/contract';
import { int, ms, pct } from '../format.js';
import { summarize } from '../histogram.js';
import type { Cell } from '../render/html/types.js';
import { databaseNames, hasPeers, type Served, servedBy } from '../served.js';
import { barChart, colorAmong, commandsOf, type Finding } from './common.js';
import { shares } from './time.js';

const p50Ms = (histogram: string) => summarize(histogram).p50 / 1000;

/**
 * The server's share of a call: all but the statement through the driver alone (the protocol
 * and the server's own work), the median of the decomposition's rounds with their range; a file
 * written before rounds were kept: the share of its p50s.
 */
export function serverShare(d: DecompositionResult): { median: number; range?: [number, number] } {
  const of = (raw: number, echo: number, full: number) => 1 - shares(raw, echo, full).database;
  const i = medianInterval((d.rounds ?? []).map((r) => of(r.raw, r.echo, r.full)));
  if (i && i.n > 1) return { median: i.median, range: [i.low, i.high] };
  return { median: of(p50Ms(d.raw.histogram), p50Ms(d.echo.histogram), p50Ms(d.full.histogram)) };
}

/** Session start p50 ms, cold and warm: the later pass where the file has one (compiled code paths), else the first. */
function sessionStartCell(file: ResultFile, target: string): Cell {
  const init = file.sessionInit.find((s) => s.target === target);
  if (!init) return '–';
  const at = init.later ?? init;
  const cold = p50Ms(at.cold.histogram);
  return { text: `${ms(cold * 1000)} / ${ms(p50Ms(at.warm.histogram) * 1000)}`, value: cold };
}

interface Part {
  file: ResultFile;
  served: Served;
  d: DecompositionResult;
}

/** Each server's decomposition on each database, first found (a study's segments each time the same lookups). */
function partsOf(files: readonly ResultFile[]): Part[] {
  const seen = new Set<string>();
  return files.filter(hasPeers).flatMap((file) => {
    const served = servedBy(file);
    return file.decomposition.flatMap((d) => {
      const s = served.find((x) => x.label === d.target);
      const key = `${d.target}\u0000${d.operation}`;
      if (!s || seen.has(key)) return [];
      seen.add(key);
      return [{ file, served: s, d }];
    });
  });
}

/**
 * Per server and database, how much of a lookup is the server: the lookup end to end through the
 * server (a peer's own call, through its profile) against the same statement through the driver
 * alone; with each server's session start and what it costs in tokens. Nothing when no peer ran.
 */
export function serverShares(files: readonly ResultFile[]): Finding | undefined {
  const parts = partsOf(files);
  if (!parts.length) return undefined;
  const name = databaseNames(files);
  const servers = [...new Set(parts.map((p) => p.served.server))];
  const rows: Cell[][] = parts.map(({ file, served, d }) => {
    const share = serverShare(d);
    const tokens = file.tokens?.find((t) => t.target === served.label)?.sessionStart.tokens;
    return [
      name(served),
      served.server,
      d.operation,
      { text: ms(p50Ms(d.full.histogram) * 1000), value: p50Ms(d.full.histogram) },
      { text: ms(p50Ms(d.raw.histogram) * 1000), value: p50Ms(d.raw.histogram) },
      { text: `${ms(p50Ms(d.echo.histogram) * 1000)} (${d.floor ?? 'echo'})`, value: p50Ms(d.echo.histogram) },
      {
        text: `${pct(share.median)}${share.range ? ` [${pct(share.range[0])}–${pct(share.range[1])}]` : ''}`,
        value: share.median,
      },
      sessionStartCell(file, served.label),
      tokens === undefined ? '–' : { text: int(tokens), value: tokens },
    ];
  });
  const categories = [...new Set(parts.map((p) => `${name(p.served)} ${p.d.operation}`))];
  const at = (server: string, category: string) => {
    const p = parts.find((x) => x.served.server === server && `${name(x.served)} ${x.d.operation}` === category);
    return p ? serverShare(p.d).median * 100 : null;
  };
  return {
    id: 'server-share',
    title: "Servers compared: the server's share of a call",
    note:
      'Per database and server, one lookup timed three ways in 5 rounds that take turns, the servers too: end to end ' +
      "through the server (a peer's own call, through its profile), the same statement through the database driver " +
      "alone, and the protocol floor with no database (our echo tool; MCP's ping for a peer, which has no echo tool). " +
      "The server's share is all of the call but the driver's statement (the protocol and the server's own work): the " +
      "median of the rounds' shares, their range in brackets. What a database ratio measured through a server carries " +
      'of that server is this share. Session start: p50 ms of the discovery a session begins with, on a new ' +
      'connection / on one kept open (the later pass where there is one); its tokens: tools/list and the discovery.',
    head: [
      'database',
      'server',
      'operation',
      'call p50 ms',
      'driver alone p50 ms',
      'floor p50 ms',
      "server's share",
      'session start p50 ms, cold / warm',
      'session start tokens',
    ],
    rows,
    chart: barChart(
      'server-share',
      "The server's share of a call (%)",
      categories,
      { label: '% of the call' },
      servers.map((server) => ({
        label: server,
        color: colorAmong(servers, server),
        values: categories.map((c) => at(server, c)),
      })),
    ),
    commands: commandsOf([...new Set(parts.map((p) => p.file))]),
  };
}
