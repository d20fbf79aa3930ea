import { describe, expect, it } from 'vitest';
import { preciseIso } from '../src/mssql/precise-dates.js';

/**
 * tedious (SQL Server) hands times and timestamps over as Dates, with the digits below the
 * millisecond in `nanosecondsDelta`; `preciseIso` keeps them in the ISO text the shared decoders
 * read (the server's decode.test.ts reads these very texts).
 */
describe("preciseIso: SQL Server's PreciseDates", () => {
  it('keeps the digits below the millisecond that tedious puts in nanosecondsDelta', () => {
    const withDelta = (iso: string, delta: number) =>
      preciseIso(Object.assign(new Date(iso), { nanosecondsDelta: delta }));
    expect(withDelta('2024-03-31T01:30:00.123Z', 0.000456)).toBe('2024-03-31T01:30:00.1234560Z');
    expect(withDelta('1999-12-31T23:59:59.999Z', 0.0009999)).toBe('1999-12-31T23:59:59.9999999Z');
    expect(withDelta('2024-03-31T01:30:00.000Z', 0.00005)).toBe('2024-03-31T01:30:00.0000500Z');
    expect(withDelta('2024-03-31T01:30:00.000Z', 0)).toBe('2024-03-31T01:30:00.000Z');
    expect(withDelta('1970-01-01T12:30:00.100Z', 0.0002)).toBe('1970-01-01T12:30:00.1002000Z');
    expect(preciseIso(new Date('2024-03-31T01:30:00.123Z'))).toBe('2024-03-31T01:30:00.123Z');
  });
});
