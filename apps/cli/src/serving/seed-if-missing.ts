import { DatasetExistsError, type IndexSet, MARKER_TABLE, seedInWorker, TABLES } from '@mcp-db-bench/dataset';
import { redactUrl } from '@mcp-db-bench/engines';
import { onDatabase } from '../errors.js';

/** Seeds a database that has no dataset yet; one that has it is used as it is. */
export async function seedIfMissing(
  url: string,
  options: { scale: number; seed: number; indexes: IndexSet },
  log: (line: string) => void,
): Promise<void> {
  try {
    const report = await onDatabase(url, () => seedInWorker({ url, ...options, force: false }));
    const rows = report.tables.reduce((n, t) => n + t.rows, 0);
    log(
      `${redactUrl(url)}: seeded ${rows.toLocaleString('en-US')} rows in ${report.seconds.toFixed(1)} s: tables ${TABLES.map((t) => t.name).join(', ')} and the marker ${MARKER_TABLE}`,
    );
  } catch (error) {
    if (!(error instanceof DatasetExistsError)) throw error;
    log(`${redactUrl(url)}: using the dataset tables already there (seed --force to reload)`);
  }
}
