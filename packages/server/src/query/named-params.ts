import { ToolError } from '@mcp-db-bench/contract';
import { skipQuoted, type TextLexicon } from '@mcp-db-bench/engines';

/** A statement split at its `:name` parameters: text, name, text, name, ..., text. */
export interface NamedStatement {
  texts: string[];
  names: string[];
}

/**
 * Finds `:name` parameters in SQL text where the engine reads code: outside its strings, quoted
 * names and comments as its own lexical rules have them (`lexicon`, the engine's), and not in a
 * PostgreSQL `::` cast. So a `:x` the engine reads inside SQLite's `[:x]`, MySQL's `'\':x'` or
 * PostgreSQL's `$$:x$$` stays text, and each parameter found becomes the engine's own placeholder
 * (made by the query compiler). Also drops one trailing `;`.
 */
export function splitNamedParameters(text: string, lexicon: TextLexicon): NamedStatement {
  const texts: string[] = [];
  const names: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const after = skipQuoted(text, i, lexicon);
    if (after > i) {
      i = after;
      continue;
    }
    const c = text[i]!;
    const next = text[i + 1];
    if (c === ':' && next === ':') i += 2;
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
