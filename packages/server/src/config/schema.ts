import { TOOL_SPECS } from '@mcp-db-bench/contract';
import { ENGINES } from '@mcp-db-bench/engines';
import { z } from 'zod';
import { DATABASE_NAME } from '../database-urls.js';
import { splitNamedParameters } from '../query/named-params.js';

/**
 * The config file (`--config FILE`, YAML): every server option a flag sets, named as the option
 * is in camelCase (`--max-rows` is `maxRows`), plus the custom tools. One schema validates the
 * file and is published as JSON Schema (config.schema.json) for editors.
 */

const positive = z.number().int().min(1);
const nonNegative = z.number().int().min(0);
const PARAMETER_TYPES = ['string', 'integer', 'number', 'boolean'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];
const SQL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** MCP tool names: letters, digits, `_` and `-`, at most 64. */
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** Names `--tools` reads as sets (see tools/index.ts TOOL_SETS), plus `custom`. */
export const TOOL_SET_NAMES = ['read', 'minimal', 'write', 'all', 'custom'] as const;
/** Engine names, and family names (mysql also covers MariaDB, postgres PGlite). */
const SQL_KEYS = [...new Set(ENGINES.flatMap((e) => [e.name, e.family]))] as [string, ...string[]];

const parameterSchema = z
  .strictObject({
    type: z.enum(PARAMETER_TYPES, { error: `expected one of ${PARAMETER_TYPES.join(', ')}` }),
    description: z.string().optional(),
    required: z
      .boolean()
      .optional()
      .describe('true by default when no default is given; false without a default binds NULL when absent'),
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
  })
  .superRefine((p, ctx) => {
    if (p.default === undefined) return;
    if (p.required)
      ctx.addIssue({ code: 'custom', path: ['required'], message: 'a parameter with a default is optional' });
    if (!fitsType(p.type, p.default))
      ctx.addIssue({
        code: 'custom',
        path: ['default'],
        message: `expected a value of the parameter's type, ${p.type}`,
      });
  });

function fitsType(type: ParameterType, value: string | number | boolean): boolean {
  if (type === 'integer') return Number.isSafeInteger(value);
  if (type === 'number') return typeof value === 'number';
  return typeof value === type;
}

const customToolSchema = z
  .strictObject({
    title: z.string().optional(),
    description: z.string().min(1).describe('what the tool answers, for the agent choosing a tool'),
    sql: z
      .union([
        z.string().min(1),
        z.partialRecord(z.enum(SQL_KEYS), z.string().min(1)).refine((m) => Object.keys(m).length > 0, {
          message: 'give at least one engine',
        }),
      ])
      .describe(
        'one statement with :named parameters, or one per engine keyed by engine name (or family: mysql, postgres)',
      ),
    parameters: z
      .record(z.string().regex(SQL_NAME, 'a parameter name is letters, digits and _'), parameterSchema)
      .optional(),
    readOnly: z
      .boolean()
      .optional()
      .describe('false: the statement writes; registered only with allowWrites, run in a read-write transaction'),
  })
  .superRefine((tool, ctx) => {
    const declared = new Set(Object.keys(tool.parameters ?? {}));
    const used = new Set<string>();
    // Each engine reads its statement by its own rules (a `[:x]` is a name on SQLite, a parameter on PostgreSQL).
    const issues = new Map<string, { path: string[]; message: string }>();
    const issue = (path: string[], message: string) => issues.set(`${path.join('.')} ${message}`, { path, message });
    for (const { path, text, lexicon } of statementsOf(tool.sql)) {
      let names: string[];
      try {
        names = splitNamedParameters(text, lexicon).names;
      } catch (error) {
        issue(path, (error as Error).message);
        continue;
      }
      for (const name of names) {
        used.add(name);
        if (!declared.has(name)) issue(path, `:${name} is not in parameters`);
      }
    }
    for (const { path, message } of issues.values()) ctx.addIssue({ code: 'custom', path, message });
    for (const name of declared) {
      if (!used.has(name)) ctx.addIssue({ code: 'custom', path: ['parameters', name], message: 'not used in the SQL' });
    }
  });

/** A custom tool's statement as each engine would run it (its own, its family's, or the one for all), with the engine's lexicon. */
function statementsOf(sql: string | Partial<Record<string, string>>) {
  return ENGINES.flatMap((engine) => {
    const key = typeof sql === 'string' ? undefined : sql[engine.name] !== undefined ? engine.name : engine.family;
    const text = key === undefined ? (sql as string) : (sql as Partial<Record<string, string>>)[key];
    return text === undefined
      ? []
      : [{ path: key === undefined ? ['sql'] : ['sql', key], text, lexicon: engine.lexicon }];
  });
}

export type CustomToolConfig = z.output<typeof customToolSchema>;
export type ParameterConfig = z.output<typeof parameterSchema>;

