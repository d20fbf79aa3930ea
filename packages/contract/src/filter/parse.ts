/**
 * The filter expression language: `customer_id = 42 and status in ('paid','shipped')`.
 *
 * A hand-written tokenizer and recursive-descent parser that turn the text into a
 * {@link FilterNode}. The language has no way back to SQL: only column names, the closed
 * operator list and literals exist, so comments, `;`, function calls, arithmetic and
 * subqueries are all parse errors. Column names are only checked syntactically here; the
 * schema check happens later.
 *
 * Positions in messages are 1-based character offsets into the filter text.
 */
import { ToolError } from '../errors.js';
import { type ComparisonOp, FILTER_LIMITS, type FilterNode, type Scalar } from './tree.js';

/** The operators as users write them, for error messages (both filter forms). */
export const VALID_OPERATORS_TEXT =
  '= != <> < <= > >= in, not in, between, not between, like, not like, is null, is not null';

/** Longest column name accepted; matches the longest name tools accept elsewhere. */
export const MAX_IDENTIFIER_LENGTH = 256;

/** How much of the input a message may quote, so errors never echo a hostile payload. */
const SNIPPET_LENGTH = 30;

/** Words a bare column name may not be: the writer quotes a column so named. */
export const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'between', 'like', 'is', 'null', 'true', 'false']);

const COMPARISONS: Readonly<Record<string, ComparisonOp>> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

export function filterError(message: string): ToolError {
  return new ToolError('invalid_filter', message);
}

