import type { Catalog } from './types.js';

/** Answers kept per catalog: a reloaded catalog is a new object, so stale answers are never served. */
const answers = new WeakMap<Catalog, Map<string, Promise<unknown>>>();
const MOST = 512;

/**
 * The answer of a tool that reads only the catalog (list_tables, describe_table), computed once
 * per catalog and arguments: an agent's session start asks the same questions every time.
 */
export function reuseForCatalog<T>(catalog: Catalog, tool: { name: string }, args: unknown, compute: () => Promise<T>): Promise<T> {
  let forCatalog = answers.get(catalog);
  if (!forCatalog) {
    forCatalog = new Map();
    answers.set(catalog, forCatalog);
  }
  const key = `${tool.name} ${JSON.stringify(args)}`;
  let answer = forCatalog.get(key) as Promise<T> | undefined;
  if (!answer) {
    if (forCatalog.size >= MOST) forCatalog.clear();
    answer = compute();
    forCatalog.set(key, answer);
  }
  return answer;
}
