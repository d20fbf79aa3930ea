import { z } from 'zod';
import { parseFilter } from './filter/json.js';

/**
 * A recorded trace (`mcp-db-bench record`): what a host did through an MCP server, one JSON object
 * per line. A `trace` line first, then per session a `session` line, its `request` lines in the
 * order the host sent them and, when the host ended it, an `end` line. Times are milliseconds
 * since the trace began. Sessions are labelled `s1`, `s2`, ...: never the server's session id,
 * which works like a credential.
 */
export const TRACE_VERSION = 1;

/** What a trace keeps of the arguments: as sent, their shape only (types and lengths), or nothing. */
export const TRACE_VALUES = ['keep', 'shape', 'drop'] as const;
export type TraceValues = (typeof TRACE_VALUES)[number];

export const traceHeader = z.object({
  type: z.literal('trace'),
  version: z.literal(TRACE_VERSION),
  /** ISO-8601 wall clock at time 0 */
  startedAt: z.string(),
  /** the server recorded: its URL without credentials, or its command's first word */
  target: z.string(),
  values: z.enum(TRACE_VALUES),
});

export const traceSession = z.object({
  type: z.literal('session'),
  session: z.string(),
  at: z.number(),
  /** the protocol version the host asked for in `initialize` (2025 era); null when it did not initialize */
  protocolVersion: z.string().nullable(),
  /** clientInfo of `initialize`: which host recorded this */
  client: z.object({ name: z.string(), version: z.string() }).nullable(),
});

export const traceRequest = z.object({
  type: z.literal('request'),
  session: z.string(),
  at: z.number(),
  /** JSON-RPC method; a notification has no answer, so no duration */
  method: z.string(),
  /** tools/call: the tool's name */
  tool: z.string().optional(),
  /** tools/call: its arguments, as kept by the trace's `values` (absent under `drop`) */
  arguments: z.unknown().optional(),
  /** since this session's previous answer (or its start): the host's and model's time, not the server's */
  thinkMs: z.number(),
  /** from the request's first byte to the answer's last, at the recorder; absent for a notification */
  durationMs: z.number().optional(),
  bytes: z.object({ request: z.number().int(), response: z.number().int() }),
  /** tools/call answers with a `rows` array: how many */
  rows: z.number().int().optional(),
  /** `http_<status>`, `jsonrpc_<code>`, `tool:<code>` (a tool's isError answer) or `network` */
  error: z.string().optional(),
});

export const traceEnd = z.object({ type: z.literal('end'), session: z.string(), at: z.number() });

/**
 * A `GET` the host sent on a session: the server-to-client stream it asked for (HTTP only), from
 * the request to the stream's end. A replay does not open these; it counts them.
 */
export const traceStream = z.object({
  type: z.literal('stream'),
  session: z.string(),
  at: z.number(),
  durationMs: z.number(),
  /** the answer's status: 200 a stream, 405 a server that offers none */
  status: z.number().int(),
  /** the messages the stream carried */
  messages: z.number().int(),
});

export const traceLine = z.discriminatedUnion('type', [traceHeader, traceSession, traceRequest, traceEnd, traceStream]);

export type TraceHeader = z.infer<typeof traceHeader>;
export type TraceSession = z.infer<typeof traceSession>;
export type TraceRequest = z.infer<typeof traceRequest>;
export type TraceEnd = z.infer<typeof traceEnd>;
export type TraceStream = z.infer<typeof traceStream>;
export type TraceLine = z.infer<typeof traceLine>;

/** Argument keys whose values name the schema (tables, columns, operators), not data: a shape keeps them. */
export const SCHEMA_KEYS: ReadonlySet<string> = new Set([
  'table',
  'columns',
  'column',
  'order_by',
  'group_by',
  'op',
  'fn',
  'as',
]);

/** Argument keys holding our filter language: a shape keeps its tree, columns and operators, not its values. */
const FILTER_KEYS: ReadonlySet<string> = new Set(['filter', 'having']);

/**
 * A value with everything that could be data replaced by its shape: strings by `<string N>`,
 * numbers by `<integer>` or `<number>`, booleans by `<boolean>`; object keys, array lengths,
 * nulls and the values of SCHEMA_KEYS kept; a filter (FILTER_KEYS) as its tree, shaped alike.
 * A replay fills the shapes from its own dataset.
 */
export function shapeOf(value: unknown): unknown {
  if (value === null) return null;
  if (typeof value === 'string') return `<string ${value.length}>`;
  if (typeof value === 'number') return Number.isInteger(value) ? '<integer>' : '<number>';
  if (typeof value === 'boolean') return '<boolean>';
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        SCHEMA_KEYS.has(k) && isNames(v) ? v : FILTER_KEYS.has(k) ? shapeOfFilter(v) : shapeOf(v),
      ]),
    );
  }
  return `<${typeof value}>`;
}

/** A filter as its tree with the values shaped; one that does not parse, shaped as any value. */
function shapeOfFilter(filter: unknown): unknown {
  try {
    return shapeOf(parseFilter(filter as string | object));
  } catch {
    return shapeOf(filter);
  }
}

/** A name or a list of names: what a schema key holds (anything else there is shaped like data). */
function isNames(value: unknown): boolean {
  return typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
}
