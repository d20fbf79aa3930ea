#!/usr/bin/env node
// Every package imports only what its package.json declares: a bare import in src/ needs a
// dependency or peer dependency (a devDependency will do for `import type`, which leaves no
// trace at run time); in test/ and bench/ a devDependency will do too. A relative import may
// not leave its package's src/. And the workspace packages depend on one another in one
// direction only (LAYERS). Run by `pnpm lint`; prints each offence and exits 1.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const BUILTIN = new Set(builtinModules);
const SOURCE = /\.(ts|mts|js|mjs)$/;
// `import ... from 'x'`, `export ... from 'x'`, `import 'x'`, `import('x')`, `import x = require('x')`
const IMPORT = new RegExp(
  [
    /(?:^|[\s;])(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/.source,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/.source,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/.source,
  ].join('|'),
  'g',
);
// `import('x').Name` or `import('x')[...]`: a type position
const TYPE_IMPORT = /^\bimport\(\s*['"][^'"]+['"]\s*\)\s*[.[]/;

function* files(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/**
 * The workspace packages each may depend on (dependencies, peer or optional; a test-only
 * devDependency is free): contract needs nothing; report reads result files with the contract
 * alone; server and agent never reach each other (the agent speaks only MCP); the CLI wires them.
 */
const LAYERS = {
  '@mcp-db-bench/contract': [],
  '@mcp-db-bench/report': ['@mcp-db-bench/contract'],
  '@mcp-db-bench/engines': ['@mcp-db-bench/contract'],
  '@mcp-db-bench/dataset': ['@mcp-db-bench/contract', '@mcp-db-bench/engines'],
  '@mcp-db-bench/server': ['@mcp-db-bench/contract', '@mcp-db-bench/engines'],
  '@mcp-db-bench/loadgen': ['@mcp-db-bench/contract', '@mcp-db-bench/report'],
  '@mcp-db-bench/testing': ['@mcp-db-bench/engines'],
};

const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const offences = [];
for (const group of ['packages', 'apps']) {
  for (const name of readdirSync(join(ROOT, group))) {
    const dir = join(ROOT, group, name);
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    const declared = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
    const runtime = new Set([manifest.name, ...Object.keys(declared)]);
    const allowed = LAYERS[manifest.name];
    for (const dep of Object.keys(declared).filter((d) => d.startsWith('@mcp-db-bench/'))) {
      if (allowed && !allowed.includes(dep))
        offences.push(`${relative(ROOT, join(dir, 'package.json'))}: ${manifest.name} may not depend on ${dep}`);
    }
    const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
    for (const part of ['src', 'test', 'bench']) {
      const top = join(dir, part);
      for (const file of files(top)) {
        const text = readFileSync(file, 'utf8');
        for (const m of text.matchAll(IMPORT)) {
          const specifier = m[3] ?? m[4] ?? m[5];
          const end = m.index + m[0].length;
          const typeOnly = Boolean(m[2]) || TYPE_IMPORT.test(m[0].trimStart() + text.slice(end, end + 2));
          const where = `${relative(ROOT, file)}: '${specifier}'`;
          if (specifier.startsWith('.')) {
            const outside = relative(top, resolve(file, '..', specifier)).startsWith('..');
            if (part === 'src' && outside) offences.push(`${where} leaves ${relative(ROOT, top)}`);
            continue;
          }
          if (specifier.startsWith('node:') || BUILTIN.has(specifier) || /^[/#]/.test(specifier)) continue;
          const pkg = packageOf(specifier);
          if (runtime.has(pkg)) continue;
          if ((part !== 'src' || typeOnly) && dev.has(pkg)) continue;
          if (typeOnly && dev.has(`@types/${pkg.replace(/^@([^/]+)\//, '$1__')}`)) continue;
          offences.push(`${where}: ${pkg} is not declared in ${relative(ROOT, join(dir, 'package.json'))}`);
        }
      }
    }
  }
}
for (const offence of offences) console.error(offence);
if (offences.length > 0) process.exit(1);
