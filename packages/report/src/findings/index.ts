export type { Claim, Finding } from './common.js';
export { type FindingsOptions, studyFindings } from './findings.js';
export { findingsHtml, findingsMarkdown } from './page.js';
export { studyClaims } from './rerun.js';
export { shares } from './time.js';
