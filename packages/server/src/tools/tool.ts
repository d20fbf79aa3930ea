import type { ToolSpec } from '@mcp-db-bench/contract';
import type { AnyDb, Engine, ShortReads, SqlPolicy } from '@mcp-db-bench/engines';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { SchemaCache } from '../catalog/cache.js';
import type { Telemetry } from '../telemetry/index.js';

/** What one call may ask for and answer: rows, bytes, bound values. */
export interface Limits {
  /** rows returned when the caller gives no limit */
  defaultRows: number;
  /** the most rows one call returns; larger limits are capped to it */
  maxRows: number;
  /** the largest tool result, in bytes of JSON; a larger one is refused, not cut */
  maxResponseBytes: number;
  /** the most values one call binds (see bound-values.ts); the engine's own limit per statement applies too */
  maxBoundValues: number;
}

/** The sql tool's own connections (Engine.connectSql), and their limits, which its errors name. */
export interface SqlConnections {
  db: AnyDb;
  poolSize: number;
  waitMs: number;
  close(): Promise<void>;
}

/** What a tool needs to answer: the engine's facts, the pool and the cached schema. */
export interface ToolContext {
  engine: Engine;
  db: AnyDb;
  /** the engine's cheaper path for short single-table reads, if it has one (see Connection) */
  shortReads?: ShortReads;
  /** the sql tool's own connections: present only where it is served (--sql) */
  sql?: SqlConnections;
  schema: SchemaCache;
  limits: Limits;
  /** where tool calls are reported (absent or disabled: nowhere) */
  telemetry?: Telemetry;
  /** what the sql tool allows beyond its guard's judgement (absent: nothing) */
  sqlPolicy?: SqlPolicy;
}

/** One MCP tool: its contract (name and schemas, from the contract package) and how the server presents and answers it. */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject>
  extends ToolSpec<string, I, O> {
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** the answer is a function of the cached catalog and the arguments alone: it may be reused while the catalog is the same */
  catalogOnly?: boolean;
  /** answers without the database: served without a `database` argument when a server serves several */
  noDatabase?: boolean;
  run(args: z.output<I>, ctx: ToolContext): Promise<z.output<O>>;
}

/** A tool of `spec`: the server adds what hosts see beside the schemas, and the handler. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<string, I, O>,
  tool: Omit<ToolDefinition<I, O>, keyof ToolSpec>,
): ToolDefinition<I, O> {
  return { ...spec, ...tool };
}

/** Every read tool only reads, is safe to repeat and touches nothing outside the database. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
