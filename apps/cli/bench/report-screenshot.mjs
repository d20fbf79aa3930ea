// The docs' pictures of the HTML reports: the top of a page, or one section of it (--section ID,
// the section's id: timeline, scaling, ...), drawn offline in Chromium at 1000 px (the width the
// browser test checks for clipping), or --width.
//
//   node apps/cli/dist/bin.js run --db sqlite:bench.db --out result.json --html report.html
//   node apps/cli/bench/report-screenshot.mjs report.html docs/images/report.png
//   node apps/cli/dist/bin.js compare before.json after.json --format html -o compare.html
//   node apps/cli/bench/report-screenshot.mjs compare.html docs/images/compare.png
//   node apps/cli/bench/report-screenshot.mjs spike.html docs/images/spike-timeline.png --section timeline
//
// Chromium: Debian's package (/usr/bin/chromium) or CHROMIUM_PATH, as the browser test uses.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values, positionals } = parseArgs({
  options: {
    width: { type: 'string', default: '1000' },
    height: { type: 'string', default: '1180' },
    section: { type: 'string' },
  },
  allowPositionals: true,
});
const [html, png] = positionals;
if (!html || !png) {
  console.error(
    'usage: node apps/cli/bench/report-screenshot.mjs REPORT.html OUT.png [--width 1000] [--height 1180] [--section ID]',
  );
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage({ viewport: { width: Number(values.width), height: Number(values.height) } });
  // the report needs nothing from the network: refuse it, as the test does
  await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
  await page.goto(pathToFileURL(resolve(html)).href);
  await page.waitForLoadState('load');
  if (values.section) {
    const section = page.locator(`section#${values.section}`);
    if ((await section.count()) === 0) throw new Error(`${html} has no section with id ${values.section}`);
    await section.screenshot({ path: png });
  } else await page.screenshot({ path: png });
} finally {
  await browser.close();
}
