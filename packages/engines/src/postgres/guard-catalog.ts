import { sql } from 'kysely';
import type { AnyDb } from '../engine.js';

/**
 * What the sql tool's guard reads from the catalog to tell PostgreSQL's own functions from the
 * rest: a function is PostgreSQL's own (built in) when it is in pg_catalog and no extension
 * installed it (an extension may install into pg_catalog, as plpgsql does).
 */

/** Where a function comes from: its schema, and the extension that installed it (null: none). */
export interface Origin {
  schema: string;
  extension: string | null;
}

/** What a name written without a schema can reach: the session's search path (pg_catalog included). */
interface OnPath {
  onPath: boolean;
}

/** The functions of one name in one schema from one origin. */
export interface FunctionRow extends Origin, OnPath {
  name: string;
  /** one of them takes a row as its one argument, so `x.name` calls it on the row x */
  rowArg: boolean;
}

/** An operator, with the function it calls and where that comes from. */
export interface OperatorRow extends Origin, OnPath {
  name: string;
  /** the operator's own schema (`OPERATOR(schema.name)`) */
  operatorSchema: string;
  function: string;
  /** operand types (0: none, for a prefix operator's left) */
  left: number;
  right: number;
}

/** A function not PostgreSQL's own that making a value of a type from text or by a cast runs. */
export interface TypeReach extends Origin, OnPath {
  type: number;
  typeName: string;
  typeSchema: string;
  function: string;
  /** a built-in type casts to this type implicitly: its values reach it without a cast in the statement */
  implicit: boolean;
}

export interface GuardCatalog {
  /** by name as PostgreSQL stores it */
  functions: ReadonlyMap<string, readonly FunctionRow[]>;
  operators: ReadonlyMap<string, readonly OperatorRow[]>;
  /** types that reach a function not PostgreSQL's own: by type name, and by oid */
  typesByName: ReadonlyMap<string, readonly TypeReach[]>;
  typesByOid: ReadonlyMap<number, readonly TypeReach[]>;
  /** names of functions kept from PUBLIC (built in, or an extension's) */
  privileged: ReadonlySet<string>;
  /** pg_catalog relations PUBLIC may not read (pg_authid, pg_hba_file_rules ...) */
  hidden: ReadonlySet<string>;
}

export const isBuiltIn = (o: Origin) => o.schema === 'pg_catalog' && o.extension === null;

/** Functions an extension installed, with the extension's name. */
const MEMBER = sql`member(oid, extname) as (
  select d.objid, e.extname from pg_catalog.pg_depend d join pg_catalog.pg_extension e on e.oid = d.refobjid
  where d.classid = 'pg_catalog.pg_proc'::regclass and d.deptype = 'e')`;

const FUNCTIONS = sql<FunctionRow>`with ${MEMBER}
  select p.proname as name, n.nspname as schema, m.extname as extension,
    n.nspname = any (pg_catalog.current_schemas(true)) as "onPath",
    bool_or(p.pronargs >= 1 and p.pronargs - p.pronargdefaults <= 1 and t.typtype in ('c', 'p', 'd')) as "rowArg"
  from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  left join member m on m.oid = p.oid left join pg_catalog.pg_type t on t.oid = p.proargtypes[0]
  group by 1, 2, 3, 4`;

const OPERATORS = sql<OperatorRow>`with ${MEMBER}
  select o.oprname as name, n.nspname as "operatorSchema", p.proname as function, pn.nspname as schema,
    m.extname as extension, o.oprleft::int as left, o.oprright::int as right,
    n.nspname = any (pg_catalog.current_schemas(true)) as "onPath"
  from pg_catalog.pg_operator o join pg_catalog.pg_namespace n on n.oid = o.oprnamespace
  join pg_catalog.pg_proc p on p.oid = o.oprcode join pg_catalog.pg_namespace pn on pn.oid = p.pronamespace
  left join member m on m.oid = p.oid`;

/**
 * Types whose values are made by a function not PostgreSQL's own: its input or typmod function, a
 * range's canonical or subdiff function, a cast from a built-in type, a domain's check or default
 * (the functions and operators they use),
 * and the same of the types it is made of (an array's element, a domain's base, a composite's
 * columns, a range's subtype): `'(…)'::t` runs the input function of each of t's columns.
 */
