/**
 * Shaped arguments (`record --values shape`) filled from the benchmark dataset, so a replayed
 * key or filter hits real rows: a call on a dataset table takes one generated row of it (the rows
 * are generated on their own, from the seed, as `seed` wrote them) and fills each placeholder
 * from the column it belongs to: the key with the row's id, a filter's value with the row's value
 * of the predicate's column. Placeholders no column explains get a value of their type.
 *
 * Writes must neither collide nor erode the dataset: an inserted row is a generated row's values
 * under a fresh id (from a KeySpace shared by every agent on the target, above its highest id),
 * and an update or delete takes a row this agent inserted (a delete takes it out of reach, so no
 * row is deleted twice); with none inserted, an update takes a dataset row and a delete a key no
 * row holds.
 */
import { Random, TOOL_NAMES, type TraceRequest } from '@mcp-db-bench/contract';
import { Dataset, type DatasetTable, generateRows, rowCounts, TABLES, type Value } from '@mcp-db-bench/dataset';

/** `<string N>`, `<integer>`, `<number>`, `<boolean>`: what `shapeOf` leaves of a value. */
type Placeholder = { type: 'string'; length: number } | { type: 'integer' | 'number' | 'boolean' };

export function placeholderOf(value: unknown): Placeholder | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^<(?:string (\d+)|(integer|number|boolean))>$/.exec(value);
  if (!m) return undefined;
  return m[1] !== undefined
    ? { type: 'string', length: Number(m[1]) }
    : { type: m[2] as 'integer' | 'number' | 'boolean' };
}

/** Rows a replayed `limit` asks for when the recorded answer said none. */
const DEFAULT_LIMIT = 10;
/** Rows tried for a filter value before settling for a value of its type (a nullable column may be null). */
const TRIES = 8;

export interface ShapeFiller {
  fill(request: TraceRequest): unknown;
}

/**
 * Fresh primary keys for replayed inserts, one after another per table from `floor(table)` (the
 * target's highest id when the replay began): one space per target, shared by its agents and
 * steps, so no two inserts of a replay take the same key.
 */
export class KeySpace {
  readonly #last = new Map<string, number>();
  constructor(private readonly floor: (table: string) => number) {}
  take(table: string): number {
    const next = (this.#last.get(table) ?? this.floor(table)) + 1;
    this.#last.set(table, next);
    return next;
  }
}

type Row = Map<string, Value>;

/** Fills shaped arguments from the dataset at `scale` and `seed`; each agent its own, on its own random stream. */
export function shapeFiller(options: { scale: number; seed: number; agent: number; keys?: KeySpace }): ShapeFiller {
  const dataset = new Dataset({ seed: options.seed, counts: rowCounts(options.scale) });
  const random = new Random(options.seed * 7919 + options.agent * 104729 + 3);
  const tables = new Map(TABLES.map((t) => [t.name, t]));
  const keys = options.keys ?? new KeySpace((table) => dataset.count(table));
  /** the rows this agent inserted and has not deleted, per table, newest last */
  const inserted = new Map<string, Row[]>();

  /** A generated row of a table, by column name; a table the dataset keeps empty has none. */
  const rowOf = (table: DatasetTable): Row | undefined => {
    const count = dataset.count(table.name);
    if (!count) return undefined;
    let row: Value[] = [];
    const id = random.int(1, count);
    generateRows(table, dataset, id, id, (r) => {
      row = r;
    });
    return new Map(table.columns.map((c, i) => [c.name, row[i] ?? null]));
  };

  /** A dataset row's values under a fresh id, remembered as this agent's; a table whose database makes ids gets none. */
  const freshRow = (table: DatasetTable): Row | undefined => {
    const source = rowOf(table);
    if (!source) return undefined;
    const row = new Map(source);
    if (table.columns[0]!.generated) {
      row.delete('id');
      return row;
    }
    row.set('id', keys.take(table.name));
    inserted.set(table.name, [...(inserted.get(table.name) ?? []), row]);
    return row;
  };

  /**
   * The row an update or delete hits: the newest this agent inserted (a delete's taken out of
   * reach). None inserted: an update takes a dataset row, a delete a fresh key no row holds, so
   * the dataset keeps its rows (and their children's foreign keys).
   */
  const targetRow = (table: DatasetTable, deletes: boolean): Row | undefined => {
    const mine = inserted.get(table.name);
    if (mine?.length) return deletes ? mine.pop() : mine[mine.length - 1];
    const row = rowOf(table);
    if (row && deletes && !table.columns[0]!.generated) row.set('id', keys.take(table.name));
    return row;
  };

  /** One call's arguments (or one transact step's: `tool` is then its op). */
  const fillCall = (tool: string | undefined, args: unknown, rows: number | undefined): unknown => {
    if (!isObject(args)) return args;
    if (tool === TOOL_NAMES.transact && Array.isArray(args.steps)) {
      const steps = args.steps.map((step) => (isObject(step) ? fillCall(opTool(step.op), step, undefined) : step));
      return { ...args, steps };
    }
    const name = args.table;
    const table = typeof name === 'string' ? tables.get(name) : undefined;
    const writes = tool === TOOL_NAMES.update || tool === TOOL_NAMES.delete;
    const row = table && (writes ? targetRow(table, tool === TOOL_NAMES.delete) : rowOf(table));
    const context = (from: Row | undefined): Context => {
      const valueIn = (source: Row | undefined, column: string, shape: Placeholder): unknown => {
        let value = source?.get(column);
        // a null compares true with nothing: another row's value of the column, if it has one
        for (let i = 0; value === null && table && i < TRIES; i++) value = rowOf(table)?.get(column);
        return value === undefined || value === null ? typed(shape) : as(value, shape);
      };
      return {
        row: from,
        columnValue: (column, shape) => valueIn(from, column, shape),
        otherValue: (column, shape) => valueIn(table && rowOf(table), column, shape),
        rows,
      };
    };
    const filled = fillObject(args, context(row));
    // each inserted row: a dataset row's values under a fresh key, without the key a database generates
    if (tool === TOOL_NAMES.insert && table && Array.isArray(args.rows)) {
      filled.rows = args.rows.map((r) => {
        const fresh = freshRow(table);
        const out = fillValue(r, context(fresh), undefined);
        if (isObject(out) && fresh && !fresh.has('id')) delete out.id;
        return out;
      });
    }
    return filled;
  };

  return { fill: (request) => fillCall(request.tool, request.arguments, request.rows) };
}

/** A transact step's op as the tool that does it alone. */
const opTool = (op: unknown): string | undefined => (typeof op === 'string' ? STEP_TOOLS.get(op) : undefined);
const STEP_TOOLS: ReadonlyMap<string, string> = new Map([
  ['insert', TOOL_NAMES.insert],
  ['update', TOOL_NAMES.update],
  ['delete', TOOL_NAMES.delete],
]);

interface Context {
  row: Row | undefined;
  columnValue(column: string, shape: Placeholder): unknown;
  /** another row's value: what a negated predicate (`!=`, `not in`, ...) excludes, so the row itself still matches */
  otherValue(column: string, shape: Placeholder): unknown;
  /** the rows the recorded answer held */
  rows: number | undefined;
}

/** Top-level arguments: each key by what it means to a tool. */
function fillObject(args: Record<string, unknown>, context: Context): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    // a cursor belongs to an answer of the recorded session: the replay starts at the first page
    if (key === 'cursor' && placeholderOf(value)) continue;
    out[key] = fillKey(key, value, context);
  }
  return out;
}

