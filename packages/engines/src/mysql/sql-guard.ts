import type { AnyDb } from '../engine.js';
import { refuse, type SqlPolicy, scan, type Token } from '../sql-guard.js';
import { ALLOWED, NOT_CALLS, REFUSED } from './functions.js';
import { isIdent, LEXICON, lex } from './lexicon.js';

export { lex };

const SESSION = 'it leaves a value on a pooled connection that the next caller would see';
const NO_POLICY: SqlPolicy = { allowFunctions: new Set() };

/** The tokens that are not comments, each with whether a comment stood just before it. */
function code(tokens: readonly Token[]): { token: Token; afterComment: boolean }[] {
  const out: { token: Token; afterComment: boolean }[] = [];
  let comment = false;
  for (const token of tokens) {
    if (token.kind === 'comment') comment = true;
    else {
      out.push({ token, afterComment: comment });
      comment = false;
    }
  }
  return out;
}

const is = (t: Token | undefined, value: string) =>
  t !== undefined && (t.kind === 'word' || t.kind === 'symbol') && t.value.toLowerCase() === value;

/** The index of the `)` that closes the `(` at `open`, or the end. */
function closing(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (is(tokens[i], '(')) depth++;
    else if (is(tokens[i], ')') && --depth === 0) return i;
  }
  return tokens.length;
}

/**
 * A name before `(` that the grammar itself takes, not a call: `match (a) against (...)`,
 * JSON_TABLE (a table function, known by the `columns (` in it) and its `'path' columns (`, and a
 * CTE's column list (`with t (a, b) as (`, the name quoted or not). Written anywhere else, each is
 * a syntax error.
 */
function grammar(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  const close = closing(tokens, i + 1);
  if (is(tokens[close + 1], 'as') && is(tokens[close + 2], '(')) return true;
  if (t.kind !== 'word') return false;
  const name = t.value.toLowerCase();
  if (name === 'against') return is(tokens[i - 1], ')');
  if (name === 'columns') return tokens[i - 1]?.kind === 'string';
  return (
    name === 'json_table' && tokens.slice(i + 2, close).some((n, j, inner) => is(n, 'columns') && is(inner[j + 1], '('))
  );
}

/** Refuses a call of `name` (`full`: qualified), a built-in on the list written so that it may not be one (`reason`). */
function refuseCall(shown: string, name: string, full: string, reason: string): never {
  if (REFUSED[name]) refuse(name.toUpperCase(), REFUSED[name]);
  const allow = `to allow it, start the server with --sql-allow-function ${full}`;
  if (ALLOWED.has(name)) refuse(`${shown}(`, `${reason}; write ${name.toUpperCase()}( plainly, or ${allow}`);
  refuse(
    `the function ${shown}`,
    `it is not a built-in known to be safe (a stored function, a UDF or a newer built-in); ${allow}`,
  );
}

/**
 * Refuses every call of a function that is not a built-in on the list (functions.ts), unless the
 * operator allows its name: a word or name before `(`, however quoted or qualified. A quoted
 * name, a qualified one and one with a comment before its `(` are how MariaDB calls a stored
 * function, so only the operator's list allows them.
 */
function refuseCalls(tokens: readonly { token: Token; afterComment: boolean }[], policy: SqlPolicy): void {
  const plain = tokens.map((t) => t.token);
  // MySQL's function names ignore case, and so does the operator's list
  const allowed = new Set([...policy.allowFunctions].map((n) => n.toLowerCase()));
  for (const [i, t] of plain.entries()) {
    const next = tokens[i + 1];
    if (!next || !is(next.token, '(')) continue;
    if (!(t.kind === 'word' || t.kind === 'identifier' || (t.kind === 'string' && t.text.startsWith('"')))) continue;
    const name = t.value.toLowerCase();
    const qualified = is(plain[i - 1], '.');
    const full = qualified ? `${plain[i - 2]?.value.toLowerCase()}.${name}` : name;
    if (allowed.has(full) || allowed.has(name)) continue;
    const word = t.kind === 'word' && !qualified;
    // keywords are keywords whatever stands between them and `(`
    if ((word && NOT_CALLS.has(name)) || grammar(plain, i)) continue;
    if (word && !next.afterComment && ALLOWED.has(name)) continue;
    const shown = word ? name.toUpperCase() : `${qualified ? `${plain[i - 2]?.text}.` : ''}${t.text}`;
    const how = word ? 'with a comment before its parenthesis' : 'quoted or qualified';
    refuseCall(shown, name, full, `${how}, MariaDB may call a stored function of that name, not the built-in`);
  }
}

/** The words a query begins with (after its opening parentheses). */
const QUERY_STARTS = new Set(['select', 'with', 'values']);

