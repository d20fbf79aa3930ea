import { engineForGivenUrl, redactUrl } from '@mcp-db-bench/engines';

/** One `--url` value: a URL, or `NAME=URL` when several databases are served. */
export interface DatabaseUrl {
  /** absent for a plain URL (one database) */
  name?: string;
  url: string;
}

/** What a database may be called: short, and safe in a JSON Schema enum and a log line. */
export const DATABASE_NAME = /^[a-z][a-z0-9_]*$/;

/** A `--url` list that cannot be served: a command-line mistake. */
export class DatabaseListError extends Error {}

/** Commander's collector for a repeatable option: each value appended to the ones before. */
export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/**
 * A `--url` value split into name and URL. A URL always starts with its scheme and a colon
 * (`postgres:`, `sqlite:`) and may hold '=' afterwards (a query string, a file name), so the
 * text before the first '=' is a name exactly when it holds no ':'. A name that is not a short
 * identifier is refused rather than read as a URL.
 */
export function splitDatabaseUrl(value: string): DatabaseUrl {
  const eq = value.indexOf('=');
  if (eq < 0 || value.slice(0, eq).includes(':')) return { url: value };
  const name = value.slice(0, eq);
  if (!DATABASE_NAME.test(name))
    throw new DatabaseListError(
      `--url ${name}=...: a database name is a short identifier: a lowercase letter, then lowercase letters, digits or _`,
    );
  const url = value.slice(eq + 1);
  if (!url) throw new DatabaseListError(`--url ${name}=: no URL after the name`);
  return { name, url };
}

/**
 * The databases the `--url` values name, each URL's engine known. One value is one database, as
 * it always was (a name, if given, only labels it). Several must each be named, each name once.
 */
export function databaseUrls(values: readonly string[]): DatabaseUrl[] {
  const urls = values.map(splitDatabaseUrl);
  for (const { name, url } of urls) {
    try {
      engineForGivenUrl(url);
    } catch (error) {
      if (urls.length < 2) throw error;
      throw new DatabaseListError(`--url ${name ?? redactUrl(url)}: ${(error as Error).message}`);
    }
  }
  if (urls.length < 2) return urls;
  const seen = new Set<string>();
  for (const { name, url } of urls) {
    if (name === undefined)
      throw new DatabaseListError(
        `--url ${redactUrl(url)}: when several databases are served each needs a name: --url NAME=URL`,
      );
    if (seen.has(name)) throw new DatabaseListError(`--url ${name}=...: the name ${name} is given twice`);
    seen.add(name);
  }
  return urls;
}
