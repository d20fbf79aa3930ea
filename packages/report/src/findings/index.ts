export { type Finding, shares, studyFindings } from './findings.js';
export { findingsHtml, findingsMarkdown } from './page.js';
