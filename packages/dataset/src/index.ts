export { batches, Dataset, type GenerateOptions, generateRows, type Row, timestamp, type Value } from './generate.js';
export { RowRandom } from './random.js';
export {
  type DatasetColumn,
  type DatasetTable,
  datasetTable,
  INDEX_PROFILES,
  type IndexProfile,
  type IndexSpec,
  ITEMS_PER_ORDER,
  MAX_SCALE,
  rowCounts,
  TABLES,
} from './schema.js';
export { LOADERS, type Loader } from './loaders/index.js';
export { applyIndexProfile, type Checks, type SeedEvents, type SeedOptions, type SeedReport, seed, type TableReport, verify } from './seed.js';
export { seedInWorker } from './seed-worker.js';
