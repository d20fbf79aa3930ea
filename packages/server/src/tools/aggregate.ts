import {
  type AggregateInput,
  type AggregateOutput,
  type AggregateSpec,
  aggregateOutputName,
  aggregateSpec,
  type PortableValue,
  ToolError,
} from '@mcp-db-bench/contract';
import type { AnyDb, AnySelect, Engine } from '@mcp-db-bench/engines';
import { type Expression, type RawBuilder, sql } from 'kysely';
import { checkStatementParameters } from '../bound-values.js';
import type { Catalog, Table } from '../catalog/types.js';
import { filterParams, type Operand, type OperandResolver } from '../filter/compile.js';
import { type DecodeTarget, decodeValue } from '../output/decode.js';
import { resolveColumn, resolveTable } from '../query/names.js';
import { type OrderKey, orderTerms, parseOrderTerm } from '../query/order.js';
import {
  columnResolver,
  columnTypes,
  effectiveLimit,
  orderable,
  readFilter,
  requireOrderable,
  whereClause,
} from '../query/select.js';
import { compileShape, filterShape } from '../query/shapes.js';
import { defineTool, type Limits, READ_ONLY } from './tool.js';

export const aggregate = defineTool(aggregateSpec, {
  title: 'Aggregate rows',
  description: 'count, sum, avg, min, max over one table, optionally grouped; avg rounded to 6 places.',
  annotations: READ_ONLY,
  async run(args, ctx) {
    const plan = planAggregate(args, await ctx.schema.get(), ctx.engine, ctx.db, ctx.limits);
    return plan.finish((await ctx.db.executeQuery<Record<string, unknown>>(plan.compiled)).rows);
  },
});

/** One output column: its SQL, how to render it, and whether it can be null. */
interface Output extends Operand {
  name: string;
  nullable: boolean;
  /** the values its SQL binds, in order */
  params: readonly unknown[];
  render(raw: unknown): PortableValue;
}

const NUMERIC = new Set(['integer', 'decimal', 'float']);

export function planAggregate(args: AggregateInput, catalog: Catalog, engine: Engine, db: AnyDb, limits: Limits) {
  const table = resolveTable(catalog, args.table);
  const groups = groupOutputs(table, args.group_by ?? []);
  const outputs = [...groups];
  args.aggregates.forEach((spec, i) => {
    const out = aggregateOutput_(table, spec, `aggregates[${i}]`, engine);
    if (outputs.some((o) => o.name === out.name)) {
      throw new ToolError(
        'invalid_argument',
        `aggregates[${i}]: output name ${out.name} is taken; give it another with "as"`,
      );
    }
    outputs.push(out);
  });
  const byName: OperandResolver = (name, path) => {
    const out =
      outputs.find((o) => o.name === name) ?? outputs.find((o) => o.name.toLowerCase() === name.toLowerCase());
    if (out) return out;
    throw new ToolError(
      'unknown_column',
      `${path}: '${name.slice(0, 80)}' is not an output; outputs: ${outputs.map((o) => o.name).join(', ')}`,
    );
  };
  const limit = effectiveLimit(args.limit, limits);
  const filter = readFilter(args.filter);
  const having = readFilter(args.having, 'having');
  const keys = orderKeys(args.order_by ?? [], groups, byName);

  const specs = args.aggregates.map((a) => [a.fn, a.column ?? null, a.as ?? null]);
  const shape = JSON.stringify([
    'aggregate',
    engine.name,
    table.name,
    groups.map((g) => g.name),
    specs,
    filterShape(filter),
    filterShape(having),
    keys,
    limit,
  ]);
  const compiled = compileShape(
    catalog,
    shape,
    () => [
      ...outputs.flatMap((o) => o.params),
      ...(filter ? filterParams(filter, columnTypes(table), engine) : []),
      ...(having ? filterParams(having, (name, path) => byName(name, path).type, engine, 'having') : []),
      ...(engine.limitIn === 'parameter' ? [limit + 1] : []),
    ],
    () => {
      let q: AnySelect = db
        .selectFrom(sql.id(table.name).as('t'))
        .select(outputs.map((o) => (o.expr as RawBuilder<unknown>).as(o.name)));
      const where = whereClause([filter], columnResolver(table), engine);
      if (where) q = q.where(where);
      if (groups.length) q = q.groupBy(groups.map((g) => g.expr));
      const after = whereClause([having], byName, engine, 'having');
      if (after) q = q.having(after);
      for (const key of keys)
        for (const term of orderTerms(byName(key.name, 'order_by').expr, key)) q = q.orderBy(term);
      return engine.limit(q, limit + 1).compile();
    },
  );

  return {
    compiled: checkStatementParameters(compiled, engine),
    finish(raw: Record<string, unknown>[]): AggregateOutput {
      const page = raw.slice(0, limit);
      return {
        columns: outputs.map((o) => o.name),
        rows: page.map((r) => Object.fromEntries(outputs.map((o) => [o.name, o.render(r[o.name])]))),
        truncated: raw.length > limit,
      };
    },
  };
}

