import type { AnyDb } from '../engine.js';
import { type ForbiddenNames, refuseNames, scan } from '../sql-guard.js';
import { LEXICON } from './lexicon.js';

const FILES = 'it reaches files on the host';

/**
 * What SQLite could reach beyond the database file. The engine already stops most of it: the
 * statement runs in a process that opened the file read-only, better-sqlite3 prepares one
 * statement (so ATTACH, PRAGMA and VACUUM INTO cannot follow a query), the statement is wrapped
 * as `select * from (...)`, and the SQL function `load_extension` is off (only the C API is on).
 * The guard refuses them by name all the same, with a clear message, and the file functions of
 * SQLite's shell (fileio), should a build ever carry them.
 */
const FORBIDDEN: ForbiddenNames = {
  exact: {
    load_extension: 'it loads native code into the server',
    fts3_tokenizer: 'it registers native code with the connection',
    readfile: FILES,
    writefile: FILES,
    edit: FILES,
    fsdir: FILES,
    attach: 'it opens another database file',
    detach: 'it changes the connection',
    pragma: 'it changes or inspects the connection outside the query',
    vacuum: 'VACUUM INTO writes a file',
  },
};

export function sqlGuard(_db: AnyDb, text: string): void {
  refuseNames(scan(text, LEXICON), FORBIDDEN);
}
