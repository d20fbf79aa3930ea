import type { Catalog, Table } from '../catalog/types.js';
import type { DecodeTarget } from '../output/decode.js';

/** An identifier in SQL text: a bare word, or one quoted as any family quotes it. */
const IDENTIFIER = /"((?:[^"]|"")+)"|`((?:[^`]|``)+)`|\[([^\]]+)\]|([A-Za-z_][A-Za-z0-9_$]*)/g;

/**
 * The portable type of each of a statement's result columns that the catalog knows: a result
 * column named as a column of the tables the statement names, of one type (and scale) in every
 * one of them that has it (`select id, total, placed_at from orders`). A computed or renamed
 * column, or a name the tables type differently, is left out: its value is rendered as the
 * driver gave it, made JSON-safe. Pure: the statement text and the catalog.
 */
export function resultTypes(text: string, catalog: Catalog): (column: string) => DecodeTarget | undefined {
  const tables = namedTables(text, catalog);
  const known = new Map<string, DecodeTarget | undefined>();
  return (column) => {
    if (known.has(column)) return known.get(column);
    const types = tables.flatMap((t) => {
      const c = t.column.get(column);
      return c ? [{ type: c.type, scale: c.scale }] : [];
    });
    const first = types[0];
    const one = first && types.every((t) => t.type === first.type && t.scale === first.scale) ? first : undefined;
    known.set(column, one);
    return one;
  };
}

/** The catalog's tables whose names the text has as identifiers (outside string literals). */
function namedTables(text: string, catalog: Catalog): Table[] {
  const words = new Set<string>();
  const code = text.replace(/'(?:[^']|'')*'/g, "''");
  for (const m of code.matchAll(IDENTIFIER)) words.add(m[1] ?? m[2] ?? m[3] ?? m[4]!);
  return catalog.tables.filter((t) => words.has(t.name));
}
