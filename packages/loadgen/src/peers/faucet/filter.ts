/** Names and literals as Faucet's parsers read them (internal/query), and our filter tree as Faucet's filter. */
import { type FilterNode, type FilterOp, parseFilter } from '@mcp-db-bench/contract';

/** ValidateIdentifier (sanitizer.go): fields, order, group, aggregate aliases and filter columns must pass it. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const RESERVED = new Set(
  'SELECT INSERT UPDATE DELETE DROP CREATE ALTER TRUNCATE EXEC EXECUTE UNION INTO FROM WHERE TABLE DATABASE GRANT REVOKE INDEX VIEW PROCEDURE FUNCTION TRIGGER SCHEMA'.split(
    ' ',
  ),
);
/** Words the filter tokenizer (parser.go) makes keywords: a column so named cannot open a comparison. */
const FILTER_KEYWORDS = new Set('AND OR NOT IN LIKE IS NULL BETWEEN CONTAINS STARTS ENDS WITH'.split(' '));
/** The filter tokenizer's numbers: digits, an optional fraction, no exponent. */
const FAUCET_NUMBER = /^-?\d+(\.\d+)?$/;
/** Portable types whose values Faucet's filter reads as numbers. */
export const NUMERIC: ReadonlySet<string> = new Set(['integer', 'decimal', 'float']);
/** A UTF-16 half with no partner: JSON carries it as \\udXXX, which Go decodes to U+FFFD, another value. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether Faucet's ValidateIdentifier takes the name. */
export const faucetName = (name: string): boolean => IDENTIFIER.test(name) && !RESERVED.has(name.toUpperCase());

export const filterName = (name: string): boolean => faucetName(name) && !FILTER_KEYWORDS.has(name.toUpperCase());

/**
 * A value as a literal Faucet's filter parser reads back as the same value: a string in single
 * quotes with its quotes doubled (the parser's only escape: a backslash is an ordinary character,
 * and the value is bound as a parameter), a number in the parser's syntax, a boolean as
 * true/false. Refused (RangeError): NUL (PostgreSQL refuses it in text), lone surrogates, numbers
 * it would read as another value (exponents, integers past 2^53), null (the filter has no null
 * literal: `is null`), anything else.
 */
export function faucetLiteral(value: unknown): string {
  if (typeof value === 'string') {
    if (value.includes('\0')) throw new RangeError('a string with a NUL character cannot be sent in a Faucet filter');
    if (LONE_SURROGATE.test(value))
      throw new RangeError('a string with a lone surrogate cannot be sent: it would reach Faucet as U+FFFD');
    return `'${value.replaceAll("'", "''")}'`;
  }
  if (typeof value === 'number') return numberLiteral(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) throw new RangeError('null cannot be compared with a Faucet filter literal (use is null)');
  throw new RangeError(`a ${typeof value} cannot be sent as a Faucet filter literal`);
}

function numberLiteral(n: number): string {
  if (Number.isInteger(n) && !Number.isSafeInteger(n))
    throw new RangeError(`${n} is past the integers a double holds exactly`);
  const text = String(n);
  if (!FAUCET_NUMBER.test(text))
    throw new RangeError(`${text} has no form Faucet's filter reads (digits and a fraction, no exponent)`);
  return text;
}

/** Our comparisons as Faucet's filter parser (parser.go) spells them. */
const FAUCET_OPS: Partial<Record<FilterOp, string>> = {
  '=': '=',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  like: 'LIKE',
  'not like': 'NOT LIKE',
};

export interface Term {
  column: string;
  op: string;
  literal: string;
}

/**
 * Our filter tree as terms Faucet reads alike: comparisons and like joined by and, on columns it can
 * name; undefined outside that subset (RangeError for a value it cannot carry).
 */
export function termsOf(
  node: FilterNode,
  columns: ReadonlySet<string>,
  numeric: ReadonlySet<string>,
): Term[] | undefined {
  const terms: Term[] = [];
  for (const p of 'and' in node ? node.and : [node]) {
    if (!('column' in p) || !columns.has(p.column) || !filterName(p.column)) return undefined;
    const op = FAUCET_OPS[p.op];
    if (op === undefined || !('value' in p) || Array.isArray(p.value)) return undefined;
    // our like escapes with a backslash; engines differ on LIKE's default escape, so none is sent
    if (op.endsWith('LIKE') && String(p.value).includes('\\')) return undefined;
    // a big integer or exact decimal travels in our tree as a string: on a numeric column it stays a number
    const exact = typeof p.value === 'string' && numeric.has(p.column) && FAUCET_NUMBER.test(p.value);
    terms.push({ column: p.column, op, literal: exact ? String(p.value) : faucetLiteral(p.value) });
  }
  return terms;
}

export const render = (terms: readonly Term[]): string =>
  terms.map((t) => `${t.column} ${t.op} ${t.literal}`).join(' AND ');

/**
 * Our filter (either form, read by our grammar) as Faucet's: bare names, the same comparisons; undefined when
 * outside the subset the profile translates. Throws `ToolError('invalid_filter')` for what our server refuses too.
 */
export function faucetFilter(
  filter: string | object,
  columns: ReadonlySet<string>,
  numeric: ReadonlySet<string> = new Set(),
): string | undefined {
  const terms = termsOf(parseFilter(filter), columns, numeric);
  return terms && render(terms);
}
