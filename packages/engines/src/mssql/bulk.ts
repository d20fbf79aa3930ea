import type { BulkLoader } from '../engine.js';

/**
 * Multi-row INSERTs through kysely, sized under SQL Server's 2,100-parameter limit. Not the
 * bulk-load protocol (tedious' BulkLoad), which would be faster; it is not verified here
 * because SQL Server cannot run on the build machine.
 */
export const bulk: BulkLoader = {
  foreignKeys: 'after',
  columnType(c) {
    if (c.type === 'integer') return c.generated ? 'int identity(1,1)' : 'int';
    if (c.type === 'decimal') return `decimal(${c.size},${c.scale})`;
    if (c.type === 'text') return `nvarchar(${c.size})`;
    if (c.type === 'boolean') return 'bit';
    if (c.type === 'timestamp') return 'datetime2(0)';
    throw new Error(`no SQL Server type for ${c.type}`);
  },
  async load(connection, table, rows, progress) {
    const perInsert = Math.floor(2000 / table.columns.length);
    const names = table.columns.map((c) => c.name);
    for (const batch of rows) {
      for (let i = 0; i < batch.length; i += perInsert) {
        const values = batch.slice(i, i + perInsert).map((row) => Object.fromEntries(names.map((n, j) => [n, row[j]])));
        await connection.db.insertInto(table.name).values(values).execute();
      }
      progress(batch.length);
    }
  },
  analyze: (table) => [`update statistics [${table}]`],
  dropIndex: (name, table) => `drop index if exists [${name}] on [${table}]`,
};
