import { DatasetExistsError, type IndexSet, MARKER_TABLE, seedInWorker, TABLES } from '@mcp-db-bench/dataset';
import { redactUrl } from '@mcp-db-bench/engines';
import { onDatabase } from '../errors.js';

/**
 * Seeds a database that has no dataset yet; one that has it is used as it is, and said to be of
 * another scale or seed than asked where it is (its figures are of the rows it holds).
 */
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
    const held = error.dataset;
    const other =
      held?.scale != null && (held.scale !== options.scale || held.seed !== options.seed)
        ? `, at scale ${held.scale} and seed ${held.seed}, not the scale ${options.scale} and seed ${options.seed} asked: ` +
          `its figures are of the rows it holds`
        : '';
    log(`${redactUrl(url)}: using the dataset tables already there${other} (seed --force to reload)`);
  }
}
