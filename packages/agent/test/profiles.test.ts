import { describe, expect, it } from 'vitest';
import { DIALECTS, filterSql, portableType, sqlLiteral } from '../src/profiles/index.js';

const columns = new Set(['customer_id', 'status', 'total']);

describe('SQL written by profiles: values as safe literals, identifiers from discovery only', () => {
  it('quotes strings by doubling quotes, so a value cannot end its literal', () => {
    expect(sqlLiteral("O'Brien")).toBe("'O''Brien'");
    expect(sqlLiteral("x' or 1=1 --")).toBe("'x'' or 1=1 --'");
    expect(sqlLiteral(42)).toBe('42');
    expect(sqlLiteral(-1.5)).toBe('-1.5');
  });

  it('refuses what is not a finite number or a string', () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(/not a finite number/);
    expect(() => sqlLiteral(Number.POSITIVE_INFINITY)).toThrow(/not a finite number/);
    expect(() => sqlLiteral({ a: 1 })).toThrow(/cannot send a object/);
    expect(() => sqlLiteral('a\0b')).toThrow(/NUL/);
  });

  it('translates the comparisons workloads send, per dialect', () => {
    expect(filterSql('customer_id = 42', columns, DIALECTS.sqlite!)).toBe('"customer_id" = 42');
    expect(filterSql("status = 'it''s' and total >= 10.5", columns, DIALECTS.mysql!)).toBe("`status` = 'it''s' and `total` >= 10.5");
    // " and " inside a string is part of the value
    expect(filterSql("status = 'a and b'", columns, DIALECTS.postgres!)).toBe(`"status" = 'a and b'`);
  });

  it('leaves out (undefined) what it cannot translate safely: unknown columns, other syntax', () => {
    expect(filterSql('nope = 1', columns, DIALECTS.sqlite!)).toBeUndefined();
    expect(filterSql('customer_id = 1 or 1 = 1', columns, DIALECTS.sqlite!)).toBeUndefined();
    expect(filterSql('customer_id = (select 1)', columns, DIALECTS.sqlite!)).toBeUndefined();
    expect(filterSql("status = 'unterminated", columns, DIALECTS.sqlite!)).toBeUndefined();
  });

  it('quotes identifiers by doubling their quote character', () => {
    expect(DIALECTS.sqlite!.quote('we"ird')).toBe('"we""ird"');
    expect(DIALECTS.mysql!.quote('we`ird')).toBe('`we``ird`');
  });

  it('maps declared types to portable ones, so workloads pick the same numeric measures', () => {
    expect(['INTEGER', 'bigint', 'DECIMAL(12,2)', 'numeric', 'double precision', 'VARCHAR(20)', 'timestamp with time zone', 'boolean'].map(portableType)).toEqual([
      'integer',
      'integer',
      'decimal',
      'decimal',
      'float',
      'text',
      'timestamp',
      'boolean',
    ]);
  });
});
