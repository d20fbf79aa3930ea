/**
 * Which server measured a target, and on which database: our own, or a peer `run --peer` started
 * on the same database (its label is the peer's name before ours: `faucet sqlite 2025 session`
 * beside `sqlite 2025 session`). Reports pair servers per database and engines per server with
 * it, never a peer on one database with ours on another.
 */
import type { ResultFile } from '@mcp-db-bench/contract';

/** The name our own server goes by beside the peers. */
export const OURS = 'ours';

export interface Served {
  label: string;
  /** `ours`, or the peer's name */
  server: string;
  /** the database served: its URL (as the file records it, password redacted), else the label */
  database: string;
  engine: string | null;
  /** a peer's: our server's target on the same database and era, the one it is compared with */
  ours?: string;
}

/** Every target of a file with its server and database, in the file's order. */
export function servedBy(file: Pick<ResultFile, 'config'>): Served[] {
  const targets = file.config.targets;
  return targets.map((t) => {
    const database = t.url ?? t.label;
    const base = { label: t.label, database, engine: t.engine };
    if (!t.peer) return { ...base, server: OURS };
    // the same era's: the peer's label is ours with its name before it
    const own = targets.find((o) => !o.peer && `${t.peer!.name} ${o.label}` === t.label);
    const ours = own ?? targets.find((o) => !o.peer && (o.url ?? o.label) === database);
    return { ...base, server: t.peer.name, ...(ours && { ours: ours.label }) };
  });
}

/**
 * Two targets a report compares: the same server (engines through it) or the same database
 * (servers on it). A peer on one database against ours on another measures neither: the run's
 * file pairs every target with every other, and such pairs are left out of what is judged.
 */
export function comparable(file: Pick<ResultFile, 'config'>): (a: string, b: string) => boolean {
  const served = new Map(servedBy(file).map((s) => [s.label, s]));
  return (a, b) => {
    const [x, y] = [served.get(a), served.get(b)];
    return !x || !y || x.server === y.server || x.database === y.database;
  };
}

/** The file ran a peer beside ours. */
export const hasPeers = (file: Pick<ResultFile, 'config'>): boolean => file.config.targets.some((t) => t.peer);

/** How a database reads: its engine, or (two databases of one engine) our server's label on it. */
export function databaseNames(files: readonly Pick<ResultFile, 'config'>[]): (s: Served) => string {
  const byDatabase = new Map<string, Served>();
  for (const s of files.flatMap((f) => servedBy(f)))
    if (s.server === OURS && !byDatabase.has(s.database)) byDatabase.set(s.database, s);
  const engineOf = (s: Served) => s.engine ?? s.label;
  const shared = (engine: string) => [...byDatabase.values()].filter((s) => engineOf(s) === engine).length > 1;
  return (s) => {
    const own = byDatabase.get(s.database) ?? s;
    return shared(engineOf(own)) ? own.label : engineOf(own);
  };
}