/**
 * Refuses a statement that is not a query. The runner prepares the text as it is (MariaDB ignores
 * an ORDER BY in a derived table, so it is not wrapped), and the server prepares nearly any
 * statement: run there, `KILL <id>` ended another tool's connection of the same login, and
 * `SET STATEMENT max_statement_time = 0 FOR SELECT ...` lifted the statement timeout.
 */
function refuseNonQuery(tokens: readonly { token: Token }[]): void {
  const first = tokens.find(({ token }) => !is(token, '('))?.token;
  if (first?.kind === 'word' && QUERY_STARTS.has(first.value.toLowerCase())) return;
  refuse(
    first ? first.text.toUpperCase() : 'an empty statement',
    'only a query (SELECT, WITH ... SELECT, VALUES) runs here',
  );
}

/** A read-only transaction refuses FOR UPDATE, but not these locking reads. */
const LOCKING_READS: readonly (readonly string[])[] = [
  ['lock', 'in', 'share', 'mode'],
  ['for', 'share'],
  ['for', 'update'],
];

/**
 * Refuses a locking read: MariaDB's `start transaction read only` lets `LOCK IN SHARE MODE` take
 * row locks, and other sessions' writes to those rows (and inserts into their gaps) wait until the
 * statement ends, which with SLEEP is its whole time limit. FOR UPDATE, which the transaction
 * refuses, and MySQL 8's FOR SHARE are refused here too, so the message says why.
 */
function refuseLockingReads(tokens: readonly { token: Token }[]): void {
  for (let i = 0; i < tokens.length; i++)
    for (const words of LOCKING_READS)
      if (words.every((w, k) => tokens[i + k]?.token.kind === 'word' && is(tokens[i + k]!.token, w)))
        refuse(
          words.join(' ').toUpperCase(),
          "it locks rows, which a read-only transaction allows: other sessions' writes would wait for the statement",
        );
}

/**
 * The `?` the server reads as parameter markers (MY_LEX_PLACEHOLDER: not followed by a name
 * character) must be as many as the values bound: each value goes to the server beside the
 * statement (read-only.ts), and a count that differs means the statement is not the one written.
 */
export function requireMarkers(text: string, bound: number): void {
  // scan, not lex: a custom tool's statement, which no guard reads, may hold what lex refuses
  const markers = scan(text, LEXICON).filter(
    (t) => t.kind === 'symbol' && t.value === '?' && !isIdent(text[t.end]),
  ).length;
  if (markers !== bound)
    refuse(
      `a statement with ${markers} parameter marker${markers === 1 ? '' : 's'} (?) for ${bound} value${bound === 1 ? '' : 's'}`,
      'write each value as a :name parameter',
    );
}

/**
 * Refuses what `start transaction read only` lets through: any statement but a query, files read
 * or written on the database host (`LOAD_FILE`, `SELECT ... INTO OUTFILE/DUMPFILE`, which need
 * only the FILE privilege), named locks and user variables that stay on the connection, row locks
 * (`LOCK IN SHARE MODE`), version comments (`/*! ... *\/`), which the server runs as code,
 * optimizer hints, and every function call
 * that is not a built-in on the list (functions.ts) or named by the operator (`policy.allowFunctions`).
 */
export function sqlGuard(_db: AnyDb, text: string, policy: SqlPolicy = NO_POLICY): void {
  const tokens = lex(text);
  const plain = code(tokens);
  refuseNonQuery(plain);
  for (const [i, t] of tokens.entries()) {
    // MySQL reads `/*+ ... */` after SELECT as hints, and MAX_EXECUTION_TIME or SET_VAR there
    // would lift the statement timeout or change settings; MariaDB 10.11 reads a comment.
    if (t.kind === 'comment' && t.text.startsWith('/*+'))
      refuse(
        'an optimizer hint (/*+ ... */)',
        'MySQL reads it as hints that can lift the time limit or change settings',
      );
    if (t.kind === 'word' && t.value.toLowerCase() === 'into') {
      const target = tokens
        .slice(i + 1)
        .find((n) => n.kind !== 'comment')
        ?.value.toLowerCase();
      if (target === 'outfile' || target === 'dumpfile')
        refuse(`SELECT ... INTO ${target.toUpperCase()}`, 'it writes a file on the database host');
      refuse('SELECT ... INTO', 'it stores the result in variables or a file instead of returning it');
    }
    if (t.kind === 'symbol' && t.value === ':' && tokens[i + 1]?.kind === 'symbol' && tokens[i + 1]?.value === '=') {
      refuse('assigning a user variable (:=)', SESSION);
    }
  }
  refuseLockingReads(plain);
  refuseCalls(plain, policy);
}
