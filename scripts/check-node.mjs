#!/usr/bin/env node
// `pnpm start`'s first step, before the build: this Node.js against the root package.json's
// `engines.node` (">=X.Y.Z"). The bins check the same themselves (packages/server/src/node-version.ts,
// whose MIN_NODE a test holds equal to every engines field); this one runs before anything is built.
import { readFileSync } from 'node:fs';

const minimum = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node.slice(2);
const [have, need] = [process.versions.node, minimum].map((v) => v.split('.').map(Number));
const first = need.findIndex((n, i) => have[i] !== n); // the first part that differs decides
if (first >= 0 && have[first] < need[first]) {
  process.stderr.write(`mcp-db-bench needs Node.js ${minimum} or newer; this is ${process.versions.node}\n`);
  process.exit(1);
}
