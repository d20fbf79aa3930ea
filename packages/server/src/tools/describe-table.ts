import { describeTableSpec } from '@mcp-db-bench/contract';
import { resolveTable } from '../query/names.js';
import { defineTool, READ_ONLY } from './tool.js';

export const describeTable = defineTool(describeTableSpec, {
  title: 'Describe a table',
  description: 'Columns (type, nullability, default), keys, foreign keys and indexes of one table or view.',
  annotations: READ_ONLY,
  catalogOnly: true,
  async run(args, ctx) {
    const t = resolveTable(await ctx.schema.get(), args.table);
    return {
      name: t.name,
      kind: t.kind,
      rows: t.rows,
      columns: t.columns.map((c) => ({
        name: c.name,
        type: c.type,
        precision: c.precision,
        scale: c.scale,
        nullable: c.nullable,
        default: c.default,
        auto_increment: c.autoIncrement,
      })),
      primary_key: t.primaryKey,
      foreign_keys: t.foreignKeys,
      referenced_by: t.referencedBy,
      indexes: t.indexes.map((i) => ({ columns: i.columns, unique: i.unique })),
    };
  },
});
