import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** uPlot's minified script and stylesheet, read from the installed package, to inline into a page. */
export function uplotAssets(): { script: string; style: string } {
  const dir = join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');
  return {
    script: readFileSync(join(dir, 'uPlot.iife.min.js'), 'utf8'),
    style: readFileSync(join(dir, 'uPlot.min.css'), 'utf8'),
  };
}
