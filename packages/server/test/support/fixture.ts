import { readFileSync } from 'node:fs';
import type { Scalar } from '@mcp-db-bench/contract';
import { type Engine, engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';
import { sql } from 'kysely';

/**
 * The parity fixture (fixtures/parity in the repository): the rows once, as portable JSON, and
 * the DDL in each family's test facts (`paritySchema`). Rows are bound through the engine's own encodeParam, with the
 * portable types introspection reports, so loading goes through the same rules as filtering.
 */
export const PARITY_DIR = new URL('../../../../fixtures/parity/', import.meta.url);

export type FixtureRows = Record<string, Record<string, Scalar>[]>;

export function parityRows(): FixtureRows {
  return JSON.parse(readFileSync(new URL('rows.json', PARITY_DIR), 'utf8')) as FixtureRows;
}

/** Statements of a DDL file: `--` comment lines dropped, split at a `;` that ends a line. */
export function ddlStatements(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Creates the fixture's tables and view in an empty database and loads its rows. */
export async function loadParityFixture(url: string, engine: Engine<string> = engineForUrl(url)): Promise<void> {
  // One connection: SQL Server's `set identity_insert` at the end of its DDL lasts for the session.
  const { db, close } = await engine.connect(url, { poolSize: 1, create: true });
  try {
    for (const statement of ddlStatements(testFactsOf(engine).paritySchema)) await sql.raw(statement).execute(db);
    const { columns } = await engine.introspect(db);
    for (const [table, rows] of Object.entries(parityRows())) {
      const typeOf = new Map(columns.filter((c) => c.table === table).map((c) => [c.name, c.type]));
      const encoded = rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([name, value]) => {
            const type = typeOf.get(name);
            if (!type) throw new Error(`rows.json: ${table}.${name} is not a column of the ${engine.family} fixture`);
            return [name, value === null ? null : engine.encodeParam(type, value)];
          }),
        ),
      );
      for (let i = 0; i < encoded.length; i += 25)
        await db
          .insertInto(table)
          .values(encoded.slice(i, i + 25))
          .execute();
    }
  } finally {
    await close();
  }
}
