import type { SqlPolicy } from '../sql-guard.js';
import { type GuardCatalog, isBuiltIn, type OperatorRow, type Origin } from './guard-catalog.js';
import type { NameRef, Parsed } from './parse.js';
import { KNOWN_SAFE } from './safe-functions.js';

/**
 * Deny by default: which function a parsed statement reaches that nobody allowed. A function is
 * allowed when the operator names it (SqlPolicy.allowFunctions, as written, on their
 * responsibility), or when it is on the list of known-safe built-ins (safe-functions.ts) and no
 * function that name reaches (on the session's search path, or in the schema written) is an
 * extension's or outside pg_catalog: an extension may overload a built-in's name. Each check
 * answers the refusal's message, or undefined.
 */

const ON_THE_LIST = 'not on the list of functions known to be safe (docs/safety.md, "Deny by default")';

/** How to allow what was refused. */
function allowHint(names: readonly string[]): string {
  const flags = names.map((n) => `--sql-allow-function ${n}`).join(' ');
  return `allow ${names.length === 1 ? 'it' : 'them'} with ${flags} (sql.allowFunctions in a config file) if you trust ${names.length === 1 ? 'it' : 'them'}`;
}

/** Where a function not PostgreSQL's own comes from, as a clause: "installed by the extension xml2". */
function originOf(o: Origin): string {
  return o.extension !== null
    ? `installed by the extension ${o.extension}`
    : `a function of the schema ${o.schema} (not one of PostgreSQL's own)`;
}

/** The rows a name reaches: in its schema when written, else on the session's search path. */
const reached = <T extends { onPath: boolean }>(
  rows: readonly T[] | undefined,
  schema: string | undefined,
  schemaOf: (row: T) => string,
) => (rows ?? []).filter((r) => (schema === undefined ? r.onPath : schemaOf(r) === schema));

/** Why calling `name` (in `schema`, when written) is refused, or undefined. */
export function functionDenial(
  ref: NameRef,
  catalog: GuardCatalog,
  policy: SqlPolicy,
  rows = reached(catalog.functions.get(ref.name), ref.schema, (f) => f.schema),
): string | undefined {
  const lower = ref.name.toLowerCase();
  if (policy.allowFunctions.has(lower)) return undefined;
  const foreign = rows
    .filter((f) => !isBuiltIn(f))
    .sort((a, b) => Number(b.extension !== null) - Number(a.extension !== null));
  if (foreign.length) return `${ref.name} is ${originOf(foreign[0]!)} and is not allowed; ${allowHint([ref.name])}`;
  if (!KNOWN_SAFE.has(lower)) {
    // None in the catalog as last read: a typo, or a function created since (so refused too).
    const unknown = rows.length === 0 ? ' (nor is a function of that name known here)' : '';
    return `${ref.name} is ${ON_THE_LIST}${unknown}; ${allowHint([ref.name])}`;
  }
  return undefined;
}

/** Why making a value of type `ref` (a cast, a typed literal) is refused: it runs code not PostgreSQL's own. */
export function typeDenial(ref: NameRef, catalog: GuardCatalog, policy: SqlPolicy): string | undefined {
  const making = reached(catalog.typesByName.get(ref.name), ref.schema, (t) => t.typeSchema).filter(
    (t) => !policy.allowFunctions.has(t.function.toLowerCase()),
  );
  if (!making.length) return undefined;
  const names = [...new Set(making.map((t) => t.function))];
  return `a value of the type ${ref.name} is made by ${names.join(', ')}, ${originOf(making[0]!)}, which is not allowed; ${allowHint(names)}`;
}

/** Whether a value of this type can only come from the database's rows: making one from text or a cast is refused. */
function sealed(type: number, catalog: GuardCatalog, policy: SqlPolicy): boolean {
  const making = catalog.typesByOid.get(type);
  if (!making?.length || making[0]!.implicit) return false;
  return making.some((t) => !policy.allowFunctions.has(t.function.toLowerCase()));
}

/**
 * Why the operator is refused: some operator of that name calls a function not allowed, and the
 * statement could pick it. PostgreSQL picks an operator by its operands' types, which the guard
 * does not know; such an operator is let pass only where PostgreSQL has one of that name and form
 * (prefix or infix) of its own, and the other cannot be picked without an operand of a sealed type
 * (see sealed): a value only the database's rows hold. A bare literal or parameter is typed as
 * PostgreSQL prefers, its own types first, and an operator it cannot choose is an error.
 */
export function operatorDenial(
  op: NameRef & { prefix: boolean },
  catalog: GuardCatalog,
  policy: SqlPolicy,
): string | undefined {
  const rows = reached(catalog.operators.get(op.name), op.schema, (o) => o.operatorSchema).filter(
    (o) => (o.left === 0) === op.prefix,
  );
  const allowed = (o: OperatorRow) => isBuiltIn(o) || policy.allowFunctions.has(o.function.toLowerCase());
  const others = rows.filter((o) => !allowed(o));
  if (!others.length) return undefined;
  const ownToo = rows.some(isBuiltIn);
  const pickable = others.filter(
    (o) => !ownToo || !(sealed(o.left, catalog, policy) || sealed(o.right, catalog, policy)),
  );
  if (!pickable.length) return undefined;
  const names = [...new Set(pickable.map((o) => o.function))];
  return `the operator ${op.name} calls ${names.join(', ')}, ${originOf(pickable[0]!)}, which is not allowed; ${allowHint(names)}`;
}

/** Why `x.f` is refused: f(x), a function of a row, is one not allowed. */
export function fieldDenial(field: string, catalog: GuardCatalog, policy: SqlPolicy): string | undefined {
  const rows = reached(catalog.functions.get(field), undefined, (f) => f.schema).filter((f) => f.rowArg);
  if (!rows.length) return undefined;
  const why = functionDenial({ name: field }, catalog, policy, rows);
  return why && `x.${field} calls ${field}(x) where x is a row without a column ${field}: ${why}`;
}

/** The first refusal for anything the statement calls, names or reads, or undefined. */
export function denial(parsed: Parsed, catalog: GuardCatalog, policy: SqlPolicy): string | undefined {
  for (const call of parsed.calls) {
    const why =
      functionDenial(call, catalog, policy) ?? (call.args === 1 ? typeDenial(call, catalog, policy) : undefined);
    if (why) return why;
  }
  for (const op of parsed.operators) {
    const why = operatorDenial(op, catalog, policy);
    if (why) return why;
  }
  for (const type of parsed.types) {
    const why = typeDenial(type, catalog, policy);
    if (why) return why;
  }
  for (const field of parsed.fields) {
    const why = fieldDenial(field, catalog, policy);
    if (why) return why;
  }
  return undefined;
}
