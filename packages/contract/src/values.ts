import { z } from 'zod';

/**
 * Portable column types. Every engine's native types map onto these, and every value is
 * rendered the same way on every engine:
 *
 * | type        | JSON                                                                    |
 * |-------------|-------------------------------------------------------------------------|
 * | `integer`   | number when within ±(2^53-1), otherwise a string of digits              |
 * | `decimal`   | string with exactly the declared scale (`"12.50"`)                       |
 * | `float`     | number                                                                  |
 * | `text`      | string                                                                  |
 * | `boolean`   | `true` / `false`                                                         |
 * | `date`      | `"YYYY-MM-DD"`                                                          |
 * | `time`      | `"HH:MM:SS[.fff]"`                                                      |
 * | `timestamp` | ISO-8601 in UTC, fraction without trailing zeros (`"2024-03-31T01:30:00Z"`) |
 * | `binary`    | base64 string                                                           |
 * | `json`      | the parsed JSON value                                                   |
 * | `unknown`   | string                                                                  |
 */
export const PORTABLE_TYPES = [
  'integer',
  'decimal',
  'float',
  'text',
  'boolean',
  'date',
  'time',
  'timestamp',
  'binary',
  'json',
  'unknown',
] as const;
export type PortableType = (typeof PORTABLE_TYPES)[number];

/** A value in a row of tool output (see {@link PORTABLE_TYPES}). */
export type PortableValue = string | number | boolean | null | PortableValue[] | { [key: string]: PortableValue };

export const rowSchema = z.record(z.string(), z.unknown());
export type Row = Record<string, PortableValue>;

/** A literal in a filter or a key: big integers and decimals may be given as strings. */
export const scalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
