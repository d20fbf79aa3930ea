import { ToolError } from '@mcp-db-bench/contract';

/** A statement split at its `:name` parameters: text, name, text, name, ..., text. */
export interface NamedStatement {
  texts: string[];
  names: string[];
}

/**
 * Finds `:name` parameters in SQL text, skipping string literals, quoted identifiers,
 * comments, PostgreSQL `::` casts and dollar-quoted strings, so that one statement with
 * named parameters means the same on every engine (each engine's own placeholder is made
 * by the query compiler). Also drops one trailing `;`.
 */
export function splitNamedParameters(text: string): NamedStatement {
  const texts: string[] = [];
  const names: string[] = [];
  let start = 0;
  let i = 0;
  const skipTo = (close: string, from: number) => {
    const end = text.indexOf(close, from);
    return end === -1 ? text.length : end + close.length;
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "'" || c === '"' || c === '`') {
      // a doubled quote is an escaped quote: skipping to the next quote handles it as two literals
      i = skipTo(c, i + 1);
    } else if (c === '-' && next === '-') i = skipTo('\n', i + 2);
    else if (c === '/' && next === '*') i = skipTo('*/', i + 2);
    else if (c === '$' && /^\$[A-Za-z_]*\$/.test(text.slice(i))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i))![0];
      i = skipTo(tag, i + tag.length);
    } else if (c === ':' && next === ':') i += 2;
    else if (c === ':' && next !== undefined && /[A-Za-z_]/.test(next)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))![0];
      texts.push(text.slice(start, i));
      names.push(name);
      i += 1 + name.length;
      start = i;
    } else i++;
  }
  texts.push(text.slice(start).replace(/;\s*$/, ''));
  if (texts.join('').trim() === '') throw new ToolError('invalid_argument', 'sql: the statement is empty');
  return { texts, names };
}

/** Statements the sql tool accepts start with one of these, after comments and parentheses. */
const QUERY_KEYWORDS = new Set(['select', 'with', 'values']);

/**
 * Refuses anything that does not read like a query. This is a courtesy for a clear message;
 * what enforces read-only is the engine (see each engine's readOnlyStatement).
 */
export function requireQuery(text: string): void {
  const stripped = text.replace(/^(\s+|--[^\n]*\n?|\/\*(?!M?!)[\s\S]*?\*\/|\()*/, '');
  const keyword = /^[A-Za-z]+/.exec(stripped)?.[0]?.toLowerCase();
  if (!keyword || !QUERY_KEYWORDS.has(keyword)) {
    throw new ToolError(
      'read_only',
      `sql: only a query (SELECT, WITH ... SELECT or VALUES) can run here; got ${keyword ? keyword.toUpperCase() : 'no statement'}`,
    );
  }
}
