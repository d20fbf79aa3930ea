/**
 * The values a call binds, counted from the shape of its arguments before they are validated:
 * a server refuses a call past its ceiling before any work that grows with the call's size
 * (validation, coercion, compiling, binding). Counting is cheap: a JSON filter's lists count
 * by their length, and an expression filter is read only when it is long enough to matter.
 */
import { normalizeOperator } from './json.js';
import { lexFilter } from './parse.js';
import { FILTER_LIMITS, NULL_OPS } from './tree.js';

/** What a call binds: in all, and in its largest statement (a transact step, an insert's rows go in several). */
export interface ValueCount {
  total: number;
  statement: number;
}

/** One statement's values: counted exactly, and its expression filters, read only when they might matter. */
interface Statement {
  values: number;
  texts: string[];
}

/**
 * Counts a call's values statement by statement. A tool's `values` adds what its arguments
 * bind; {@link ValueTally.over} says whether the count passes a ceiling, exactly when it does.
 */
export class ValueTally {
  /** values counted exactly, over every statement */
  #total = 0;
  /** the most values of a finished statement without expression filters */
  #largest = 0;
  /** finished statements with expression filters */
  readonly #pending: Statement[] = [];
  #current: Statement = { values: 0, texts: [] };

  /** Starts another statement of the call (a transact step). */
  statement(): this {
    const done = this.#current;
    if (done.texts.length > 0) this.#pending.push(done);
    else this.#largest = Math.max(this.#largest, done.values);
    this.#current = { values: 0, texts: [] };
    return this;
  }

  add(values: number): this {
    this.#current.values += values;
    this.#total += values;
    return this;
  }

  /** A filter in either form, unvalidated (what is not a filter counts nothing: validation will say why). */
  filter(raw: unknown): this {
    if (typeof raw === 'string') {
      this.#current.texts.push(raw);
      return this;
    }
    return this.add(filterValues(raw));
  }

  /** A record of values (`set`, `params`, a composite key): one value per key. */
  record(raw: unknown): this {
    return isObject(raw) ? this.add(Object.keys(raw).length) : this;
  }

  /**
   * Rows each inserted by a statement of its own or with others: an insert splits its rows into
   * statements under the engine's limit, so only a row alone bounds its statement.
   */
  rows(raw: unknown): this {
    this.statement();
    if (!Array.isArray(raw)) return this;
    for (const row of raw) {
      const values = isObject(row) ? Object.keys(row).length : 0;
      this.#total += values;
      this.#largest = Math.max(this.#largest, values);
    }
    return this;
  }

  /**
   * The count when it passes `total` in all or `statement` in one statement; undefined when it
   * passes neither. Expression filters are read (lexed) only when their length allows enough
   * values to pass: the count is exact whenever it is returned.
   */
  over(total: number, statement: number): ValueCount | undefined {
    if (!passes(this.#count(mostLiterals), total, statement)) return undefined;
    const exact = this.#count(literals);
    return passes(exact, total, statement) ? exact : undefined;
  }

  /** The count, each expression filter counted by `count` (every call goes through here: nothing allocated but the answer). */
  #count(count: (text: string) => number): ValueCount {
    let all = this.#total;
    let most = this.#largest;
    for (let i = 0; i <= this.#pending.length; i++) {
      const s = i < this.#pending.length ? this.#pending[i]! : this.#current;
      let values = s.values;
      for (const text of s.texts) {
        const n = count(text);
        values += n;
        all += n;
      }
      most = Math.max(most, values);
    }
    return { total: all, statement: most };
  }
}

function passes(count: ValueCount, total: number, statement: number): boolean {
  return count.total > total || count.statement > statement;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The most literals an expression of this length can hold: each is a character at least, and
 * each after the first needs one more before it (a separator, or the sign of `1-1`).
 */
function mostLiterals(text: string): number {
  return Math.floor((Math.min(text.length, FILTER_LIMITS.maxExpressionLength) + 1) / 2);
}

/** The values of an expression filter: its literals; none when it does not lex (validation says why). */
function literals(text: string): number {
  try {
    return lexFilter(text).literals.length;
  } catch {
    return 0;
  }
}

/**
 * The values a JSON filter tree binds, read from its shape: a list by its length, any other
 * value as one, `is null` none. Iterative and bounded: past FILTER_LIMITS.maxNodes nodes it
 * stops, since validation refuses such a tree anyway.
 */
function filterValues(raw: unknown): number {
  const stack: unknown[] = [raw];
  let values = 0;
  for (let nodes = 0; stack.length > 0 && nodes <= FILTER_LIMITS.maxNodes; nodes++) {
    const node = stack.pop();
    if (!isObject(node)) continue;
    const children = Array.isArray(node.and) ? node.and : Array.isArray(node.or) ? node.or : undefined;
    if (children) {
      for (let i = 0; i < children.length && stack.length <= FILTER_LIMITS.maxNodes; i++) stack.push(children[i]);
    } else if ('not' in node) stack.push(node.not);
    else if (node.value !== undefined && !isNullOp(node.op)) {
      values += Array.isArray(node.value) ? node.value.length : 1;
    }
  }
  return values;
}

function isNullOp(op: unknown): boolean {
  const canonical = typeof op === 'string' ? normalizeOperator(op) : undefined;
  return canonical !== undefined && (NULL_OPS as readonly string[]).includes(canonical);
}
