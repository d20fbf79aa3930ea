#!/usr/bin/env node
// The bin pnpm links at install, before anything is built: the built one, or what to do first.
import { existsSync } from 'node:fs';

const built = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('mcp-db-bench is not built yet: run `pnpm build` in the repository first\n');
  process.exit(1);
}
await import(built.href);
