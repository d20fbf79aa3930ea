import { describe, expect, it } from 'vitest';
import { delimitedText } from '../src/delimited.js';

describe('delimited text for COPY and LOAD DATA', () => {
  it('escapes what would break a row and spells nulls and booleans per engine', () => {
    const rows = [
      [1, 'tab\there', 'line\nbreak\r', 'back\\slash', null, true],
      [2, 'plain', '', 'ünïcødé 🎉', '\\N', false],
    ];
    expect(delimitedText(rows, ['t', 'f'])).toBe(
      '1\ttab\\there\tline\\nbreak\\r\tback\\\\slash\t\\N\tt\n' + '2\tplain\t\tünïcødé 🎉\t\\\\N\tf\n',
    );
    expect(delimitedText([[true, false]], ['1', '0'])).toBe('1\t0\n');
  });
});
