/** What a statement's span says of it: its name and the semantic-convention attributes. */
export interface StatementFacts {
  /** `SELECT customers`: the operation and the table, as the conventions name a database span */
  name: string;
  operation: string;
  /** the table named after from, into or update; undefined when there is none */
  collection?: string;
  /** the text with every literal replaced by `?` */
  text: string;
}

const OPERATION = /^[\s(]*([a-z]+)/i;
const COLLECTION = /\b(?:from|into|update)\s+((?:[`"[]?[\w$]+[`"\]]?\s*\.\s*)?[`"[]?[\w$]+[`"\]]?)/i;
/**
 * String literals (with '' inside) and numbers not part of a name or a placeholder ($1, @p1, ?).
 * Our own statements bind every value apart; the sql tool's caller may write literals in.
 */
const LITERALS = /'(?:[^']|'')*'|(?<![\w$@.])\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/gi;

/** Statements repeat: the facts of the last few hundred texts are kept. */
const cache = new Map<string, StatementFacts>();
const CACHE_SIZE = 512;

/** The span facts of one statement's text. */
export function statementFacts(sql: string): StatementFacts {
  let facts = cache.get(sql);
  if (facts) return facts;
  const operation = (OPERATION.exec(sql)?.[1] ?? 'SQL').toUpperCase();
  const collection = COLLECTION.exec(sql)?.[1]?.replace(/[`"[\]\s]/g, '');
  facts = {
    name: collection ? `${operation} ${collection}` : operation,
    operation,
    collection,
    text: sql.replace(LITERALS, '?'),
  };
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(sql, facts);
  return facts;
}
