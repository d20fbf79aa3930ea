import { describe, expect, it } from 'vitest';
import { decodeValue } from '../src/output/decode.js';

/**
 * Driver forms the parity suite cannot reach here: tedious (SQL Server) hands over times and
 * timestamps as Dates and decimals as numbers. They must render as the text forms of the
 * other drivers do, which the live parity suite checks.
 */
const time = { type: 'time', scale: null } as const;
const timestamp = { type: 'timestamp', scale: null } as const;
const decimal = { type: 'decimal', scale: 2 } as const;

describe('decodeValue: Dates and numbers render like the text forms', () => {
  it.each([
    ['00:00:00', new Date('1970-01-01T00:00:00.000Z'), '00:00:00'],
    ['12:30:00.5', new Date('1970-01-01T12:30:00.500Z'), '12:30:00.5'],
    ['23:59:59.999', new Date('1970-01-01T23:59:59.999Z'), '23:59:59.999'],
    ['00:00:00.001', new Date('1970-01-01T00:00:00.001Z'), '00:00:00.001'],
  ])('time %s', (text, date, expected) => {
    expect(decodeValue(time, text)).toBe(expected);
    expect(decodeValue(time, `${text}${text.includes('.') ? '00' : '.000'}`)).toBe(expected);
    expect(decodeValue(time, date)).toBe(expected);
  });

  it("keeps the digits below the millisecond in the ISO text SQL Server's PreciseDates gives", () => {
    // the texts preciseIso makes of tedious's Dates and nanosecondsDelta (the engines' precise-dates.test.ts)
    expect(decodeValue(timestamp, '2024-03-31T01:30:00.1234560Z')).toBe('2024-03-31T01:30:00.123456Z');
    expect(decodeValue(timestamp, '1999-12-31T23:59:59.9999999Z')).toBe('1999-12-31T23:59:59.9999999Z');
    expect(decodeValue(timestamp, '2024-03-31T01:30:00.0000500Z')).toBe('2024-03-31T01:30:00.00005Z');
    expect(decodeValue(timestamp, '2024-03-31T01:30:00.000Z')).toBe('2024-03-31T01:30:00Z');
    expect(decodeValue(time, '1970-01-01T12:30:00.1002000Z')).toBe('12:30:00.1002');
    expect(decodeValue(timestamp, '2024-03-31 01:30:00.123456')).toBe('2024-03-31T01:30:00.123456Z');
  });

  it.each([
    // whole seconds without a zone, as SQLite, PostgreSQL and MariaDB hand most over (the short path)
    ['2024-03-31 01:30:00', '2024-03-31T01:30:00Z'],
    ['2024-03-31T01:30:00', '2024-03-31T01:30:00Z'],
    [' 2024-03-31 01:30:00', '2024-03-31T01:30:00Z'],
    ['2024-03-31 01:30:00+02:00', '2024-03-30T23:30:00Z'],
    ['1969-12-31 23:59:59.999', '1969-12-31T23:59:59.999Z'],
    ['9999-12-31 23:59:59.999', '9999-12-31T23:59:59.999Z'],
    ['2024-02-29 12:00:00.500', '2024-02-29T12:00:00.5Z'],
  ])('timestamp %s', (text, expected) => {
    expect(decodeValue(timestamp, text)).toBe(expected);
    expect(decodeValue(timestamp, new Date(expected))).toBe(expected);
  });

  it.each([
    ['-1234.56', -1234.56],
    ['1234567890123.45', 1234567890123.45],
    ['0.00', 0],
    ['-0.50', -0.5],
  ])('decimal %s', (expected, number) => {
    expect(decodeValue(decimal, number)).toBe(expected);
    expect(decodeValue(decimal, expected)).toBe(expected);
  });
});
