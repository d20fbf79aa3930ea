import type { Catalog } from './types.js';

/**
 * A bounded memo per catalog: a reloaded catalog is a new object, so nothing computed from an
 * older one is served. At `most` entries a catalog's memo starts again (callers choose the keys).
 */
export function memoPerCatalog<T>(most: number): (catalog: Catalog, key: string, compute: () => T) => T {
  const memos = new WeakMap<Catalog, Map<string, T>>();
  return (catalog, key, compute) => {
    let memo = memos.get(catalog);
    if (!memo) {
      memo = new Map();
      memos.set(catalog, memo);
    }
    if (memo.has(key)) return memo.get(key)!;
    if (memo.size >= most) memo.clear();
    const value = compute();
    memo.set(key, value);
    return value;
  };
}

const answers = memoPerCatalog<Promise<unknown>>(512);

/**
 * The answer of a tool that reads only the catalog (list_tables, describe_table), computed once
 * per catalog and arguments: an agent's session start asks the same questions every time.
 */
export function reuseForCatalog<T>(
  catalog: Catalog,
  tool: { name: string },
  args: unknown,
  compute: () => Promise<T>,
): Promise<T> {
  return answers(catalog, `${tool.name} ${JSON.stringify(args)}`, compute) as Promise<T>;
}
