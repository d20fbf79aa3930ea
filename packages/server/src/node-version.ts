/**
 * The oldest Node.js every dependency runs on: undici 8 (the CLI's HTTP client) declares
 * `>=22.19.0`, commander 15 `>=22.12.0`, OpenTelemetry 0.301 `>=22.15.0`, better-sqlite3 13 `>=22`.
 * Older, the bins fail deep inside one of them (undici's `TypeError ... reading 'bind'` on 20,
 * a segfault in better-sqlite3), so each bin checks first, before it imports anything else.
 * This module imports nothing, so it runs on any Node.js that can load it.
 */
export const MIN_NODE = '22.19.0';

const parts = (version: string): number[] =>
  version
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);

/** What is wrong with running `program` on Node.js `version` (`process.versions.node`), or undefined. */
export function nodeVersionProblem(program: string, version: string, minimum = MIN_NODE): string | undefined {
  const have = parts(version);
  const need = parts(minimum);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i]!;
    if (a > b) return undefined;
    if (a < b) return `${program} needs Node.js ${minimum} or newer; this is ${version.replace(/^v/, '')}`;
  }
  return undefined;
}

/** Exits 1 with the line above on stderr when this Node.js is too old. */
export function exitIfNodeTooOld(program: string): void {
  const problem = nodeVersionProblem(program, process.versions.node);
  if (problem === undefined) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
