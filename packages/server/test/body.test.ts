import { Random } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { isBatch } from '../src/transports/batch.js';
import { nestsDeeper } from '../src/transports/body.js';
import { Budget, LARGE_BODY_WAIT_MS, OnePerTurn, SMALL_BODY_BYTES } from '../src/transports/limits.js';

const chunks = (text: string, size = text.length) => {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
};

describe('nestsDeeper', () => {
  it('counts arrays and objects together, up to and past the limit', () => {
    expect(nestsDeeper(chunks('{"a":[{"b":[1]}]}'), 4)).toBe(false);
    expect(nestsDeeper(chunks('{"a":[{"b":[[1]]}]}'), 4)).toBe(true);
    expect(nestsDeeper(chunks('[[]],[[]],[[]]'), 2)).toBe(false);
  });

  it('needs more brackets opened in all than the limit, wherever they are', () => {
    expect(nestsDeeper(chunks('[[[]]]'), 3)).toBe(false);
    expect(nestsDeeper(chunks('[{[]}]'), 2)).toBe(true);
    expect(nestsDeeper(chunks('[{[]}]', 1), 2)).toBe(true);
    expect(nestsDeeper(chunks('[]{}[]{}'), 1)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeper(chunks('{"a":"[[[[{{{{"}'), 1)).toBe(false);
    expect(nestsDeeper(chunks('{"a":"\\"[[[[\\\\"}'), 1)).toBe(false);
    expect(nestsDeeper(chunks('{"a":"\\\\",  "b":[[1]]}'), 2)).toBe(true);
  });

  it('keeps its state across chunk boundaries, byte by byte', () => {
    const text = `{"s":"]]]\\"]]]","d":${'['.repeat(10)}${']'.repeat(10)}}`;
    for (const size of [1, 2, 3, 7]) {
      expect(nestsDeeper(chunks(text, size), 11)).toBe(false);
      expect(nestsDeeper(chunks(text, size), 10)).toBe(true);
    }
  });

  it('reads multi-byte UTF-8 without miscounting', () => {
    expect(nestsDeeper(chunks('["日本語 🎉 [", ["é"]]'), 2)).toBe(false);
    expect(nestsDeeper(chunks('["日本語 🎉 [", [["é"]]]'), 2)).toBe(true);
  });

  it('reads as a byte-by-byte scan does, on any mix of brackets, quotes and backslashes', () => {
    const byteByByte = (text: string, max: number) => {
      let depth = 0;
      let inString = false;
      let escaped = false;
      for (const c of text) {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[' || c === '{') {
          if (++depth > max) return true;
        } else if (c === ']' || c === '}') depth--;
      }
      return false;
    };
    const alphabet = ['[', '{', ']', '}', '"', '\\', 'a', '1', ','];
    const random = new Random(53);
    const next = (n: number) => random.int(0, n - 1);
    for (let k = 0; k < 20_000; k++) {
      let text = '';
      for (let i = next(40); i > 0; i--) text += alphabet[next(alphabet.length)];
      const max = next(4);
      expect(nestsDeeper(chunks(text, 1 + next(8)), max), JSON.stringify(text)).toBe(byteByByte(text, max));
    }
  });
});

describe('isBatch', () => {
  it('sees an array by its first byte that is not white space, in any chunk', () => {
    expect(isBatch(chunks('[{"jsonrpc":"2.0"}]'))).toBe(true);
    expect(isBatch(chunks(' \r\n\t [1]', 1))).toBe(true);
    expect(isBatch(chunks('{"a":[1]}'))).toBe(false);
    expect(isBatch(chunks('  "["'))).toBe(false);
    expect(isBatch([])).toBe(false);
  });
});

describe('Budget', () => {
  it('lets small bodies use the quarter that large ones may not', () => {
    const budget = new Budget(4 * SMALL_BODY_BYTES * 4);
    const large = SMALL_BODY_BYTES * 2;
    for (let i = 0; i < 6; i++) expect(budget.take(large, large)).toBe(true);
    expect(budget.held).toBe(budget.largeLimit);
    expect(budget.take(1, SMALL_BODY_BYTES + 1)).toBe(false);
    for (let i = 0; i < 4; i++) expect(budget.take(SMALL_BODY_BYTES, SMALL_BODY_BYTES)).toBe(true);
    expect(budget.take(1, 1)).toBe(false);
    // What a large body gives back goes to small ones while they hold the reserve.
    budget.give(large);
    expect(budget.take(large, large)).toBe(false);
    for (let i = 0; i < 2; i++) expect(budget.take(SMALL_BODY_BYTES, SMALL_BODY_BYTES)).toBe(true);
    expect(budget.held).toBe(budget.limit);
  });
});

describe('OnePerTurn', () => {
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('judges large bodies one per turn, after the I/O already waiting', async () => {
    const order: string[] = [];
    const large = new OnePerTurn();
    large.take(() => order.push('large 1'));
    large.take(() => order.push('large 2'));
    // a small call that came in the same turn: answered before either
    order.push('small');
    await turn();
    expect(order).toEqual(['small', 'large 1']);
    await turn();
    expect(order).toEqual(['small', 'large 1', 'large 2']);
  });

  it('waits while small calls are in progress, for at most LARGE_BODY_WAIT_MS', async () => {
    let busy = true;
    const done: number[] = [];
    const began = performance.now();
    const large = new OnePerTurn(() => !busy);
    large.take(() => done.push(performance.now() - began));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toEqual([]);
    busy = false;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toHaveLength(1);
    // never idle: it runs anyway once it has waited its longest
    busy = true;
    large.take(() => done.push(performance.now() - began));
    await new Promise((resolve) => setTimeout(resolve, LARGE_BODY_WAIT_MS + 50));
    expect(done).toHaveLength(2);
    expect(done[1]! - done[0]!).toBeGreaterThanOrEqual(LARGE_BODY_WAIT_MS - 5);
  });

  it('goes on after a body whose judging throws', async () => {
    const large = new OnePerTurn();
    let ran = false;
    const thrown = new Promise((resolve) => process.once('uncaughtException', resolve));
    large.take(() => {
      throw new Error('bad body');
    });
    large.take(() => {
      ran = true;
    });
    await thrown;
    await turn();
    expect(ran).toBe(true);
  });
});
