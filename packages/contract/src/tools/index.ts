import { aggregateSpec } from './aggregate.js';
import { describeTableSpec } from './describe-table.js';
import { echoSpec } from './echo.js';
import { getSpec } from './get.js';
import { listTablesSpec } from './list-tables.js';
import { querySpec } from './query.js';
import { sqlSpec } from './sql.js';
import { deleteSpec, insertSpec, transactSpec, updateSpec } from './write.js';

export * from './aggregate.js';
export * from './describe-table.js';
export * from './echo.js';
export * from './get.js';
export * from './list-tables.js';
export * from './query.js';
export * from './sql.js';
export * from './write.js';

/** Every tool's contract, in the order servers list them. A new tool is its file, exported above and listed here. */
export const TOOL_SPECS = [
  listTablesSpec,
  describeTableSpec,
  querySpec,
  getSpec,
  aggregateSpec,
  insertSpec,
  updateSpec,
  deleteSpec,
  transactSpec,
  sqlSpec,
  echoSpec,
] as const;

export type ToolName = (typeof TOOL_SPECS)[number]['name'];

/** `list_tables` → `listTables`. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The tools by name in camelCase, for code that names one: `TOOL_NAMES.listTables` is 'list_tables'. */
export const TOOL_NAMES = Object.fromEntries(
  TOOL_SPECS.map((spec) => [spec.name.replace(/_(.)/g, (_, c: string) => c.toUpperCase()), spec.name]),
) as { readonly [N in ToolName as CamelCase<N>]: N };