const TYPES = sql<TypeReach>`with recursive ${MEMBER},
  foreign_fn(oid) as (
    select p.oid from pg_catalog.pg_proc p
    where p.pronamespace <> 'pg_catalog'::regnamespace or p.oid in (select oid from member)),
  uses(classid, objid, f) as (
    select d.classid, d.objid, d.refobjid from pg_catalog.pg_depend d
    where d.refclassid = 'pg_catalog.pg_proc'::regclass and d.classid in ('pg_catalog.pg_constraint'::regclass, 'pg_catalog.pg_type'::regclass)
    union all select d.classid, d.objid, o.oprcode from pg_catalog.pg_depend d join pg_catalog.pg_operator o on o.oid = d.refobjid
    where d.refclassid = 'pg_catalog.pg_operator'::regclass and d.classid in ('pg_catalog.pg_constraint'::regclass, 'pg_catalog.pg_type'::regclass)),
  reaches(t, f) as (
    select oid, typinput from pg_catalog.pg_type
    union all select oid, typmodin from pg_catalog.pg_type where typmodin <> 0
    union all select rngtypid, rngcanonical from pg_catalog.pg_range where rngcanonical <> 0
    union all select rngtypid, rngsubdiff from pg_catalog.pg_range where rngsubdiff <> 0
    union all select c.casttarget, c.castfunc from pg_catalog.pg_cast c join pg_catalog.pg_type s on s.oid = c.castsource
      where c.castfunc <> 0 and s.typnamespace = 'pg_catalog'::regnamespace
    union all select c.contypid, u.f from pg_catalog.pg_constraint c
      join uses u on u.classid = 'pg_catalog.pg_constraint'::regclass and u.objid = c.oid where c.contypid <> 0
    union all select t.oid, u.f from pg_catalog.pg_type t
      join uses u on u.classid = 'pg_catalog.pg_type'::regclass and u.objid = t.oid where t.typtype = 'd'),
  part(t, u) as (
    select oid, typelem from pg_catalog.pg_type where typelem <> 0
    union all select oid, typbasetype from pg_catalog.pg_type where typtype = 'd'
    union all select rngtypid, rngsubtype from pg_catalog.pg_range
    union all select rngmultitypid, rngtypid from pg_catalog.pg_range
    union all select t.oid, a.atttypid from pg_catalog.pg_type t join pg_catalog.pg_attribute a on a.attrelid = t.typrelid
      where t.typrelid <> 0 and a.attnum > 0 and not a.attisdropped),
  bad(t, f) as (
    select r.t, r.f from reaches r where r.f in (select oid from foreign_fn)
    union select p.t, b.f from part p join bad b on b.t = p.u)
  select t.oid::int as type, t.typname as "typeName", tn.nspname as "typeSchema", p.proname as function,
    pn.nspname as schema, m.extname as extension, tn.nspname = any (pg_catalog.current_schemas(true)) as "onPath",
    exists (select from pg_catalog.pg_cast c join pg_catalog.pg_type s on s.oid = c.castsource
            where c.casttarget = t.oid and c.castcontext = 'i' and s.typnamespace = 'pg_catalog'::regnamespace) as implicit
  from bad b join pg_catalog.pg_type t on t.oid = b.t join pg_catalog.pg_namespace tn on tn.oid = t.typnamespace
  join pg_catalog.pg_proc p on p.oid = b.f join pg_catalog.pg_namespace pn on pn.oid = p.pronamespace
  left join member m on m.oid = p.oid`;

/**
 * Functions PostgreSQL itself keeps from PUBLIC (EXECUTE revoked: the server-file functions,
 * pg_reload_conf, backups, WAL control, statistics resets ...), built in or an extension's.
 */
const PRIVILEGED = sql<{ name: string }>`
  select distinct p.proname as name from pg_catalog.pg_proc p
  where not has_function_privilege('public', p.oid, 'execute')
    and (p.pronamespace = 'pg_catalog'::regnamespace
      or exists (select from pg_catalog.pg_depend d
                 where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e'))`;

/** Catalog relations PostgreSQL keeps from PUBLIC: password hashes, the server's files as rows. */
const HIDDEN = sql<{ name: string }>`
  select c.relname as name from pg_catalog.pg_class c
  where c.relnamespace = 'pg_catalog'::regnamespace and c.relkind in ('r', 'v', 'm', 'p', 'f')
    and not has_table_privilege('public', c.oid, 'select')`;

function group<K, T>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

/**
 * Reads what the guard needs, in one transaction. JIT is off for it: the recursive query's row
 * estimate is far above what it finds, and compiling it would take a second or more.
 */
export function readGuardCatalog(db: AnyDb): Promise<GuardCatalog> {
  return db.transaction().execute(async (trx) => {
    await sql`set local jit = off`.execute(trx);
    const functions = (await FUNCTIONS.execute(trx)).rows;
    const operators = (await OPERATORS.execute(trx)).rows;
    const types = (await TYPES.execute(trx)).rows;
    const privileged = (await PRIVILEGED.execute(trx)).rows;
    const hidden = (await HIDDEN.execute(trx)).rows;
    return {
      functions: group(functions, (f) => f.name),
      operators: group(operators, (o) => o.name),
      typesByName: group(types, (t) => t.typeName),
      typesByOid: group(types, (t) => t.type),
      privileged: new Set(privileged.map((r) => r.name)),
      hidden: new Set(hidden.map((r) => r.name)),
    };
  });
}
