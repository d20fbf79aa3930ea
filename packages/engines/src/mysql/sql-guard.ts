import type { AnyDb } from '../engine.js';
import { type ForbiddenNames, type Lexicon, refuse, refuseNames, scan, type Token } from '../sql-guard.js';

/**
 * MySQL's and MariaDB's lexical rules as the server's sessions have them: backslash escapes in
 * strings (connect.ts keeps NO_BACKSLASH_ESCAPES off), `#` and `-- ` line comments (two dashes
 * and then a space or control character: `1--1` is arithmetic), block comments that do not nest.
 * Double quotes are strings, or identifiers under ANSI_QUOTES: the guard reads them as both.
 */
const LEXICON: Lexicon = {
  strings: { "'": { backslash: true }, '"': { backslash: true } },
  identifiers: { '`': '`' },
  lineComment: (text, i) => {
    if (text[i] === '#') return 1;
    // The server's test is isspace or iscntrl of the next byte (or the end): ASCII space and
    // control characters, DEL among them; `--\u00a0` is no comment to MySQL, so not to us.
    if (text[i] !== '-' || text[i + 1] !== '-') return 0;
    const next = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
    return next <= 32 || next === 127 ? 2 : 0;
  },
  // sql_lex.cc reads a comment to the newline: a carriage return is part of it
  lineEnd: /\n/,
  nestedComments: false,
};

/**
 * The text as the guard reads it (the differential tests compare this reading with the server's).
 * A version comment (`/*! ... *\/`, `/*M! ... *\/`) is code to a server of that version or later and
 * a comment to older ones: no reading fits both, so it is refused here, and so is a control
 * character outside a string or comment.
 */
export function lex(text: string): Token[] {
  const tokens = scan(text, LEXICON);
  for (const t of tokens) {
    if (t.kind === 'comment' && /^\/\*M?!/.test(t.text))
      refuse('an executable comment (/*! ... */)', 'MySQL runs its text as code');
    // The server reads one as a stray character (a syntax error); nothing needs one, so it never gets that far.
    if (t.kind === 'symbol' && (t.value.charCodeAt(0) < 32 || t.value === '\x7f'))
      refuse('a control character outside a string', 'only spaces, tabs and line breaks separate words');
  }
  return tokens;
}

const FILES = 'it reads a file on the database host';
const LOCKS = 'named locks belong to the connection and outlive the call, which holds a pooled connection';
const SESSION = 'it leaves a value on a pooled connection that the next caller would see';

/**
 * Functions (and words) that reach outside the database or keep state past the call. MySQL has no
 * parser or catalog to ask, so these are refused wherever they appear as a word or quoted name,
 * outside strings and comments: a column that happens to share a name is refused too.
 */
const FORBIDDEN: ForbiddenNames = {
  exact: {
    load_file: FILES,
    get_lock: LOCKS,
    release_lock: LOCKS,
    release_all_locks: LOCKS,
    is_free_lock: LOCKS,
    is_used_lock: LOCKS,
    last_insert_id: SESSION,
    // lib_mysqludf_sys, where installed: run a program on the database host
    sys_exec: 'it runs a program on the database host',
    sys_eval: 'it runs a program on the database host',
  },
};

/**
 * Refuses what `start transaction read only` lets through: files read or written on the database
 * host (`LOAD_FILE`, `SELECT ... INTO OUTFILE/DUMPFILE`, which need only the FILE privilege), named
 * locks and user variables that stay on the pooled connection after the rollback, and version
 * comments (`/*! ... *\/`), which the server runs as code.
 */
export function sqlGuard(_db: AnyDb, text: string): void {
  const tokens = lex(text);
  // mysql2 puts parameter values into the text itself, at each `?` in turn, wherever it is (a
  // string, a comment), and reads `??` as a quoted name: either would make the text that runs
  // differ from the text checked here.
  const placeholders = tokens.filter((t) => t.kind === 'symbol' && t.value === '?').length;
  if (placeholders > 0 && (text.includes('??') || text.split('?').length - 1 !== placeholders)) {
    refuse(
      'a ? in a string, comment or name, or two parameters side by side',
      'the driver would put a parameter value there',
    );
  }
  for (const [i, t] of tokens.entries()) {
    // Under ANSI_QUOTES a backslash ends nothing in a quoted name: the two readings would differ.
    if (t.text.startsWith('"') && t.text.includes('\\'))
      refuse('a backslash in double quotes', 'ANSI_QUOTES would read the text differently; use single quotes');
    if (t.kind === 'word' && t.value.toLowerCase() === 'into') {
      const target = tokens[i + 1]?.value.toLowerCase();
      if (target === 'outfile' || target === 'dumpfile')
        refuse(`SELECT ... INTO ${target.toUpperCase()}`, 'it writes a file on the database host');
      refuse('SELECT ... INTO', 'it stores the result in variables or a file instead of returning it');
    }
    if (t.kind === 'symbol' && t.value === ':' && tokens[i + 1]?.kind === 'symbol' && tokens[i + 1]?.value === '=') {
      refuse('assigning a user variable (:=)', SESSION);
    }
  }
  refuseNames(
    tokens.map((t) => (t.kind === 'string' && t.text.startsWith('"') ? { ...t, kind: 'identifier' } : t)),
    FORBIDDEN,
  );
}
