import { readFileSync } from 'node:fs';
import { Random } from '@mcp-db-bench/contract';
import { engineForUrl } from '@mcp-db-bench/engines';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseContext, openDatabase } from '../src/context.js';
import { callTool } from '../src/server.js';
import { SQL_TOOLS } from '../src/tools/index.js';
import { loadShop } from './support/shop.js';

/**
 * Hostile sql texts and parameters, from the attack corpus and from fragments that open and close
 * each engine's quotes, names and comments around `:name` parameters (`[:x]`, `E'\\':x'`, `$$`,
 * `--\x7f`, `?`, `$1`, `@a`): each is answered with a documented error or rows, never
 * `internal_error` (a bug) and never `database_unavailable` (the database is there).
 */
const corpus = JSON.parse(
  readFileSync(new URL('../../../fixtures/attacks/injection.json', import.meta.url), 'utf8'),
) as {
  payloads: { text: string }[];
  sqlTexts: { text: string }[];
};

const TEMPLATES = [
  'select :v as v, %P',
  "select '%P' as v, :v as w",
  'select 1 as [%P], :v as w',
  'select 1 as "%P", :v as w',
  'select 1 as `%P`, :v as w',
  'select /* %P */ :v as w',
  'select 1 -- %P\n, :v as w',
  'select $$%P$$ as v, :v as w',
  "select E'%P' as v, :v as w",
];
const FRAGMENTS = [
  ':x',
  ':y',
  '[',
  ']',
  "'",
  '"',
  '`',
  '$$',
  '$a$',
  "E'",
  '\\',
  '--',
  '#',
  '/*',
  '*/',
  '?',
  '$1',
  '@a',
  '::',
  ':=',
  '\n',
  '\r',
  '\x7f',
  ' ',
  '1',
  'x',
  ',',
  '(',
  ')',
  ';',
  'as',
  "U&'",
  '/*!',
  '/*+',
  '--\x7f',
  "''",
  '\u00a0',
];
const PARAMS = [{}, { x: 1 }, { x: 'a', y: 2 }, { x: null }, { x: true }, { x: 1.5 }, { v: 1 }];

/** The calls: every corpus text, every payload in every template, and `generated` texts of fragments (seeded). */
function calls(generated: number): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = corpus.sqlTexts.map((s) => [s.text, { x: 1 }]);
  for (const p of corpus.payloads) for (const t of TEMPLATES) out.push([t.replace('%P', p.text), { v: 1 }]);
  const random = new Random(53);
  const next = (n: number) => random.int(0, n - 1);
  for (let k = 0; k < generated; k++) {
    let text = 'select ';
    for (let i = 1 + next(8); i > 0; i--) text += FRAGMENTS[next(FRAGMENTS.length)];
    out.push([text, PARAMS[next(PARAMS.length)]!]);
  }
  return out;
}

const sqlTool = SQL_TOOLS.find((t) => t.name === 'sql')!;
const targets = liveTargets().filter((t) => engineForUrl(t.baseUrl).readOnlyStatement);

describe.each(targets)('$engine: hostile sql never reaches internal_error', (target) => {
  let ctx: DatabaseContext;
  beforeAll(async () => {
    const url = await freshDatabase(target, 'bench_sql_fuzz');
    await loadShop(url);
    ctx = await openDatabase({ url, statementTimeoutMs: 5_000, sql: { poolSize: 2, waitMs: 5_000 } });
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
  });

  it('answers each with rows or a documented error', async () => {
    const bad: string[] = [];
    const codes = new Map<string, number>();
    for (const [text, params] of calls(600)) {
      const result = await callTool(sqlTool, { sql: text, params }, ctx);
      const body = JSON.parse((result.content[0] as { text: string }).text) as {
        error?: { code: string; message: string };
      };
      const code = result.isError ? body.error!.code : 'ok';
      codes.set(code, (codes.get(code) ?? 0) + 1);
      if (code === 'internal_error' || code === 'database_unavailable')
        bad.push(`${JSON.stringify(text)} ${JSON.stringify(params)}: ${body.error!.message.slice(0, 120)}`);
    }
    expect(bad).toEqual([]);
    // the texts are mostly refused, but not all: the corpus's harmless ones and many fragments run
    expect(codes.get('ok')).toBeGreaterThan(100);
  }, 600_000);

  it('answers select 1 as [:x] with its row where [...] names a column, else with a syntax error', async () => {
    const result = await callTool(sqlTool, { sql: 'select 1 as [:x], :x as y', params: { x: 7 } }, ctx);
    const body = JSON.parse((result.content[0] as { text: string }).text);
    if (ctx.engine.lexicon.identifiers['['])
      expect(body).toMatchObject({ columns: [':x', 'y'], rows: [{ ':x': 1, y: 7 }] });
    else expect(body).toMatchObject({ error: { code: 'database_error' } });
  });
});
