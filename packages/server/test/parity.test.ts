import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { FILTER_OPS, type FilterNode, parseFilter } from '@mcp-db-bench/contract';
import { ENGINES } from '@mcp-db-bench/engines';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadParityFixture, PARITY_DIR } from './support/fixture.js';
import { type CallOutcome, callJson, connectClient } from './support/mcp.js';

/**
 * The parity suite: the fixture loaded into every live engine, the catalog of calls run
 * through a real MCP client over stdio against the built bin, and every answer compared
 * byte for byte with its golden file. An engine may differ only where differences.json says
 * so, with the reason and the exact output it gives instead.
 *
 * UPDATE_GOLDEN=1 rewrites the golden files from the first engine tested (embedded ones come
 * first; for a call it is listed as differing on, from the next) and the outputs recorded in
 * differences.json; every
 * other engine must still equal what was written.
 */
interface CatalogCall {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  /** follow next_cursor to the last page; the outcome is every page */
  pages?: boolean;
  /** use the first next_cursor of this earlier call as args.cursor */
  cursor_from?: string;
}

interface Difference {
  engine: string;
  call: string;
  reason: string;
  output: unknown;
}

type Outcome = CallOutcome | { pages: CallOutcome[] };

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const GOLDEN_DIR = new URL('golden/', PARITY_DIR);
const DIFFERENCES_FILE = new URL('differences.json', PARITY_DIR);
const MAX_PAGES = 50;

const catalog = JSON.parse(readFileSync(new URL('catalog.json', PARITY_DIR), 'utf8')) as CatalogCall[];
const differences = JSON.parse(readFileSync(DIFFERENCES_FILE, 'utf8')) as Difference[];
const targets = liveTargets();

/** Every engine's outcomes, by call id, for the update step and for cursor_from. */
const outcomes = new Map<string, Map<string, Outcome>>();

/**
 * Golden-file layout: objects and arrays one entry per line, except that an object or array
 * of plain values (a row, a column list) stays on one line, so diffs show changed rows.
 */