/** `sql:` as a map: the sql tool is served, with these settings of its own (each also a flag, --sql-NAME). */
export const sqlConfigSchema = z.strictObject({
  poolSize: positive.optional().describe("most connections of the sql tool's own (--sql-pool-size; 3)"),
  waitTimeout: positive
    .optional()
    .describe("ms a sql call waits for one of the sql tool's connections (--sql-wait-timeout; 5000)"),
  privilegedLogin: z
    .boolean()
    .optional()
    .describe('serve sql even on a login that reaches the database host (--sql-privileged-login)'),
  role: z
    .string()
    .min(1)
    .optional()
    .describe("PostgreSQL: a role the sql tool's sessions take, narrower than the login (--sql-role)"),
  allowFunctions: z
    .array(z.string().regex(/^[^\s",]+$/, 'a function name, as the database spells it'))
    .optional()
    .describe(
      'functions statements may call although the sql tool refuses them, on your responsibility (--sql-allow-function)',
    ),
});

const RESERVED = new Set<string>([...TOOL_SPECS.map((s) => s.name), ...TOOL_SET_NAMES]);

export const configSchema = z
  .strictObject({
    url: z
      .string()
      .min(1)
      .optional()
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax
      .describe('the database URL (--url), e.g. postgres://app:${DB_PASSWORD}@db:5432/shop'),
    databases: z
      .record(
        z.string().regex(DATABASE_NAME, 'a database name is a lowercase letter, then lowercase letters, digits or _'),
        z.string().min(1),
      )
      .optional()
      .describe('databases by name, each a URL (--url NAME=URL): several are served with one set of tools'),
    http: z.boolean().optional().describe('serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (--http)'),
    host: z.string().min(1).optional().describe('HTTP bind address; non-loopback needs token (--host; 127.0.0.1)'),
    port: z.number().int().min(0).max(65535).optional().describe('HTTP port, 0 picks a free one (--port; 7400)'),
    token: z
      .string()
      .min(1)
      .optional()
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax
      .describe('require "Authorization: Bearer <token>" over HTTP (--token); better ${VAR} than written here'),
    allowedHosts: z.array(z.string().min(1)).optional().describe('extra Host/Origin names to accept (--allowed-hosts)'),
    maxRows: positive.optional().describe('most rows one call returns (--max-rows; 1000)'),
    maxResponseBytes: positive
      .optional()
      .describe('largest tool result in bytes of JSON (--max-response-bytes; 1048576)'),
    defaultRows: positive.optional().describe('rows returned when a call gives no limit (--default-rows; 100)'),
    maxBoundValues: positive
      .optional()
      .describe("most values one call binds; the engine's limit per statement applies too (--max-bound-values; 10000)"),
    allowWrites: z
      .boolean()
      .optional()
      .describe('register insert, update, delete, transact and writing custom tools (--allow-writes)'),
    sql: z
      .union([z.boolean(), sqlConfigSchema])
      .optional()
      .describe('register the read-only sql tool (--sql): true, or a map of its settings'),
    statementTimeout: nonNegative
      .optional()
      .describe('ms before the database cancels a statement, 0: no limit (--statement-timeout; 30000)'),
    selectTools: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .optional()
      .describe('serve only these tools: names and sets read, minimal, write, custom, all (--tools)'),
    echo: z.boolean().optional().describe('also register echo, which skips the database (--echo)'),
    poolSize: positive.optional().describe('most database connections (--pool-size; 10)'),
    schemaTtl: nonNegative.optional().describe('seconds between schema reloads, 0: on demand (--schema-ttl; 60)'),
    maxSessions: positive
      .optional()
      .describe('most 2025-era sessions the server remembers, its workers sharing one table (--max-sessions; 10000)'),
    sessionIdle: positive.optional().describe('seconds before an unused 2025-era session ends (--session-idle; 1800)'),
    sessionKey: z
      .string()
      .min(32, 'must be at least 32 characters (openssl rand -hex 32)')
      .optional()
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax
      .describe('secret signing 2025-era session ids (--session-key); better ${VAR} than written here'),
    maxConnections: positive.optional().describe('most open HTTP connections per process (--max-connections; 4096)'),
    maxBufferedBytes: positive
      .optional()
      .describe('most request-body bytes held per process (--max-buffered-bytes; 67108864)'),
    bodyTimeout: positive.optional().describe('ms a request body may pause (--body-timeout; 10000)'),
    headersTimeout: positive.optional().describe('ms for a request line and headers (--headers-timeout; 10000)'),
    requestTimeout: nonNegative
      .optional()
      .describe('ms for a whole request to arrive, 0: no limit (--request-timeout; 60000)'),
    maxBatch: positive.optional().describe('most messages in one JSON-RPC batch (--max-batch; 20)'),
    maxBatchBytes: positive.optional().describe('largest answer to one batch (--max-batch-bytes; 4194304)'),
    workers: z
      .union([z.literal('auto'), positive], { error: 'expected auto or a whole number, 1 or more' })
      .optional()
      .describe('HTTP worker processes, auto: one per core but one (--workers; auto)'),
    busyPoll: z
      .union([z.literal('auto'), nonNegative], { error: 'expected auto or a whole number of µs, 0 or more' })
      .optional()
      .describe(
        'µs to poll, not sleep, after answering a lone client that comes straight back, 0: never, auto: 100 on two cores or more while one is spare, else 0 (--busy-poll; auto)',
      ),
    tools: z
      .record(z.string().regex(TOOL_NAME, 'a tool name is letters, digits, _ and -, at most 64'), customToolSchema)
      .optional()
      .describe('custom tools by name (see docs/tools.md)'),
  })
  .superRefine((config, ctx) => {
    for (const name of Object.keys(config.tools ?? {})) {
      if (RESERVED.has(name))
        ctx.addIssue({ code: 'custom', path: ['tools', name], message: `${name} is a built-in tool or set name` });
    }
  });

export type ServerConfig = z.output<typeof configSchema>;

/** The JSON Schema of the file, as published in config.schema.json. */
export function configJsonSchema(): string {
  const schema = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-2020-12' });
  return `${JSON.stringify({ ...schema, title: 'mcp-db-server config file' }, null, 2)}\n`;
}
