import type pg from 'pg';

/**
 * The settings every session needs, as `pg_settings` shows them. UTC makes timestamptz text end
 * in +00; C makes money text locale-independent; standard strings keep backslashes literal, as
 * the sql tool's guard reads them; the server itself refuses writes in a
 * read-only session and cancels slow statements.
 */
export function sessionSettings(
  readOnly: boolean | undefined,
  statementTimeoutMs: number | undefined,
): Record<string, string> {
  // The sql tool's guard parses as PostgreSQL's own parser does with standard strings; a database
  // or role default of off would make '\'' end elsewhere for the server, and hide code from the guard.
  const settings: Record<string, string> = { TimeZone: 'UTC', lc_monetary: 'C', standard_conforming_strings: 'on' };
  if (readOnly) settings.default_transaction_read_only = 'on';
  if (statementTimeoutMs) settings.statement_timeout = String(Math.round(statementTimeoutMs));
  return settings;
}

/** The settings as the `options` startup parameter (`-c name=value ...`). */
export function startupOptions(settings: Record<string, string>): string {
  return Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
}

/**
 * Refuses a session whose settings are not the ones asked for. The startup parameter carries
 * them, and a pooler in between may drop it (PgBouncer's `ignore_startup_parameters`), which
 * would leave a "read-only" server able to write. Settings made on the role or database count.
 */
export async function checkSession(client: pg.ClientBase, settings: Record<string, string>): Promise<void> {
  const names = Object.keys(settings)
    .map((name) => `'${name}'`)
    .join(', ');
  const { rows } = await client.query<{ name: string; setting: string; role: string }>(
    `select name, setting, quote_ident(current_user) as role from pg_settings where name in (${names})`,
  );
  const actual = new Map(rows.map((r) => [r.name, r.setting]));
  const wrong = Object.entries(settings).filter(([name, value]) => actual.get(name) !== value);
  if (wrong.length === 0) return;
  const found = wrong.map(([name]) => `${name} = ${actual.get(name) ?? 'unknown'}`).join(', ');
  const fix = wrong
    .map(([name, value]) => `ALTER ROLE ${rows[0]?.role ?? '<user>'} SET ${name} = '${value}';`)
    .join(' ');
  throw new Error(
    `PostgreSQL did not apply this server's session settings (${found}). A connection pooler may be dropping the ` +
      `"options" startup parameter (PgBouncer's ignore_startup_parameters). Connect to PostgreSQL directly, or set them ` +
      `on the role: ${fix}`,
  );
}