/** At most {@link SNIPPET_LENGTH} characters of `text`, control characters made visible. */
export function snippet(text: string): string {
  const cut = text.length > SNIPPET_LENGTH ? `${text.slice(0, SNIPPET_LENGTH)}…` : text;
  return cut.replace(/\p{Cc}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The hint for `= null` and friends: SQL comparisons with null are never true. */
export function nullHint(column: string, negated: boolean): string {
  return `comparing with null is never true in SQL; ${nullAdvice(column, negated)}`;
}

export function nullAdvice(column: string, negated: boolean): string {
  return `use ${formatColumn(column)} is ${negated ? 'not ' : ''}null`;
}

function formatColumn(column: string): string {
  const name = snippet(column);
  return /^[A-Za-z_][A-Za-z0-9_$]*$/.test(column) && !KEYWORDS.has(column.toLowerCase())
    ? name
    : `"${name.replace(/"/g, '""')}"`;
}

/**
 * Builds an and/or group: children of the same kind are merged (a and (b and c) is one
 * group of three) and a group of one is just that child.
 */
export function groupNode(kind: 'and' | 'or', children: FilterNode[]): FilterNode {
  const flat: FilterNode[] = [];
  for (const child of children) {
    if (kind === 'and' && 'and' in child) flat.push(...child.and);
    else if (kind === 'or' && 'or' in child) flat.push(...child.or);
    else flat.push(child);
  }
  if (flat.length === 1) return flat[0]!;
  return kind === 'and' ? { and: flat } : { or: flat };
}

// ---------------------------------------------------------------------------------------
// Tokenizer

type TokenKind =
  | 'word' // bare identifier or keyword
  | 'quoted' // "quoted identifier"
  | 'string'
  | 'number'
  | 'op' // a run of comparison characters, valid or not
  | '('
  | ')'
  | ','
  | 'other' // any other single character; the parser reports it in context
  | 'end';

interface Token {
  kind: TokenKind;
  /** source text */
  text: string;
  /** 0-based offset into the filter */
  pos: number;
  /** decoded string or identifier, or the converted number */
  value?: Scalar;
}

const OP_CHARS = '=<>!~';

// Character classes by code, the tokenizer's hot tests (a regex per character costs more).
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13; // space \t \n \r
const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95; // A-Z a-z _
const isWordPart = (c: number) => isWordStart(c) || isDigit(c) || c === 36; // and 0-9 $

/** A filter's tokens, and its template and literals (see {@link LexedFilter}). */
function tokenize(text: string): { tokens: Token[]; template: string; literals: Scalar[] } {
  const tokens: Token[] = [];
  const literals: Scalar[] = [];
  let template = '';
  let copied = 0;
  let pos = 0;
  while (pos < text.length) {
    if (isSpace(text.charCodeAt(pos))) {
      pos++;
      continue;
    }
    const token = readToken(text, pos);
    tokens.push(token);
    pos += token.text.length;
    const literal = literalOf(token);
    if (literal) {
      // NUL never reaches here (refused first), so a marker cannot be confused with the text around it.
      template += `${text.slice(copied, token.pos)}\u0000${literal}`;
      literals.push(token.kind === 'word' ? token.text.toLowerCase() === 'true' : token.value!);
      copied = pos;
    }
  }
  tokens.push({ kind: 'end', text: '', pos: text.length });
  return { tokens, template: template + text.slice(copied), literals };
}

/** The marker of a literal token in a template (number, string or boolean); undefined for any other token. */
function literalOf(token: Token): string | undefined {
  if (token.kind === 'number') return 'n';
  if (token.kind === 'string') return 's';
  if (token.kind === 'word' && token.text.length <= 5) {
    const lower = token.text.toLowerCase();
    if (lower === 'true' || lower === 'false') return 'b';
  }
  return undefined;
}

function readToken(text: string, pos: number): Token {
  const c = text[pos]!;
  const code = text.charCodeAt(pos);
  if ((c === '-' || c === '/') && (text[pos + 1] === '-' || text[pos + 1] === '*')) {
    const pair = text.slice(pos, pos + 2);
    if (pair === '--' || pair === '/*') {
      throw filterError(`filter: comments are not allowed ('${pair}' at position ${pos + 1})`);
    }
  }
  if (c === "'") return readQuoted(text, pos, 'string');
  if (c === '"') return readQuoted(text, pos, 'quoted');
  if (isWordStart(code)) {
    let end = pos + 1;
    while (end < text.length && isWordPart(text.charCodeAt(end))) end++;
    return { kind: 'word', text: text.slice(pos, end), pos };
  }
  if (isDigit(code) || (c === '-' && isDigit(text.charCodeAt(pos + 1)))) return readNumber(text, pos);
  if (OP_CHARS.includes(c)) {
    let end = pos;
    while (end < text.length && OP_CHARS.includes(text[end]!)) end++;
    return { kind: 'op', text: text.slice(pos, end), pos };
  }
  if (c === '(' || c === ')' || c === ',') return { kind: c, text: c, pos };
  // One UTF-16 unit would split an astral character; take the whole code point.
  return { kind: 'other', text: String.fromCodePoint(text.codePointAt(pos)!), pos };
}

/** Reads a '...' string or a "..." identifier; a doubled quote stands for one quote. */
function readQuoted(text: string, start: number, kind: 'string' | 'quoted'): Token {
  const quote = text[start]!;
  const what = kind === 'string' ? 'string' : 'quoted identifier';
  const limit = kind === 'string' ? FILTER_LIMITS.maxLiteralLength : MAX_IDENTIFIER_LENGTH;
  let value = '';
  let pos = start + 1;
  for (;;) {
    const end = text.indexOf(quote, pos);
    if (end < 0) {
      throw filterError(`filter: unterminated ${what} starting at position ${start + 1}; close it with ${quote}`);
    }
    value += text.slice(pos, end);
    if (text[end + 1] !== quote) {
      pos = end + 1;
      break;
    }
    value += quote;
    pos = end + 2;
  }
  if (value.length > limit) {
    const name = kind === 'string' ? 'maxLiteralLength' : 'identifier length';
    throw filterError(
      `filter: ${what} starting at position ${start + 1} is ${value.length} characters long; the limit (${name}) is ${limit}`,
    );
  }
  if (kind === 'quoted') checkQuotedIdentifier(value, start);
  return { kind, text: text.slice(start, pos), pos: start, value };
}

function checkQuotedIdentifier(name: string, start: number): void {
  if (name.length === 0) throw filterError(`filter: empty quoted identifier at position ${start + 1}`);
  if (/\p{Cc}/u.test(name)) {
    throw filterError(`filter: control character in the quoted identifier at position ${start + 1}`);
  }
}

const NUMBER_RE = /-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const MALFORMED_NUMBER_RE = /-?[A-Za-z0-9_$.+-]*/y;

/** The match of a sticky regex starting exactly at `pos`. */
function matchAt(re: RegExp, text: string, pos: number): string | undefined {
  re.lastIndex = pos;
  return re.exec(text)?.[0];
}

function readNumber(text: string, pos: number): Token {
  const source = matchAt(NUMBER_RE, text, pos) ?? '';
  // A number running into letters, digits or a dot (1abc, 0x1f, 1.2.3, 1.) is malformed,
  // not a number followed by something else.
  const follows = text.charCodeAt(pos + source.length); // NaN at the end
  if (source.length === 0 || isWordPart(follows) || follows === 46 /* . */) {
    const whole = matchAt(MALFORMED_NUMBER_RE, text, pos) ?? source;
    throw filterError(
      `filter: malformed number '${snippet(whole)}' at position ${pos + 1}; numbers look like 42, -7, 3.14 or 1.5e3`,
    );
  }
  return { kind: 'number', text: source, pos, value: convertNumber(source) };
}

/**
 * A JS number when it represents the literal exactly enough; otherwise the source text, so
 * big integers and long decimals reach the database without losing digits.
 */
export function convertNumber(source: string): number | string {
  const n = Number(source);
  // Digits alone (the common case): exact when safe, whatever zeros lead.
  if (n !== 0 && Number.isSafeInteger(n) && /^-?[0-9]+$/.test(source)) return n;
  // A true zero (also -0 and 0.000) is 0; a tiny number that underflowed to 0 stays text.
  if (n === 0) return /[1-9]/.test(source.split(/[eE]/)[0]!) ? source : 0;
  if (!Number.isFinite(n)) return source;
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return source;
  return decimalKey(source) === decimalKey(String(n)) ? n : source;
}

/** Sign, significant digits and decimal exponent: equal keys mean equal decimal values. */
function decimalKey(source: string): string {
  const m = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(source);
  if (!m) return source;
  const [, sign, int = '', frac = '', exp = '0'] = m;
  const digits = int + frac;
  const leading = digits.length - digits.replace(/^0+/, '').length;
  const significant = digits.slice(leading).replace(/0+$/, '');
  const point = int.length + Number(exp) - leading;
  return `${sign}${significant}e${point}`;
}

// ---------------------------------------------------------------------------------------
// Parser

/** Hints for characters people commonly try; keyed by the unexpected character. */
const CHARACTER_HINTS: Readonly<Record<string, string>> = {
  '`': 'quote column names with double quotes ("order date")',
  '[': 'quote column names with double quotes ("order date")',
  '+': 'arithmetic is not supported',
  '-': 'arithmetic is not supported',
  '*': 'arithmetic is not supported',
  '/': 'arithmetic is not supported',
  '%': 'arithmetic is not supported; % is a wildcard only inside like patterns',
  '.': 'qualified names (table.column) are not supported; use the column name alone',
  '#': 'comments are not allowed',
  '\u2018': "strings use ASCII single quotes ('...')",
  '\u2019': "strings use ASCII single quotes ('...')",
  '\uff07': "strings use ASCII single quotes ('...')",
  '\u201c': 'quoted column names use ASCII double quotes ("...")',
  '\u201d': 'quoted column names use ASCII double quotes ("...")',
  '\uff02': 'quoted column names use ASCII double quotes ("...")',
};

function describe(token: Token): string {
  if (token.kind === 'end') return 'end of the filter';
  if (token.kind === 'string') return `string ${snippet(token.text)}`;
  if (token.kind === 'quoted') return `quoted identifier ${snippet(token.text)}`;
  if (token.kind === 'other' && !/^[\u0021-\u007e]$/.test(token.text)) {
    const code = token.text.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `character U+${code}${/[\p{L}\p{N}\p{P}\p{S}]/u.test(token.text) ? ` '${token.text}'` : ''}`;
  }
  return `'${snippet(token.text)}'`;
}

function where(token: Token): string {
  return token.kind === 'end' ? 'at the end of the filter' : `at position ${token.pos + 1}`;
}

function unexpected(token: Token, expected: string): ToolError {
  const hint = token.kind === 'other' ? CHARACTER_HINTS[token.text] : undefined;
  const found = token.kind === 'end' ? 'unexpected end of the filter' : `unexpected ${describe(token)} ${where(token)}`;
  return filterError(`filter: ${found}; expected ${expected}${hint ? ` (${hint})` : ''}`);
}

class Parser {
  private index = 0;
  /** open parentheses and `not`s around the current position */
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): FilterNode {
    const node = this.parseOr();
    const token = this.peek();
    if (token.kind === ')') throw filterError(`filter: unmatched ')' at position ${token.pos + 1}`);
    if (token.kind !== 'end') throw unexpected(token, 'and, or or the end of the filter');
    return node;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private isKeyword(token: Token, keyword: string): boolean {
    return token.kind === 'word' && token.text.toLowerCase() === keyword;
  }

  private acceptKeyword(keyword: string): boolean {
    if (!this.isKeyword(this.peek(), keyword)) return false;
    this.index++;
    return true;
  }

  private expectKeyword(keyword: string, expected: string): void {
    if (!this.acceptKeyword(keyword)) throw unexpected(this.peek(), expected);
  }

  private parseOr(): FilterNode {
    const children = [this.parseAnd()];
    while (this.acceptKeyword('or')) children.push(this.parseAnd());
    return groupNode('or', children);
  }

  private parseAnd(): FilterNode {
    const children = [this.parseNot()];
    while (this.acceptKeyword('and')) children.push(this.parseNot());
    return groupNode('and', children);
  }

  private parseNot(): FilterNode {
    const token = this.peek();
    if (this.isKeyword(token, 'not')) {
      this.enter(token);
      this.index++;
      const node: FilterNode = { not: this.parseNot() };
      this.depth--;
      return node;
    }
    if (token.kind === '(') {
      this.enter(token);
      this.index++;
      const node = this.parseOr();
      const close = this.peek();
      if (close.kind !== ')') {
        throw unexpected(close, `and, or or ')' to close the '(' at position ${token.pos + 1}`);
      }
      this.index++;
      this.depth--;
      return node;
    }
    return this.parsePredicate();
  }

  /** Counts a level of nesting before recursing into it, so deep input cannot overflow the stack. */
  private enter(token: Token): void {
    if (++this.depth > FILTER_LIMITS.maxDepth) {
      throw filterError(
        `filter: nesting at position ${token.pos + 1} is deeper than the limit (maxDepth) of ${FILTER_LIMITS.maxDepth} levels of parentheses and not`,
      );
    }
  }

  private parseColumn(): string {
    const token = this.next();
    if (token.kind === 'quoted') return token.value as string;
    if (token.kind === 'word') {
      const lower = token.text.toLowerCase();
      if (KEYWORDS.has(lower)) {
        throw filterError(
          `filter: expected a column name ${where(token)} but found the keyword '${lower}'` +
            ` (a column with that name must be written in double quotes: "${lower}")`,
        );
      }
      if (token.text.length > MAX_IDENTIFIER_LENGTH) {
        throw filterError(
          `filter: column name at position ${token.pos + 1} is longer than ${MAX_IDENTIFIER_LENGTH} characters`,
        );
      }
      if (this.peek().kind === '(') {
        throw filterError(
          `filter: function calls such as '${snippet(token.text)}(' are not supported (position ${token.pos + 1})`,
        );
      }
      return token.text;
    }
    throw unexpected(token, 'a column name');
  }

  private parsePredicate(): FilterNode {
    const column = this.parseColumn();
    const token = this.next();
    if (token.kind === 'op') {
      const op = COMPARISONS[token.text];
      if (!op) throw unknownOperator(token);
      return { column, op, value: this.parseValue(column, op === '!=') };
    }
    if (token.kind === 'word') {
      const lower = token.text.toLowerCase();
      if (lower === 'is') return this.parseIsNull(column);
      const negated = lower === 'not';
      const keyword = negated ? this.next() : token;
      const kind = keyword.kind === 'word' ? keyword.text.toLowerCase() : '';
      if (kind === 'in') return { column, op: negated ? 'not in' : 'in', value: this.parseList(column) };
      if (kind === 'between')
        return { column, op: negated ? 'not between' : 'between', value: this.parseRange(column) };
      if (kind === 'like') return { column, op: negated ? 'not like' : 'like', value: this.parsePattern() };
      if (negated) throw unexpected(keyword, "in, between or like after 'not'");
      throw unknownOperator(token);
    }
    if (token.kind === 'other' && token.text === '.') throw unexpected(token, 'an operator');
    if (token.kind === 'end') {
      throw filterError(
        `filter: unexpected end of the filter after column ${formatColumn(column)}; expected an operator (${VALID_OPERATORS_TEXT})`,
      );
    }
    throw unexpected(token, `an operator (${VALID_OPERATORS_TEXT})`);
  }

  private parseIsNull(column: string): FilterNode {
    const negated = this.acceptKeyword('not');
    this.expectKeyword('null', negated ? "null after 'is not'" : "null or not null after 'is'");
    return { column, op: negated ? 'is not null' : 'is null' };
  }

  /** One literal; null is refused because no comparison with null is ever true. */
  private parseValue(column: string, negated: boolean): Exclude<Scalar, null> {
    const token = this.peek();
    const value = this.parseLiteral();
    if (value === null) throw filterError(`filter: null at position ${token.pos + 1}: ${nullHint(column, negated)}`);
    return value;
  }

  private parseLiteral(): Scalar {
    const token = this.next();
    if (token.kind === 'number' || token.kind === 'string') return token.value!;
    if (token.kind === 'word') {
      const lower = token.text.toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
      if (lower === 'null') return null;
      if (this.peek().kind === '(') {
        throw filterError(
          `filter: function calls such as '${snippet(token.text)}(' are not supported (position ${token.pos + 1})`,
        );
      }
      throw filterError(
        `filter: expected a value at position ${token.pos + 1} but found '${snippet(token.text)}'; ` +
          "write strings in single quotes ('text'); comparing two columns is not supported",
      );
    }
    if (token.kind === 'quoted') {
      throw filterError(
        `filter: expected a value at position ${token.pos + 1} but found the quoted identifier ${snippet(token.text)}; ` +
          "write strings in single quotes ('text')",
      );
    }
    if (token.kind === '(') {
      throw filterError(
        `filter: expected a value at position ${token.pos + 1} but found '('; subqueries and parenthesised expressions are not supported`,
      );
    }
    throw unexpected(token, "a value (a number, a 'string', true or false)");
  }

  private parseList(column: string): Scalar[] {
    const open = this.next();
    if (open.kind !== '(') throw unexpected(open, "'(' to start the in list");
    if (this.peek().kind === ')')
      throw filterError(`filter: empty in list at position ${open.pos + 1}; give at least one value`);
    const values: Scalar[] = [];
    for (;;) {
      const token = this.peek();
      const value = this.parseLiteral();
      if (value === null) {
        throw filterError(
          `filter: null in the in list at position ${token.pos + 1} never matches; ${nullAdvice(column, false)} (combined with or)`,
        );
      }
      if (values.push(value) > FILTER_LIMITS.maxListValues) {
        throw filterError(
          `filter: the in list at position ${open.pos + 1} has more than ${FILTER_LIMITS.maxListValues} values (limit maxListValues)`,
        );
      }
      const separator = this.next();
      if (separator.kind === ')') return values;
      if (separator.kind !== ',')
        throw unexpected(separator, `',' or ')' to close the in list started at position ${open.pos + 1}`);
    }
  }

  private parseRange(column: string): [Scalar, Scalar] {
    const low = this.parseValue(column, false);
    this.expectKeyword('and', "'and' between the two values of between");
    return [low, this.parseValue(column, false)];
  }

  private parsePattern(): string {
    const token = this.next();
    if (token.kind !== 'string') throw unexpected(token, "a 'quoted' pattern after like");
    return token.value as string;
  }
}

function unknownOperator(token: Token): ToolError {
  return filterError(
    `filter: unknown operator '${snippet(token.text)}' at position ${token.pos + 1}; valid operators: ${VALID_OPERATORS_TEXT}`,
  );
}

/** Groups nested inside groups, counting the root group as 1 (a lone predicate has depth 0). */
function treeShape(node: FilterNode): { depth: number; nodes: number } {
  const children = 'and' in node ? node.and : 'or' in node ? node.or : 'not' in node ? [node.not] : [];
  let depth = 0;
  let nodes = 1;
  for (const child of children) {
    const shape = treeShape(child);
    depth = Math.max(depth, shape.depth);
    nodes += shape.nodes;
  }
  return { depth: children.length > 0 ? depth + 1 : 0, nodes };
}

/** Enforces the tree-wide limits both filter forms share. */
export function checkTreeLimits(node: FilterNode): FilterNode {
  const { depth, nodes } = treeShape(node);
  if (depth > FILTER_LIMITS.maxDepth) {
    throw filterError(
      `filter: and/or/not groups nest ${depth} deep; the limit (maxDepth) is ${FILTER_LIMITS.maxDepth}`,
    );
  }
  if (nodes > FILTER_LIMITS.maxNodes) {
    throw filterError(
      `filter: ${nodes} conditions and groups; the limit (maxNodes) is ${FILTER_LIMITS.maxNodes} (use in (...) for long lists of values)`,
    );
  }
  return node;
}

/**
 * An expression filter read as far as its tokens. `template` is the text with every literal (a
 * number, a string, true or false) written as a marker of its kind. Every literal of a filter
 * that parses is a value in its tree, and the parser places them without reading them: so
 * filters of one template parse alike or fail alike, to trees of one shape whose values are
 * `literals` in the text's order. What is made from one such tree's shape serves them all.
 */
export interface LexedFilter {
  readonly template: string;
  readonly literals: readonly Scalar[];
  /** The tree; throws `ToolError('invalid_filter')` with a position. */
  parse(): FilterNode;
}

/** Reads the expression form of a filter as far as its tokens; throws as {@link parseFilterExpression} does. */
export function lexFilter(text: string): LexedFilter {
  if (typeof text !== 'string') throw filterError('filter: expected a string');
  if (text.length > FILTER_LIMITS.maxExpressionLength) {
    throw filterError(
      `filter: the filter is ${text.length} characters long; the limit (maxExpressionLength) is ${FILTER_LIMITS.maxExpressionLength}`,
    );
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw filterError(`filter: NUL character (U+0000) at position ${nul + 1} is not allowed`);
  const { tokens, template, literals } = tokenize(text);
  if (tokens.length === 1) {
    throw filterError("filter: the filter is empty; write a condition such as status = 'paid'");
  }
  return { template, literals, parse: () => checkTreeLimits(new Parser(tokens).parse()) };
}

/** Parses the expression form of a filter; throws `ToolError('invalid_filter')` with a position. */
export function parseFilterExpression(text: string): FilterNode {
  return lexFilter(text).parse();
}