function groupOutputs(table: Table, names: readonly string[]): Output[] {
  const outputs: Output[] = [];
  names.forEach((name, i) => {
    const c = requireOrderable(resolveColumn(table, name, `group_by[${i}]`), `group_by[${i}]`);
    if (!outputs.some((o) => o.name === c.name)) outputs.push(output(c.name, sql.id(c.name), c, c.nullable));
  });
  return outputs;
}

/** An output column rendered by the portable rules of `target`. */
function output(
  name: string,
  expr: Expression<unknown>,
  target: DecodeTarget,
  nullable: boolean,
  params: readonly unknown[] = [],
): Output {
  return {
    name,
    expr,
    type: target.type,
    scale: target.scale,
    nullable,
    params,
    render: (raw) => decodeValue(target, raw),
  };
}

const COUNT: DecodeTarget = { type: 'integer', scale: null };

function aggregateOutput_(table: Table, spec: AggregateSpec, where: string, engine: Engine): Output {
  const { fn } = spec;
  if (spec.column === undefined) {
    if (fn !== 'count') throw new ToolError('invalid_argument', `${where}: ${fn} needs a column`);
    return output(aggregateOutputName(spec), sql`count(*)`, COUNT, false);
  }
  const c = resolveColumn(table, spec.column, `${where}.column`);
  const name = aggregateOutputName(spec, c.name);
  const id = sql.id(c.name);
  if ((fn === 'sum' || fn === 'avg') && !NUMERIC.has(c.type)) {
    throw new ToolError('type_mismatch', `${where}: ${fn} needs a numeric column; ${c.name} is ${c.type}`);
  }
  if ((fn === 'min' || fn === 'max') && !orderable(c)) {
    throw new ToolError('type_mismatch', `${where}: ${fn} cannot compare ${c.type} values (${c.name})`);
  }
  if (fn === 'count') return output(name, sql`count(${id})`, COUNT, false);
  // `* 1.0e0` keeps SQL Server from averaging integers with integer division, and MySQL from
  // averaging them as decimals with only div_precision_increment (4) more places than 1.0 has.
  if (fn === 'avg')
    return { ...output(name, sql`avg(${id} * 1.0e0)`, { type: 'float', scale: null }, true), render: roundAverage };
  // sum, min and max keep the column's type (a sum of decimals keeps their scale)
  if (c.type !== 'boolean') return output(name, sql`${sql.raw(fn)}(${id})`, c, true);
  // PostgreSQL has no min/max over booleans: compare them as 1 and 0 on every engine.
  const yes = engine.encodeParam('boolean', true);
  return output(name, sql`${sql.raw(fn)}(case when ${id} = ${yes} then 1 when ${id} is not null then 0 end)`, c, true, [
    yes,
  ]);
}

/** Engines average in different arithmetic (exact decimal, double); six places make them agree. */
function roundAverage(raw: unknown): PortableValue {
  if (raw === null || raw === undefined) return null;
  const n = Number(raw);
  return Number.isFinite(n) ? Number(n.toFixed(6)) : String(raw);
}

/** The caller's sort keys over outputs, then the group columns so the order is total. */
function orderKeys(terms: readonly string[], groups: readonly Output[], resolve: OperandResolver): OrderKey[] {
  const keys: OrderKey[] = [];
  terms.forEach((term, i) => {
    const { name, direction } = parseOrderTerm(term, `order_by[${i}]`);
    const out = resolve(name, `order_by[${i}]`) as Output;
    if (!keys.some((k) => k.name === out.name)) keys.push({ name: out.name, direction, nullable: out.nullable });
  });
  for (const g of groups)
    if (!keys.some((k) => k.name === g.name)) keys.push({ name: g.name, direction: 'asc', nullable: g.nullable });
  return keys;
}
