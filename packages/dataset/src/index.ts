export { type DatasetFacts, datasetFacts } from './facts.js';
export { batches, Dataset, type GenerateOptions, generateRows, type Row, type Value } from './generate.js';
export { ForeignTablesError, MARKER_TABLE } from './marker.js';
export {
  type DatasetColumn,
  type DatasetTable,
  INDEX_SETS,
  type IndexSet,
  type IndexSpec,
  ITEMS_PER_ORDER,
  MAX_SCALE,
  rowCounts,
  STUDY_TABLES,
  TABLES,
} from './schema.js';
export {
  applyIndexSet,
  type Checks,
  DatasetExistsError,
  type SeedEvents,
  type SeedOptions,
  type SeedReport,
  seed,
  type TableReport,
  verify,
} from './seed.js';
export { seedInWorker } from './seed-worker.js';
