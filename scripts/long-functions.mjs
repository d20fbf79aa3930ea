#!/usr/bin/env node
// @ts-check
// Functions of 100 lines or more in the packages' and apps' src/ and bench/ (declarations,
// methods, arrow functions and function expressions, nested ones counted on their own), longest
// first: `node scripts/long-functions.mjs [min-lines]`. With --check (`pnpm lint` runs it), any
// function of 100 lines or more fails: split it at its seams.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const check = args.includes('--check');
const MIN = Number(args.find((a) => a !== '--check') ?? 100);

/** @param {string} dir @returns {Generator<string>} */
function* files(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/** @param {ts.Node} node @param {ts.SourceFile} source */
function nameOf(node, source) {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText(source);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

const found = [];
for (const group of ['packages', 'apps']) {
  for (const pkg of readdirSync(join(ROOT, group))) {
    for (const part of ['src', 'bench']) {
      let top;
      try {
        top = join(ROOT, group, pkg, part);
        statSync(top);
      } catch {
        continue;
      }
      for (const file of files(top)) {
        const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
        /** @param {ts.Node} node */
        const visit = (node) => {
          if (ts.isFunctionLike(node) && 'body' in node && node.body) {
            const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
            const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
            const lines = end - start + 1;
            if (lines >= MIN)
              found.push({ lines, where: `${relative(ROOT, file)}:${start + 1}`, name: nameOf(node, source) });
          }
          ts.forEachChild(node, visit);
        };
        visit(source);
      }
    }
  }
}
found.sort((a, b) => b.lines - a.lines);
for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.name}  ${f.where}`);
console.error(`${found.length} function(s) of ${MIN} lines or more`);
if (check && found.length) process.exitCode = 1;
