import { ToolError } from '@mcp-db-bench/contract';
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';

type Std = StandardSchemaWithJSON['~standard'];
type JsonSchemaOptions = Parameters<Std['jsonSchema']['input']>[0];
type Issue = { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] };

/**
 * Arguments refused before the tool runs. Validation hands this to the tool handler instead of
 * failing in the SDK, so a refusal gets the same `{ "error": { code, message } }` result as every
 * other mistake (an agent can parse one shape), through the tool's own path (its telemetry).
 */
export abstract class RefusedArguments {
  abstract toError(): ToolError;
}

/** Arguments refused before validation, with their error (a call past the ceiling on bound values). */
export class RefusedEarly extends RefusedArguments {
  constructor(private readonly error: ToolError) {
    super();
  }

  toError(): ToolError {
    return this.error;
  }
}

/** Arguments that failed the input schema, every problem named by its path. */
export class InvalidArguments extends RefusedArguments {
  constructor(readonly issues: readonly Issue[]) {
    super();
  }

  toError(): ToolError {
    const problems = this.issues.slice(0, 10).map((i) => {
      const path = (i.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
      return `${path || 'arguments'}: ${i.message}`;
    });
    return new ToolError('invalid_argument', problems.join('; '));
  }
}

const adapted = new WeakMap<object, { input: StandardSchemaWithJSON; output: StandardSchemaWithJSON }>();

/** A tool's adapted input and output schemas, made once per tool and shared by every server instance. */
export function adaptedSchemas(tool: { input: StandardSchemaWithJSON; output: StandardSchemaWithJSON }) {
  let schemas = adapted.get(tool);
  if (!schemas) {
    schemas = { input: adaptSchema(tool.input, 'input'), output: adaptSchema(tool.output, 'output') };
    adapted.set(tool, schemas);
  }
  return schemas;
}

/**
 * Adapts a tool's zod schema for the SDK:
 * - JSON Schema is computed once. The SDK serves each HTTP request from a fresh server
 *   instance and converted every schema on every request (a third of a `get`'s server CPU).
 * - `$schema` is dropped: it names the draft on every schema of every tool, tokens an agent
 *   pays for that tell it nothing.
 * - input schemas are advertised without the bounds that only guard the server (lengths, counts,
 *   `propertyNames`; see {@link leanSchema}): hosts load `tools/list` into every conversation, and
 *   the full schema still validates every call.
 * - for input schemas, failed validation becomes {@link InvalidArguments} (see there).
 */
export function adaptSchema<T extends StandardSchemaWithJSON>(schema: T, role: 'input' | 'output'): T {
  const std = schema['~standard'];
  const memo = new Map<string, Record<string, unknown>>();
  const remembered = (io: 'input' | 'output') => (options: JsonSchemaOptions) => {
    const key = `${io} ${options.target}`;
    let json = memo.get(key);
    if (!json) {
      const { $schema: _draft, ...rest } = std.jsonSchema[io](options);
      json = role === 'input' ? (leanSchema(rest) as Record<string, unknown>) : rest;
      memo.set(key, json);
    }
    return json;
  };
  const validate: Std['validate'] =
    role === 'output'
      ? std.validate
      : (value, options) => {
          const reserved = reservedKeyPath(value);
          if (reserved !== undefined) {
            return {
              value: new InvalidArguments([
                { message: '"__proto__" cannot be a name here (JavaScript objects reserve it)', path: reserved },
              ]),
            };
          }
          const result = std.validate(value, options);
          if (result instanceof Promise) return result;
          return result.issues ? { value: new InvalidArguments(result.issues) } : result;
        };
  return {
    '~standard': { ...std, validate, jsonSchema: { input: remembered('input'), output: remembered('output') } },
  } as T;
}

/**
 * `schema`, whose validation first asks `refuse` about the arguments as sent: a refusal becomes
 * the arguments the handler gets ({@link RefusedEarly}), before anything that grows with them
 * (the scan for reserved keys, the schema's own checks) has run.
 */
export function refusingFirst<T extends StandardSchemaWithJSON>(
  schema: T,
  refuse: (args: unknown) => ToolError | undefined,
): T {
  const std = schema['~standard'];
  const validate: Std['validate'] = (value, options) => {
    const error = refuse(value);
    return error ? { value: new RefusedEarly(error) } : std.validate(value, options);
  };
  return { '~standard': { ...std, validate } } as T;
}

/** JSON Schema keywords that bound a value only to protect the server: no agent comes near them. */
const GUARD_KEYWORDS = new Set([
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'maximum',
  'propertyNames',
  'pattern',
]);

/**
 * A JSON Schema without GUARD_KEYWORDS (at any depth) or the safe-integer `minimum`, without `additionalProperties: {}` (which
 * allows what omitting it does), and with an `anyOf` of bare types written as one type list.
 */
export function leanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(leanSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (GUARD_KEYWORDS.has(key)) continue;
    // zod's .int() bounds every integer to the safe range: a minimum no agent needs told
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (
      key === 'additionalProperties' &&
      typeof value === 'object' &&
      value !== null &&
      Object.keys(value).length === 0
    )
      continue;
    // `properties` maps names to schemas: its keys are names, not keywords.
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, leanSchema(v)]))
        : leanSchema(value);
  }
  const types = Array.isArray(out.anyOf) && out.type === undefined ? bareTypes(out.anyOf) : undefined;
  if (types) {
    delete out.anyOf;
    out.type = types;
  }
  return out;
}

