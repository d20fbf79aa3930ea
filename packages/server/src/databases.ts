import { existsSync } from 'node:fs';
import { type ExcessRights, redactUrl } from '@mcp-db-bench/engines';
import { type DatabaseContext, type DatabaseOptions, openDatabase } from './context.js';
import type { DatabaseUrl } from './database-urls.js';
import type { NamedContexts } from './routing.js';
import type { ToolContext } from './tools/index.js';
import type { WorkersOption } from './transports/cluster.js';

/** The databases one server serves, opened, by name (one unnamed database: the name `main`, never shown). */
export interface Databases {
  /** in the order given */
  readonly contexts: ReadonlyMap<string, DatabaseContext>;
  /** what createServerFactory and directTools take: the one context, or the named ones */
  readonly served: ToolContext | NamedContexts;
  /** Why these options cannot be served on one of the databases, or undefined. */
  refusal(options: ServeOptions): Promise<string | undefined>;
  /** The start-up lines: one per database (its URL redacted), and a warning for a login with more rights than needed. */
  describe(options: { allowWrites?: boolean; statementTimeout: number }): Promise<string[]>;
  /** Resolves when every database answers (the HTTP /healthz check). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What refusal checks the databases against. */
export interface ServeOptions {
  workers: WorkersOption;
  sql?: boolean;
  /** --sql-privileged-login: serve sql on a login that reaches the host all the same */
  sqlPrivilegedLogin?: boolean;
  /** --sql-role: the rights that count for sql are the role's */
  sqlRole?: string;
  allowWrites?: boolean;
}

/** The login suggested in a refusal. */
const LEAST_LOGIN = { read: 'mcp_reader', write: 'mcp_writer' } as const;

/**
 * Opens every database (each with its own pool, read-only mode, limits, schema cache and
 * statement timeout), all at once. When one fails, those opened are closed and the error names
 * the one that failed (when there are several).
 */
export async function openDatabases(
  urls: readonly DatabaseUrl[],
  options: Omit<DatabaseOptions, 'url'>,
): Promise<Databases> {
  const several = urls.length > 1;
  const opened = await Promise.allSettled(urls.map(({ url }) => openDatabase({ ...options, url })));
  const failed = opened.findIndex((o) => o.status === 'rejected');
  if (failed >= 0) {
    await Promise.allSettled(opened.map((o) => (o.status === 'fulfilled' ? o.value.close() : undefined)));
    const error = missingSqliteFile((opened[failed] as PromiseRejectedResult).reason);
    if (!several) throw error;
    const { name, url } = urls[failed]!;
    throw new Error(`database ${name} (${redactUrl(url)}): ${(error as Error)?.message ?? String(error)}`);
  }
  const contexts = new Map(
    opened.map((o, i) => [urls[i]!.name ?? 'main', (o as PromiseFulfilledResult<DatabaseContext>).value]),
  );
  const all = [...contexts.values()];
  // Messages name the database only when there are several: one database reads as it always did.
  const label = (name: string) => (several ? `${name}: ` : '');
  // Each database's login, read once; with a role, the rights the sql tool's sessions have.
  const read = new Map<string, Promise<ExcessRights | undefined>>();
  const excess = (name: string, ctx: DatabaseContext, role?: string) => {
    const key = `${name}\0${role ?? ''}`;
    let rights = read.get(key);
    if (!rights) {
      const db = role && ctx.sql ? ctx.sql.db : ctx.db;
      rights = ctx.engine.excessRights?.(db).catch(() => undefined) ?? Promise.resolve(undefined);
      read.set(key, rights);
    }
    return rights;
  };
  return {
    contexts,
    served: several ? contexts : all[0]!,
    async refusal(options) {
      for (const [name, ctx] of contexts) {
        const { engine } = ctx;
        const on = `${engine.name}${several ? ` (database ${name})` : ''}`;
        const { workers, sql } = options;
        if (workers !== 'auto' && workers > 1 && engine.oneProcess)
          return `--workers ${workers} is not available on ${on}: ${engine.title} can be open in one process at a time (use --workers 1)`;
        if (sql && !engine.readOnlyStatement)
          return `--sql is not available on ${on}: it has no read-only transaction to enforce it with`;
        if (sql && !options.sqlPrivilegedLogin) {
          const why = await privilegedRefusal(ctx, on, options, excess(name, ctx, options.sqlRole));
          if (why) return why;
        }
      }
      return undefined;
    },
    async describe({ allowWrites, statementTimeout }) {
      const mode = allowWrites ? 'read-write' : 'read-only';
      const lines: string[] = [];
      for (const [i, [name, ctx]] of [...contexts].entries()) {
        const tables = (await ctx.schema.get()).tables.length;
        const timeout = !statementTimeout
          ? 'none'
          : ctx.engine.cancelsStatements
            ? `${statementTimeout} ms`
            : `none (${ctx.engine.title} cannot cancel a statement)`;
        lines.push(
          `${label(name)}${ctx.engine.name} ${redactUrl(urls[i]!.url)}: ${tables} tables and views, ${mode}, statement timeout ${timeout}`,
        );
        // A warning where it is not a refusal (without --sql, or with --sql-privileged-login): the
        // structured tools keep within the rows, but nothing else stands between a login like this and the host.
        const rights = await excess(name, ctx);
        if (rights)
          lines.push(
            `WARNING: ${label(name)}connected as ${rights.user}, which has ${rights.rights.join(', ')}: more than this server needs; use a least-privilege user (see docs/safety.md)`,
          );
        // What the sql tool's statements may do that only the database's settings bound, unset.
        const warnings = ctx.sql ? await ctx.engine.sqlWarnings?.(ctx.sql.db).catch(() => []) : undefined;
        for (const warning of warnings ?? []) lines.push(`WARNING: ${label(name)}${warning} (see docs/safety.md)`);
      }
      return lines;
    },
    ping: async () => {
      await Promise.all(all.map((ctx) => ctx.ping()));
    },
    close: async () => {
      await Promise.allSettled(all.map((ctx) => ctx.close()));
    },
  };
}

/**
 * The refusal of --sql on a login that reaches the database host, with the statements that make
 * one that does not, and the option that accepts it; undefined for a login within its rows.
 */
async function privilegedRefusal(
  ctx: DatabaseContext,
  on: string,
  options: ServeOptions,
  rightsOf: Promise<ExcessRights | undefined>,
): Promise<string | undefined> {
  const rights = await rightsOf;
  if (!rights) return undefined;
  const writes = options.allowWrites === true;
  const login = writes ? LEAST_LOGIN.write : LEAST_LOGIN.read;
  const statements = await ctx.engine.leastPrivilege?.(ctx.db, { login, writes }).catch(() => undefined);
  const who = options.sqlRole ? `the sql tool's role ${options.sqlRole}` : `the login ${rights.user}`;
  return [
    `--sql refused on ${on}: ${who} has ${rights.rights.join(', ')}, which reaches past the database (the host's files and programs, the server itself).`,
    "The sql tool runs statements its callers write; the database's rights are what holds whatever a guard misses.",
    ...(statements?.length
      ? [
          `Serve with a login that has only what this server needs; as an administrator, run:`,
          ...statements.map((s) => `  ${s}`),
          `and put ${login} (with its password) in the URL.`,
        ]
      : ['Serve with a login that has only what this server needs (see docs/safety.md).']),
    'To serve sql on this login all the same, pass --sql-privileged-login (MCP_DB_SQL_PRIVILEGED_LOGIN; sql.privilegedLogin in the --config file).',
  ].join('\n');
}

/** SQLite's `unable to open database file` for a file that is not there, said plainly (the server never creates one). */
function missingSqliteFile(error: unknown): unknown {
  const m =
    error instanceof Error
      ? /^cannot open SQLite database (.+): unable to open database file$/.exec(error.message)
      : null;
  if (!m || existsSync(m[1]!)) return error;
  return new Error(
    `cannot open SQLite database ${m[1]}: no such file (the server does not create one; mcp-db-bench seed --db sqlite:${m[1]} makes one)`,
  );
}
