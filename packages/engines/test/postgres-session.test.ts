import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgres } from '../src/postgres/index.js';
import { checkSession, sessionSettings, startupOptions } from '../src/postgres/session.js';
import { liveUrl } from './support/databases.js';

/**
 * The server's PostgreSQL session settings (read-only, UTC, statement timeout) travel in the
 * `options` startup parameter, which a pooler may drop. Every new session is checked, and one
 * without them refused, so the server never claims "read-only" over a session that can write
 * (the server's pg-session.test.ts starts it through a pooler that drops them).
 */

const PG_URL = liveUrl(postgres);

describe('PostgreSQL session settings', () => {
  it('the settings as a startup parameter', () => {
    expect(startupOptions(sessionSettings(true, 1500.4))).toBe(
      '-c TimeZone=UTC -c lc_monetary=C -c standard_conforming_strings=on -c default_transaction_read_only=on -c statement_timeout=1500',
    );
    expect(startupOptions(sessionSettings(false, 0))).toBe(
      '-c TimeZone=UTC -c lc_monetary=C -c standard_conforming_strings=on',
    );
  });

  it.runIf(PG_URL)('a session without them is refused with the fix, one with them passes', async () => {
    const client = new pg.Client({ connectionString: PG_URL, options: '-c TimeZone=UTC -c lc_monetary=C' });
    await client.connect();
    try {
      await expect(checkSession(client, { TimeZone: 'UTC', lc_monetary: 'C' })).resolves.toBeUndefined();
      const refused = checkSession(client, sessionSettings(true, 30_000));
      await expect(refused).rejects.toThrow(/default_transaction_read_only = off, statement_timeout = 0\)/);
      await expect(refused).rejects.toThrow(/ALTER ROLE \S+ SET default_transaction_read_only = 'on';/);
    } finally {
      await client.end();
    }
  });
});