/** The types of schemas that say nothing but `type`, in order; undefined when one says more. */
function bareTypes(schemas: readonly unknown[]): string[] | undefined {
  const types: string[] = [];
  for (const s of schemas) {
    if (typeof s !== 'object' || s === null || Object.keys(s).some((k) => k !== 'type')) return undefined;
    const type = (s as { type?: unknown }).type;
    for (const t of Array.isArray(type) ? type : [type]) if (typeof t === 'string' && !types.includes(t)) types.push(t);
  }
  return types;
}

/** How many nodes {@link reservedKeyPath} visits at most: arguments are small, hostile ones are not. */
const SCAN_BUDGET = 10_000;

/**
 * The path of the first "__proto__" key in parsed JSON arguments. zod copies records into fresh
 * objects, where assigning "__proto__" sets the prototype instead of a key: an insert of
 * {"__proto__": 1, "id": 2} would silently lose a column. Iterative, so any nesting is safe.
 */
export function reservedKeyPath(value: unknown): string[] | undefined {
  // Each entry links to its parent, so a path is built only when one is found (copying paths
  // at every step would be quadratic in the nesting depth).
  interface Step {
    node: unknown;
    key: string;
    parent?: Step;
  }
  const pathOf = (step: Step): string[] => {
    const path: string[] = [];
    for (let at: Step | undefined = step; at?.parent; at = at.parent) path.unshift(at.key);
    return path;
  };
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: Step[] = [{ node: value, key: '' }];
  // No more is kept to visit than the budget allows: a list of a million objects costs no more than its first ones.
  let seen = 0;
  const visit = (node: unknown, key: string, parent: Step) => {
    if (typeof node === 'object' && node !== null && seen + stack.length < SCAN_BUDGET)
      stack.push({ node, key, parent });
  };
  for (; stack.length > 0 && seen < SCAN_BUDGET; seen++) {
    const step = stack.pop()!;
    const node = step.node as Record<string, unknown>;
    // Arrays by index: Object.entries would make a pair and a key string for each of a list's values.
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) visit(node[i], String(i), step);
    } else {
      if (Object.hasOwn(node, '__proto__')) return [...pathOf(step), '__proto__'];
      for (const key in node) visit(node[key], key, step);
    }
  }
  return undefined;
}
