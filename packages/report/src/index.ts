/**
 * Result files and everything that reads them: the file's reader and writer, the latency
 * histograms (encode, merge, percentiles), the shard merge, and every renderer (terminal and
 * Markdown tables, the HTML page, compare, JUnit, Prometheus, floor and soak), all pure
 * functions of a result file. Needs only the contract: reading a result needs no load generator.
 */
export { addUp, combineSlices, mergeOperations, mergeStats, stepName } from './combine.js';
export { comparisons, comparisonsOf, FLOOR_LABEL, floorBefore } from './comparisons.js';
export { environment } from './environment.js';
export { readResultFile, readRuns, writeResultFile, writeWhole } from './files.js';
export {
  type Claim,
  type Finding,
  type FindingsOptions,
  findingsHtml,
  findingsMarkdown,
  shares,
  studyClaims,
  studyFindings,
} from './findings/index.js';
export { int, median, ms, pct, rate, ratio, spread } from './format.js';
export { junitXml } from './gates/junit.js';
export { checkThresholds, parseThreshold, type Threshold, ThresholdSyntaxError } from './gates/thresholds.js';
export {
  decode,
  encode,
  type Histogram,
  type LatencySummary,
  merge,
  mergeHistograms,
  newHistogram,
  record,
  summarize,
  summary,
} from './histogram.js';
export { MergeError, mergeShards, type ShardFile } from './merge.js';
export {
  type Change,
  change,
  changeMark,
  compareHtml,
  compareJson,
  compareRuns,
  compareSections,
  DEFAULT_NOISE_PCT,
  FROM_ZERO,
  nothingShared,
  poolRuns,
  regressions,
} from './render/compare.js';
export { floorSections } from './render/floor.js';
export { roundLabel } from './render/groups.js';
export { htmlReport, type Run } from './render/html/index.js';
export { overview, PIPE_COLUMNS } from './render/overview.js';
export { prometheusText } from './render/prometheus.js';
export { replayLine } from './render/replay.js';
export { reportHeader, reportSections } from './render/report.js';
export { type ReportFormat, renderRuns } from './render/runs.js';
export { soakReport } from './render/soak.js';
export { formatStages, MAX_STAGE_ROWS, stageSections } from './render/stages.js';
export { type Section, toMarkdown, toTerminal } from './render/table.js';
export { type Judged, type JudgedRatio, judge, judged, machineLines, ratioName, withheldLines } from './verdicts.js';
