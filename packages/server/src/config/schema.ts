import { TOOL_SPECS } from '@mcp-db-bench/contract';
import { ENGINES } from '@mcp-db-bench/engines';
import { z } from 'zod';
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
    const statements: [string[], string][] =
      typeof tool.sql === 'string'
        ? [[['sql'], tool.sql]]
        : Object.entries(tool.sql).map(([engine, text]) => [['sql', engine], text ?? '']);
    const declared = new Set(Object.keys(tool.parameters ?? {}));
    const used = new Set<string>();
    for (const [path, text] of statements) {
      let names: string[];
      try {
        names = splitNamedParameters(text).names;
      } catch (error) {
        ctx.addIssue({ code: 'custom', path, message: (error as Error).message });
        continue;
      }
      for (const name of names) {
        used.add(name);
        if (!declared.has(name)) ctx.addIssue({ code: 'custom', path, message: `:${name} is not in parameters` });
      }
    }
    for (const name of declared) {
      if (!used.has(name)) ctx.addIssue({ code: 'custom', path: ['parameters', name], message: 'not used in the SQL' });
    }
  });

export type CustomToolConfig = z.output<typeof customToolSchema>;
export type ParameterConfig = z.output<typeof parameterSchema>;

const RESERVED = new Set<string>([...TOOL_SPECS.map((s) => s.name), ...TOOL_SET_NAMES]);

export const configSchema = z
  .strictObject({
    url: z.string().min(1).optional().describe('database URL (--url)'),
    databases: z
      .record(z.string().regex(SQL_NAME, 'a database name is letters, digits and _'), z.string().min(1))
      .optional()
      .describe('databases by name'),
    http: z.boolean().optional(),
    host: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65535).optional(),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax
    token: z.string().min(1).optional().describe('better given as ${VAR} than written here'),
    allowedHosts: z.array(z.string().min(1)).optional(),
    maxRows: positive.optional(),
    maxResponseBytes: positive.optional(),
    defaultRows: positive.optional(),
    allowWrites: z.boolean().optional(),
    sql: z.boolean().optional(),
    statementTimeout: nonNegative.optional().describe('milliseconds; 0: no limit'),
    selectTools: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .optional()
      .describe('--tools: the tools to serve, by name or set (read, minimal, write, custom, all)'),
    echo: z.boolean().optional(),
    poolSize: positive.optional(),
    schemaTtl: nonNegative.optional().describe('seconds'),
    maxSessions: positive.optional(),
    sessionIdle: positive.optional().describe('seconds'),
    sessionKey: z
      .string()
      .min(32, 'must be at least 32 characters (openssl rand -hex 32)')
      .optional()
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax
      .describe('better given as ${VAR} than written here'),
    maxConnections: positive.optional(),
    maxBufferedBytes: positive.optional(),
    bodyTimeout: positive.optional().describe('milliseconds'),
    headersTimeout: positive.optional().describe('milliseconds'),
    requestTimeout: nonNegative.optional().describe('milliseconds; 0: no limit'),
    maxBatch: positive.optional(),
    maxBatchBytes: positive.optional(),
    workers: z.union([z.literal('auto'), positive]).optional(),
    tools: z
      .record(z.string().regex(TOOL_NAME, 'a tool name is letters, digits, _ and -, at most 64'), customToolSchema)
      .optional()
      .describe('custom tools by name'),
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
