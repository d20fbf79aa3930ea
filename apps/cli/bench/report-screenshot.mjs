// The README's picture of the HTML report: the top of a report, drawn offline in Chromium.
//
//   node apps/cli/dist/bin.js run --db sqlite:bench.db --out result.json --html report.html
//   node apps/cli/bench/report-screenshot.mjs report.html docs/images/report.png
//
// Chromium: Debian's package (/usr/bin/chromium) or CHROMIUM_PATH, as the browser test uses.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [html, png] = process.argv.slice(2);
if (!html || !png) {
  console.error('usage: node apps/cli/bench/report-screenshot.mjs REPORT.html OUT.png');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1320, height: 1180 } });
  // the report needs nothing from the network: refuse it, as the test does
  await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
  await page.goto(pathToFileURL(resolve(html)).href);
  await page.waitForLoadState('load');
  await page.screenshot({ path: png });
} finally {
  await browser.close();
}
