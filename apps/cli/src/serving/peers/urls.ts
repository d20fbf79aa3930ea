/** Our database URLs rewritten into what other programs take: shared by the peers' launchers. */
import { resolve } from 'node:path';
import { sqlitePath } from '@mcp-db-bench/engines';

/** A SQLite URL's file as an absolute path (the peer may run elsewhere); undefined for an in-memory database. */
export function sqliteFile(url: string): string | undefined {
  const path = sqlitePath(url);
  return path === ':memory:' ? undefined : resolve(path);
}

/** `url` with `key=value` in its query, unless the query already sets `key`. */
export function withQuery(url: string, key: string, value: string): string {
  if (new RegExp(`[?&]${key}=`).test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${key}=${value}`;
}

/** The parts of a server URL (`mysql://USER:PASS@HOST:PORT/DB`), decoded. */
export function serverParts(url: string, defaultPort: number) {
  const u = new URL(url);
  return {
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || defaultPort),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')),
  };
}
