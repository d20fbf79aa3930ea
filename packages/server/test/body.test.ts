import { describe, expect, it } from 'vitest';
import { nestsDeeper } from '../src/transports/body.js';

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
});
