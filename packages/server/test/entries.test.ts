import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as publicEntry from '../src/index.js';
import * as testing from '../src/testing.js';

/** What users import is for serving; test knobs live behind `@mcp-db-bench/server/testing`. */
describe('the package entries', () => {
  it('the public entry exports no test knob', () => {
    expect(Object.keys(publicEntry).filter((name) => /TEST|DELAY/i.test(name))).toEqual([]);
  });

  it('./testing exports the test delay’s variable, and package.json maps it to the build', () => {
    expect(testing.TEST_DELAY_ENV).toBe('MCP_DB_BENCH_TEST_DELAY_MS');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    expect(pkg.exports['./testing']?.default).toBe('./dist/testing.js');
  });
});
