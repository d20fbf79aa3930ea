import { ToolError } from '@mcp-db-bench/contract';
import type { EngineProfile } from './engine.js';
import { mariadb } from './mariadb/index.js';
import { mssql } from './mssql/index.js';
import { mysql } from './mysql/index.js';
import { postgres } from './postgres/index.js';
import { sqlite } from './sqlite/index.js';

/** Every engine the server speaks; adding one is a folder and a line here. */
export const ENGINES: readonly EngineProfile[] = [postgres, mysql, mariadb, mssql, sqlite];

const URL_FORMS = 'postgres://, mysql://, mariadb://, mssql:// (or sqlserver://), sqlite:PATH or sqlite::memory:';

/** Picks the engine from a connection URL's scheme. */
export function engineForUrl(url: string): EngineProfile {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (!scheme) throw new ToolError('invalid_argument', `not a database URL: expected ${URL_FORMS}`);
  const engine = ENGINES.find((e) => e.schemes.includes(scheme));
  if (!engine) throw new ToolError('invalid_argument', `unknown database URL scheme "${scheme}:"; use ${URL_FORMS}`);
  return engine;
}

/** A URL safe to print: the password replaced. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@/]*@/, '$1***@');
}

export type { AnyDb, ConnectOptions, Connection, EngineProfile, SqlFamily } from './engine.js';
