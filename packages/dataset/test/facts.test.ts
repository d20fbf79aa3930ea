import { engineForUrl } from '@mcp-db-bench/engines';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyIndexSet, datasetFacts, INDEX_SETS, seed } from '../src/index.js';

/** What a run records of a database, read from it: the dataset's mark, its indexes, the engine's version and settings. */
const SCALE = 0.002;
const SEED = 7;
/** re-indexing twice is real work on a shared machine (PGlite took 6 s under load): a bound, not a speed target */
const LOAD_TIMEOUT_MS = 60_000;

/** The settings each engine family is expected to report (the engines' own folders say which). */
const SETTINGS: Record<string, string[]> = {
  sqlite: ['cache_size', 'journal_mode', 'mmap_size'],
  postgres: ['effective_cache_size', 'jit', 'shared_buffers', 'work_mem'],
  mysql: ['innodb_adaptive_hash_index', 'innodb_buffer_pool_size'],
};

describe.each(liveTargets())('$engine', (target) => {
  let url = '';

  beforeAll(async () => {
    url = await freshDatabase(target, 'bench_facts');
    await seed({ url, scale: SCALE, seed: SEED, indexes: 'baseline', force: false });
  }, LOAD_TIMEOUT_MS);

  const read = async () => {
    const engine = engineForUrl(url);
    const connection = await engine.connect(url, { poolSize: 1, inProcess: true });
    try {
      return { dataset: await datasetFacts(connection, engine), engine: await engine.settings!(connection.db) };
    } finally {
      await connection.close();
    }
  };

  it('reads the scale and seed from the marker and the indexes from the catalog, per profile', {
    timeout: LOAD_TIMEOUT_MS,
  }, async () => {
    const baseline = (await read()).dataset;
    expect(baseline).toMatchObject({ scale: SCALE, seed: SEED });
    // baseline has none of the optimized profile's indexes; an engine may keep its own (InnoDB's foreign-key indexes)
    const optimizedNames = INDEX_SETS.optimized.map((i) => `${i.table}.${i.name}`);
    expect(baseline.indexes.filter((i) => optimizedNames.includes(i))).toEqual([]);
    await applyIndexSet(url, 'optimized');
    const optimized = (await read()).dataset;
    expect(optimized.indexes).toEqual(expect.arrayContaining(optimizedNames));
    expect(optimized.indexes).toHaveLength(baseline.indexes.length + optimizedNames.length);
    await applyIndexSet(url, 'baseline');
    expect((await read()).dataset.indexes).toEqual(baseline.indexes);
  });

  it('reads the version and the settings that decide a result', async () => {
    const { engine } = await read();
    const family = engineForUrl(url).family;
    expect(engine.version).toMatch(/^(SQLite|PostgreSQL|MariaDB|MySQL) \d+\.\d+/);
    expect(Object.keys(engine.settings).sort()).toEqual(SETTINGS[family]);
    for (const value of Object.values(engine.settings)) expect(value).toMatch(/\S/);
  });
});
