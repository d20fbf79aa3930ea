import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection, Engine } from '../src/engine.js';
import { mariadb } from '../src/mariadb/index.js';
import { postgres } from '../src/postgres/index.js';
import { sqlite } from '../src/sqlite/index.js';
import { freshDatabase, liveUrl } from './support/databases.js';

/**
 * Which indexes introspection reports as `ordered`: those whose entries hold every row in
 * ascending order of their columns' whole values, as ORDER BY orders them, which is what lets
 * `query` give rows in an index's order without a sort (the server's query/index-order.ts). Every
 * other kind (descending, partial, prefix, hash, full-text, an expression, another collation) is
 * reported, and not as ordered.
 */
interface Live {
  engine: Engine;
  url?: string;
  ddl: string[];
  /** index name → ordered */
  expected: Record<string, boolean>;
}

const live: Live[] = [
  {
    engine: sqlite,
    url: 'sqlite:',
    ddl: [
      'create table ord (id integer primary key, a int not null, b text not null, c text not null)',
      'create index ord_plain on ord (a, b)',
      'create unique index ord_unique on ord (c, a)',
      'create index ord_desc on ord (a desc)',
      'create index ord_nocase on ord (b collate nocase)',
      'create index ord_partial on ord (c) where a > 0',
      'create index ord_expression on ord (a + 1)',
    ],
    expected: {
      ord_plain: true,
      ord_unique: true,
      ord_desc: false,
      ord_nocase: false,
      ord_partial: false,
      ord_expression: false,
    },
  },
  {
    engine: postgres,
    url: liveUrl(postgres),
    ddl: [
      'create table ord (id int primary key, a int not null, b varchar(50) not null, c varchar(50) not null)',
      'create index ord_plain on ord (a, b)',
      'create unique index ord_unique on ord (c, a)',
      'create index ord_desc on ord (a desc)',
      'create index ord_nulls_first on ord (b nulls first)',
      'create index ord_hash on ord using hash (c)',
      'create index ord_partial on ord (c) where a > 0',
      'create index ord_collation on ord (b collate "POSIX")',
    ],
    expected: {
      ord_plain: true,
      ord_unique: true,
      ord_desc: false,
      ord_nulls_first: false,
      ord_hash: false,
      ord_partial: false,
      ord_collation: false,
    },
  },
  {
    engine: mariadb,
    url: liveUrl(mariadb),
    ddl: [
      `create table ord (id int primary key, a int not null, b varchar(50) not null, c text not null, d int not null,
        key ord_plain (a, b), unique key ord_unique (d, a), key ord_desc (d desc), key ord_prefix (b(10)),
        fulltext key ord_fulltext (c)) engine=InnoDB`,
    ],
    expected: { ord_plain: true, ord_unique: true, ord_desc: false, ord_prefix: false, ord_fulltext: false },
  },
];

describe.each(live.filter((l) => l.url))('$engine.title: indexes in the order of their columns', (target) => {
  let conn: Connection;

  beforeAll(async () => {
    const url = await freshDatabase(target.engine, target.url!, 'bench_engines_ordered');
    conn = await target.engine.connect(url, { poolSize: 1, create: true });
    await sql.raw('drop table if exists ord').execute(conn.db);
    for (const statement of target.ddl) await sql.raw(statement).execute(conn.db);
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('reports each index, ordered only when a plain ascending B-tree over every row', async () => {
    const catalog = await target.engine.introspect(conn.db);
    const found = Object.fromEntries(catalog.indexes.filter((i) => i.table === 'ord').map((i) => [i.name, i.ordered]));
    expect(found).toEqual(target.expected);
  });
});
