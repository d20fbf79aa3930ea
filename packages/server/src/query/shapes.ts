import { isDeepStrictEqual } from 'node:util';
import type { FilterNode } from '@mcp-db-bench/contract';
import { CompiledQuery } from 'kysely';
import { memoPerCatalog } from '../catalog/answers.js';
import type { Catalog } from '../catalog/types.js';

/** Per catalog and shape: the SQL text, or null when later calls cannot reuse it. Bounded: callers choose the shapes. */
const texts = memoPerCatalog<string | null>(512);

/**
 * A statement whose text depends only on its shape (engine, table, columns, the filter's
 * structure; never a value, which is always a parameter), compiled by kysely once per catalog
 * and shape. Later calls bind `params()` to that text, skipping kysely's build and compile.
 *
 * The first call checks that `params()` lists exactly what kysely bound, in its order; a shape
 * whose text takes anything else (SQL Server writes `top (n)` into the text) is compiled every
 * time. `params()` runs after a first compile, so that compile's errors come first, as always.
 */
export function compileShape(
  catalog: Catalog,
  shape: string,
  params: () => unknown[],
  compile: () => CompiledQuery,
): CompiledQuery {
  let fresh: CompiledQuery | undefined;
  const text = texts(catalog, shape, () => {
    fresh = compile();
    return isDeepStrictEqual(fresh.parameters, params()) ? fresh.sql : null;
  });
  if (fresh) return fresh;
  return text === null ? compile() : CompiledQuery.raw(text, params());
}

/**
 * A filter's structure without its values (a list's length stays: it is text): part of a shape.
 * No filter (undefined) and the filter no row passes (null, written `1 = 0`) are apart.
 */
export function filterShape(node: FilterNode | undefined | null): string {
  if (node === undefined) return '';
  return JSON.stringify(node, (key, value) => (key === 'value' ? (Array.isArray(value) ? value.length : 0) : value));
}