function fillKey(key: string, value: unknown, context: Context): unknown {
  const shape = placeholderOf(value);
  if (key === 'key') {
    if (shape) return context.columnValue('id', shape);
    if (isObject(value)) return mapValues(value, (column, v) => fillValue(v, context, column));
  }
  if (key === 'filter' || key === 'having') return fillFilter(value, context);
  if (key === 'limit' && shape) return Math.max(1, context.rows ?? DEFAULT_LIMIT);
  if (key === 'offset' && shape) return 0;
  return fillValue(value, context, undefined);
}

/** Any value: a placeholder under a column's name (an insert's `values`) takes that column's value. */
function fillValue(value: unknown, context: Context, column: string | undefined): unknown {
  const shape = placeholderOf(value);
  if (shape)
    return column !== undefined && context.row?.has(column) ? context.columnValue(column, shape) : typed(shape);
  if (Array.isArray(value)) return value.map((v) => fillValue(v, context, column));
  if (isObject(value)) return mapValues(value, (k, v) => fillValue(v, context, k));
  return value;
}

/** A filter tree (as `shapeOf` keeps it): groups walked, each predicate's values from its column; `under` a `not`. */
function fillFilter(node: unknown, context: Context, under = false): unknown {
  if (!isObject(node)) return fillValue(node, context, undefined);
  if (Array.isArray(node.and)) return { and: node.and.map((n) => fillFilter(n, context, under)) };
  if (Array.isArray(node.or)) return { or: node.or.map((n) => fillFilter(n, context, under)) };
  if ('not' in node) return { not: fillFilter(node.not, context, !under) };
  const { column, op, value } = node;
  if (typeof column !== 'string' || !('value' in node)) return node;
  // under a `not`, or a negated operator, the row's own value would exclude it
  const negated = under !== (typeof op === 'string' && (op === '!=' || op.startsWith('not ')));
  const one = (v: unknown) => {
    const shape = placeholderOf(v);
    if (!shape) return v;
    return negated ? context.otherValue(column, shape) : context.columnValue(column, shape);
  };
  // between x and x holds the row; a list holds the row's value first (negated: values of other rows)
  if (Array.isArray(value)) {
    const first = value.map(one);
    return { column, op, value: op === 'between' || op === 'not between' ? [first[0], first[0]] : first };
  }
  const filled = one(value);
  return {
    column,
    op,
    value: (op === 'like' || op === 'not like') && typeof filled === 'string' ? literal(filled) : filled,
  };
}

/** A like pattern that matches exactly the text (its wildcards and backslashes escaped). */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A dataset value in the type the host sent there. */
function as(value: Value, shape: Placeholder): unknown {
  switch (shape.type) {
    case 'string':
      return String(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : typed(shape);
    default: {
      const n = Number(value);
      return typeof value !== 'boolean' && Number.isFinite(n) ? n : typed(shape);
    }
  }
}

/** A value of the placeholder's type when no column says more: a string of its length, 1, true. */
export function typed(shape: Placeholder): unknown {
  switch (shape.type) {
    case 'string':
      return 'x'.repeat(shape.length);
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapValues(
  object: Record<string, unknown>,
  map: (key: string, value: unknown) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, map(k, v)]));
}
