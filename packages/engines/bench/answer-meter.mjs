#!/usr/bin/env node
// What counting an answer's bytes while it is read (src/answer-bytes.ts) costs a point read on
// PostgreSQL, two ways (run `pnpm build` first: this imports the built package):
//
//   node bench/answer-meter.mjs [--chunks 2000000]
//       the meter alone (RowBytes, the protocol's framing) on the chunk a point read receives,
//       against pg's own parse of the same chunk, which every read pays anyway; nanoseconds each
//   node bench/answer-meter.mjs --url postgres://USER:PASS@HOST:5432/DB [--before PATH] [--reads 20000]
//                               [--rounds 10] [--inflight 1,10]
//       the CPU this process spends per point read through the read tools' path (the pipelined
//       lane and its pool) with answers metered, against another build's engines without (--before,
//       e.g. an earlier commit's packages/engines/dist/index.js) or this build with no limit;
//       rounds alternate, and CPU time, not wall time, is compared, since other processes share
//       the cores. The database is one `mcp-db-bench seed` made (its orders table).
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { median } from '@mcp-db-bench/contract';
import { RowBytes } from '@mcp-db-bench/engines/testing';
import { sql } from 'kysely';

const { values: opts } = parseArgs({
  options: {
    chunks: { type: 'string', default: '2000000' },
    url: { type: 'string' },
    before: { type: 'string' },
    reads: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '10' },
    inflight: { type: 'string', default: '1,10' },
  },
});

/**
 * A message: its type, then its length (counting itself) and body.
 * @param {string} type
 * @param {Buffer} body
 */
function message(type, body) {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** What a named statement's point read receives: BindComplete, one DataRow of 8 fields, CommandComplete, ReadyForQuery. */
function pointReadChunk() {
  const fields = ['42817', '1201', '2024-03-01 10:00:00+00', 'shipped', '123.45', '3', 'card', 'note'];
  const count = Buffer.alloc(2);
  count.writeUInt16BE(fields.length);
  const parts = [count];
  for (const f of fields) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(Buffer.byteLength(f));
    parts.push(len, Buffer.from(f));
  }
  return Buffer.concat([
    message('2', Buffer.alloc(0)),
    message('D', Buffer.concat(parts)),
    message('C', Buffer.from('SELECT 1\0')),
    message('Z', Buffer.from('I')),
  ]);
}

function micro() {
  const chunk = pointReadChunk();
  const n = Number(opts.chunks);
  const { Parser } = createRequire(createRequire(import.meta.url).resolve('pg'))('pg-protocol/dist/parser.js');
  const meter = new RowBytes(2 * 1024 * 1024);
  const parser = new Parser();
  let messages = 0;
  const onMessage = () => {
    messages++;
  };
  const time = (/** @type {() => void} */ work) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) work();
    return Number(process.hrtime.bigint() - start) / n;
  };
  const meterNs = [];
  const parseNs = [];
  for (let round = 0; round < 5; round++) {
    meterNs.push(time(() => meter.see(chunk)));
    parseNs.push(time(() => parser.parse(chunk, onMessage)));
  }
  if (messages !== 5 * n * 4) throw new Error(`pg parsed ${messages} messages, not ${5 * n * 4}`);
  console.log(
    `a point read's chunk (${chunk.length} bytes, 4 messages), ${n} times x 5 rounds: the meter ` +
      `${median(meterNs).toFixed(1)} ns, pg's parse ${median(parseNs).toFixed(1)} ns ` +
      `(the meter adds ${((100 * median(meterNs)) / median(parseNs)).toFixed(1)}% to pg's parse of it)`,
  );
}

async function endToEnd() {
  const after = await import('@mcp-db-bench/engines');
  const before = opts.before ? await import(opts.before) : after;
  const metered = { maxResponseBytes: 1024 * 1024 };
  const sides = {
    before: { engines: before, options: opts.before ? metered : {} },
    after: { engines: after, options: metered },
  };
  const reads = Number(opts.reads);
  // The lane reads only the table's name.
  const table = /** @type {import('@mcp-db-bench/engines').Table} */ (/** @type {unknown} */ ({ name: 'orders' }));
  /**
   * @param {{ engines: typeof after, options: { maxResponseBytes?: number } }} side
   * @param {number} inflight
   */
  const cpuPerRead = async (side, inflight) => {
    const url = opts.url ?? '';
    const conn = await side.engines.engineForUrl(url).connect(url, { poolSize: 10, ...side.options });
    const lane = conn.shortReads;
    if (!lane) throw new Error(`${url} has no pipelined lane: this measures PostgreSQL's`);
    try {
      const counted = await sql`select count(*)::int as count from orders`.execute(conn.db);
      const { count } = /** @type {{ count: number }} */ (counted.rows[0]);
      const read = (/** @type {number} */ i) =>
        lane.execute(sql`select * from orders where id = ${(i % count) + 1}`.compile(conn.db), table, undefined);
      const run = async (/** @type {number} */ n) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: inflight }, async () => {
            while (next < n) await read(next++);
          }),
        );
      };
      await run(2000); // warm-up: the lane open, statements prepared, code compiled
      const start = process.cpuUsage();
      await run(reads);
      const used = process.cpuUsage(start);
      return (used.user + used.system) / reads;
    } finally {
      await conn.close();
    }
  };
  const label = opts.before ? 'before (--before)' : 'no limit (this build)';
  for (const inflight of opts.inflight.split(',').map(Number)) {
    /** @type {{ before: number[], after: number[] }} */
    const samples = { before: [], after: [] };
    for (let r = 0; r < Number(opts.rounds); r++) {
      /** @type {('before' | 'after')[]} */
      const order = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const name of order) samples[name].push(await cpuPerRead(sides[name], inflight));
    }
    const ratios = samples.after.map((a, i) => a / (samples.before[i] ?? Number.NaN));
    console.log(
      `${inflight} in flight, ${reads} reads x ${opts.rounds} rounds: CPU per read, ${label} ` +
        `${median(samples.before).toFixed(1)} µs, metered ${median(samples.after).toFixed(1)} µs; ` +
        `ratio median ${median(ratios).toFixed(3)} (rounds ${ratios.map((x) => x.toFixed(2)).join(' ')})`,
    );
  }
}

micro();
if (opts.url) await endToEnd();
