import type { AnyDb } from '../engine.js';
import { type ForbiddenNames, refuseNames, scan } from '../sql-guard.js';
import { LEXICON } from './lexicon.js';

const FILES = 'it reaches files on the database host';
const REMOTE = 'it runs a query on another server or reads an external file';

/**
 * What a statement on SQL Server could reach beyond the database. SQL Server has no read-only
 * transaction, so the server offers no sql tool there (`--sql` is refused at start): this list is
 * what such a tool would refuse first, kept with the engine and checked by unit tests. It is not
 * the read-only guarantee (T-SQL needs no `;` between statements; only the engine can refuse writes).
 */
const FORBIDDEN: ForbiddenNames = {
  exact: {
    exec: 'it runs a procedure',
    execute: 'it runs a procedure',
    into: 'SELECT ... INTO creates a table',
    openrowset: REMOTE,
    opendatasource: REMOTE,
    openquery: REMOTE,
    bulk: FILES,
    fn_xe_file_target_read_file: FILES,
    fn_get_audit_file: FILES,
    fn_trace_gettable: FILES,
    dm_os_enumerate_filesystem: FILES,
    dm_os_file_exists: FILES,
  },
  prefixes: {
    // xp_cmdshell runs programs; the others read the file system and the registry
    xp_: 'extended procedures reach the host',
    // sp_getapplock's locks outlive the call; sp_executesql, sp_OACreate and the like run anything
    sp_: 'system procedures act on the server or keep state past the call',
  },
};

export function sqlGuard(_db: AnyDb, text: string): void {
  refuseNames(scan(text, LEXICON), FORBIDDEN);
}
