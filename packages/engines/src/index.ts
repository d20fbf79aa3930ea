import { ToolError } from '@mcp-db-bench/contract';
import type { Engine } from './engine.js';
import * as registry from './registry.js';

export * from './registry.js';

/** Every engine the server speaks, by title. */
export const ENGINES: readonly Engine[] = Object.values(registry).sort((a, b) => a.title.localeCompare(b.title));

/** Every engine's URL forms, for help text and errors. */
export const URL_FORMS = ENGINES.flatMap((e) => e.urlForms).join(', ');

/** The engines' titles, for a one-line description: `MariaDB, MySQL, ... or SQLite`. */
export const ENGINE_TITLES = ENGINES.map((e) => e.title)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/** Picks the engine from a connection URL's scheme. */
export function engineForUrl(url: string): Engine {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (!scheme) throw new ToolError('invalid_argument', `not a database URL: expected ${URL_FORMS}`);
  const engine = ENGINES.find((e) => e.schemes.includes(scheme));
  if (!engine) throw new ToolError('invalid_argument', `unknown database URL scheme "${scheme}:"; use ${URL_FORMS}`);
  return engine;
}

/** The engine of a URL given on a command line, after the URL's own checks: a mistake here is a usage error. */
export function engineForGivenUrl(url: string): Engine {
  const engine = engineForUrl(url);
  engine.checkUrl?.(url);
  return engine;
}

/** A URL safe to print: the password replaced. */
export function redactUrl(url: string): string {
  // `PASS` is the placeholder of the URL forms (URL_FORMS): a hint to show, not a secret to hide.
  return url.replace(/(\/\/[^:/@]+:)([^@/]*)@/, (whole, user: string, password: string) =>
    password === 'PASS' ? whole : `${user}***@`,
  );
}

export {
  Call,
  inCall,
  inExchange,
  outsideCalls,
  SignalCall,
  type StatementObserver,
  throwIfAbandoned,
} from './calls.js';
export type { Column, ForeignKey, RawCatalog, RawColumn, RawForeignKey, RawIndex, RawTable, Table } from './catalog.js';
export { defineEngine, type EngineDefinition } from './define.js';
export type {
  AnyDb,
  AnySelect,
  BulkColumn,
  BulkLoader,
  BulkRow,
  BulkTable,
  Comparison,
  Connection,
  ConnectOptions,
  Engine,
  EngineSettings,
  ExcessRights,
  ShortReads,
  SqlConnectOptions,
  SqlFamily,
} from './engine.js';
export { STANDARD_LEXICON, skipQuoted, type TextLexicon } from './lexicon.js';
export { PoolWaitExceeded } from './pool-wait.js';
export { insertStatement } from './returning.js';
export { SchemaChangedError } from './schema-changed.js';
export { DEFAULT_SQL_POLICY, type SqlPolicy } from './sql-guard.js';
/** A SQLite URL's file (or `:memory:`), for another program opening the same database (`run --peer`). */
export { sqlitePath } from './sqlite/connect.js';
