import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { type Engine, engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';

/**
 * What a server process holds, read from the operating system (Linux /proc), so the tests
 * need no hook in production code: the client ports of its open connections on a port, its
 * file descriptors, its memory.
 */
export function processHandles(pid: number, port: number): { peerPorts: Set<number>; fds: number; rssBytes: number } {
  const sockets = new Set<string>();
  const fdDir = `/proc/${pid}/fd`;
  const fds = readdirSync(fdDir);
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${fdDir}/${fd}`))?.[1];
      if (inode) sockets.add(inode);
    } catch {
      // closed between the listing and the read
    }
  }
  const peerPorts = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const localPort = Number.parseInt(f[1]!.split(':')[1]!, 16);
      // any state but LISTEN (0A): an ESTABLISHED or CLOSE_WAIT socket this process still owns
      if (localPort === port && f[3] !== '0A' && sockets.has(f[9]!))
        peerPorts.add(Number.parseInt(f[2]!.split(':')[1]!, 16));
    }
  }
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { peerPorts, fds: fds.length, rssBytes: Number(rss ?? 0) * 1024 };
}

/** CPU time (user + system) a process has used so far, in clock ticks of 1/100 s; 0 once it is gone. */
export function cpuTicks(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

export interface SessionProbe {
  sessions(): Promise<{ total: number; busy: number }>;
  close(): Promise<void>;
}

/**
 * One connection of its own to `url` that counts the sessions the MCP server holds in that
 * database, all of them and those running a statement (its family's `sessions` test fact).
 */
export async function sessionProbe(url: string, engine: Engine<string> = engineForUrl(url)): Promise<SessionProbe> {
  const query = testFactsOf(engine).sessions;
  if (!query) throw new Error(`the ${engine.family} family has no session query`);
  const { db, close } = await engine.connect(url, { poolSize: 1 });
  return {
    async sessions() {
      const row = (await query.execute(db)).rows[0]!;
      return { total: Number(row.total), busy: Number(row.busy) };
    },
    close,
  };
}