function formatGolden(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Array.isArray(value) ? value.map((v) => [null, v] as const) : Object.entries(value);
  if (entries.every(([, v]) => v === null || typeof v !== 'object')) return JSON.stringify(value);
  const inner = `${indent}  `;
  const lines = entries.map(
    ([k, v]) => `${inner}${k === null ? '' : `${JSON.stringify(k)}: `}${formatGolden(v, inner)}`,
  );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${lines.join(',\n')}\n${indent}${close}`;
}

const goldenFile = (id: string) => new URL(`${id}.json`, GOLDEN_DIR);
const readGolden = (id: string): unknown => JSON.parse(readFileSync(goldenFile(id), 'utf8'));
const differenceFor = (engine: string, id: string) => differences.find((d) => d.engine === engine && d.call === id);

async function run(client: Client, call: CatalogCall, earlier: Map<string, Outcome>): Promise<Outcome> {
  const args = { ...call.args };
  if (call.cursor_from) {
    const source = earlier.get(call.cursor_from);
    const first = source && 'pages' in source ? source.pages[0] : source;
    const cursor = first?.data.next_cursor;
    if (typeof cursor !== 'string') throw new Error(`${call.id}: ${call.cursor_from} gave no next_cursor`);
    args.cursor = cursor;
  }
  if (!call.pages) return callJson(client, call.tool, args);
  const pages: CallOutcome[] = [];
  for (let cursor: unknown = args.cursor; pages.length < MAX_PAGES; ) {
    const page = await callJson(client, call.tool, cursor === undefined ? args : { ...args, cursor });
    pages.push(page);
    cursor = page.data.next_cursor;
    if (page.isError || cursor === null) return { pages };
  }
  throw new Error(`${call.id}: more than ${MAX_PAGES} pages`);
}

describe('the parity catalog', () => {
  it('covers every tool with at least 150 uniquely named calls', () => {
    const ids = catalog.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[a-z0-9][a-z0-9._-]*$/.test(id))).toBe(true);
    expect(new Set(catalog.map((c) => c.tool))).toEqual(
      new Set(['list_tables', 'describe_table', 'query', 'get', 'aggregate']),
    );
    expect(catalog.length).toBeGreaterThanOrEqual(150);
  });

  it('uses every filter operator in both filter forms', () => {
    const used = { string: new Set<string>(), object: new Set<string>() };
    const collect = (node: FilterNode, into: Set<string>): void => {
      if ('and' in node) for (const n of node.and) collect(n, into);
      else if ('or' in node) for (const n of node.or) collect(n, into);
      else if ('not' in node) collect(node.not, into);
      else into.add(node.op);
    };
    for (const { args } of catalog) {
      for (const filter of [args.filter, args.having]) {
        if (typeof filter !== 'string' && (typeof filter !== 'object' || filter === null)) continue;
        try {
          collect(parseFilter(filter), typeof filter === 'string' ? used.string : used.object);
        } catch {
          // error cases: their filters are meant not to parse
        }
      }
    }
    expect([...used.string].sort()).toEqual([...FILTER_OPS].sort());
    expect([...used.object].sort()).toEqual([...FILTER_OPS].sort());
  });

  it('lists each difference once, for a known call, with a reason', () => {
    const ids = new Set(catalog.map((c) => c.id));
    const seen = new Set<string>();
    for (const d of differences) {
      expect(ids.has(d.call), d.call).toBe(true);
      expect(ENGINES.map((e) => e.name)).toContain(d.engine);
      expect(d.reason.length).toBeGreaterThan(20);
      expect(seen.has(`${d.engine} ${d.call}`)).toBe(false);
      seen.add(`${d.engine} ${d.call}`);
    }
  });

  // (while updating, the golden files are rewritten at the end)
  if (!UPDATE)
    it('has exactly one golden file per call', () => {
      const files = readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.json'));
      expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual(catalog.map((c) => c.id).sort());
    });
});

describe.each(targets)('$engine', (target) => {
  let client: Client;
  const mine = new Map<string, Outcome>();
  outcomes.set(target.engine, mine);

  beforeAll(async () => {
    const dbUrl = await freshDatabase(target, 'bench_parity');
    await loadParityFixture(dbUrl);
    client = await connectClient('stdio', 'modern', { dbUrl });
  });
  afterAll(async () => {
    await client?.close();
  });

  it.each(catalog)('$id', async (call) => {
    const outcome = await run(client, call, mine);
    mine.set(call.id, outcome);
    if (UPDATE) return;
    const difference = differenceFor(target.engine, call.id);
    const golden = readGolden(call.id);
    if (difference) {
      // A difference that went away must be deleted from the list, not kept as folklore.
      expect(formatGolden(outcome), `${call.id} now equals the golden file: remove it from differences.json`).not.toBe(
        formatGolden(golden),
      );
      expect(formatGolden(outcome)).toBe(formatGolden(difference.output));
    } else {
      expect(formatGolden(outcome)).toBe(formatGolden(golden));
    }
  });

  // Whatever the golden files say: a paged read's pages hold the rows of one page as large as
  // them all, each once, in the same order.
  it.each(catalog.filter((c) => c.pages && !c.cursor_from))(
    '$id: every row once, in order, across pages',
    async (call) => {
      const paged = mine.get(call.id) as { pages: CallOutcome[] };
      expect(paged.pages.map((p) => p.isError)).not.toContain(true);
      const whole = await callJson(client, call.tool, { ...call.args, limit: 1000 });
      expect(whole.data.truncated).toBe(false);
      const rows = paged.pages.flatMap((p) => p.data.rows as unknown[]);
      expect(rows).toEqual(whole.data.rows);
      expect(paged.pages.length).toBeGreaterThan(1);
    },
  );
});

// Registered only when updating, so a normal run reports no skipped test.
if (UPDATE)
  describe('UPDATE_GOLDEN', () => {
    it('writes each golden file from SQLite and checks every other engine against it', () => {
      rmSync(GOLDEN_DIR, { recursive: true, force: true });
      mkdirSync(GOLDEN_DIR, { recursive: true });
      const mismatches: string[] = [];
      for (const call of catalog) {
        const reference = targets.find((t) => !differenceFor(t.engine, call.id));
        if (!reference) throw new Error(`${call.id}: every live engine is listed as differing`);
        const golden = formatGolden(outcomes.get(reference.engine)!.get(call.id)!);
        writeFileSync(goldenFile(call.id), `${golden}\n`);
        for (const t of targets) {
          const outcome = outcomes.get(t.engine)!.get(call.id)!;
          const difference = differenceFor(t.engine, call.id);
          if (difference) difference.output = outcome;
          if ((formatGolden(outcome) === golden) === Boolean(difference)) {
            mismatches.push(
              `${t.engine} ${call.id}: ${difference ? 'listed as differing but equal' : 'differs from the golden file'}`,
            );
          }
        }
      }
      writeFileSync(DIFFERENCES_FILE, `${formatGolden(differences)}\n`);
      expect(mismatches).toEqual([]);
    });
  });
