/**
 * The built-in functions the sql tool's guard lets a statement call on MySQL and MariaDB, and the
 * keywords that take a parenthesis without being calls. Everything else written as `name(` is
 * refused (sql-guard.ts): stored functions, UDFs (lib_mysqludf_sys's `sys_exec`), and built-ins
 * a newer server adds, until the operator allows the name (`--sql-allow-function NAME`).
 *
 * The lists follow MariaDB 10.11, where `packages/engines/test/mysql-functions.test.ts` proves
 * each against the server: with a stored function of the same name in the database, no listed
 * name written as the guard accepts it (unquoted, `(` right after it or after spaces) calls that
 * function. MariaDB reaches a built-in three ways (sql_yacc.yy's function_call_* rules):
 * - the grammar's own functions, keywords that the lexer returns as such (`date(`, `left(`, `if(`);
 * - lex.h's sql_functions[], keywords only when `(` follows the name (after spaces too under
 *   IGNORE_SPACE, which connect.ts sets): `count(`, `sum(`, `substring(`, `now(` ...; after a
 *   comment the name is an identifier, and the call goes to a stored function of that name;
 * - item_create.cc's native functions, found by name before UDFs and stored functions (`concat(`).
 * A quoted name (`` `concat`( ``), one after a comment, or a qualified one (`db.f(`) is how a
 * stored function is called: the guard takes none of them for a built-in.
 */

const words = (text: string): readonly string[] => text.trim().split(/\s+/);

/** Allowed calls, by what they do. Names are lower case; the server ignores case. */
export const BUILTINS: Readonly<Record<string, readonly string[]>> = {
  aggregate: words(`count sum avg min max group_concat bit_and bit_or bit_xor std stddev stddev_pop
    stddev_samp variance var_pop var_samp json_arrayagg json_objectagg`),
  window: words(`row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value
    last_value nth_value median percentile_cont percentile_disc`),
  conditional: words('coalesce ifnull nullif if isnull greatest least nvl nvl2 interval'),
  string: words(`concat concat_ws lower upper lcase ucase length char_length character_length
    octet_length bit_length lengthb substring substr mid left right trim ltrim rtrim lpad rpad replace
    repeat reverse insert instr locate position substring_index field find_in_set elt make_set export_set
    format space ascii ord char chr hex unhex bin oct conv soundex quote strcmp sformat natural_sort_key
    regexp_replace regexp_instr regexp_substr to_base64 from_base64 weight_string extractvalue updatexml`),
  numeric: words(`abs ceil ceiling floor round truncate mod sign sqrt pow power exp ln log log2 log10 pi
    rand sin cos tan asin acos atan atan2 cot degrees radians bit_count crc32 crc32c`),
  dateAndTime: words(`now curdate curtime current_date current_time current_timestamp localtime
    localtimestamp sysdate utc_date utc_time utc_timestamp date time timestamp year month day hour minute
    second microsecond quarter week weekday weekofyear yearweek dayname dayofmonth dayofweek dayofyear
    monthname last_day makedate maketime date_format time_format str_to_date get_format date_add date_sub
    adddate subdate addtime subtime datediff timediff timestampadd timestampdiff extract from_days to_days
    to_seconds from_unixtime unix_timestamp sec_to_time time_to_sec period_add period_diff convert_tz
    add_months to_char`),
  json: words(`json_array json_object json_extract json_unquote json_value json_query json_contains
    json_contains_path json_keys json_length json_depth json_type json_valid json_quote json_search json_set
    json_insert json_replace json_remove json_array_append json_array_insert json_merge json_merge_patch
    json_merge_preserve json_compact json_detailed json_pretty json_loose json_exists json_overlaps
    json_equals json_normalize`),
  // MariaDB's dynamic columns: values packed in a blob, read and built in the statement
  dynamicColumns: words(
    'column_create column_get column_add column_delete column_exists column_list column_json column_check',
  ),
  castAndCharset: words('cast convert charset collation coercibility default'),
  hashAndCrypto: words(
    'md5 sha sha1 sha2 aes_encrypt aes_decrypt compress uncompress uncompressed_length random_bytes',
  ),
  // the caller's own session and server: nothing another session left
  session: words('database schema user current_user session_user system_user current_role version connection_id'),
  identifiers: words(
    'uuid uuid_short sys_guid inet_aton inet_ntoa inet6_aton inet6_ntoa is_ipv4 is_ipv6 is_ipv4_compat is_ipv4_mapped',
  ),
  spatial: words(`st_area st_asbinary st_aswkb st_astext st_aswkt st_asgeojson st_buffer st_centroid
    st_contains st_convexhull st_crosses st_difference st_dimension st_disjoint st_distance
    st_distance_sphere st_endpoint st_envelope st_equals st_exteriorring st_geomcollfromtext
    st_geomcollfromwkb st_geometrycollectionfromtext st_geometrycollectionfromwkb st_geometryfromtext
    st_geometryfromwkb st_geomfromgeojson st_geomfromtext st_geomfromwkb st_geometryn st_geometrytype
    st_interiorringn st_intersection st_intersects st_isclosed st_isempty st_issimple st_length
    st_linefromtext st_linefromwkb st_linestringfromtext st_linestringfromwkb st_mlinefromtext
    st_mlinefromwkb st_mpointfromtext st_mpointfromwkb st_mpolyfromtext st_mpolyfromwkb
    st_multilinestringfromtext st_multipointfromtext st_multipolygonfromtext st_numgeometries
    st_numinteriorrings st_numpoints st_overlaps st_pointfromtext st_pointfromwkb st_pointn
    st_polyfromtext st_polyfromwkb st_polygonfromtext st_polygonfromwkb st_srid st_startpoint
    st_symdifference st_touches st_union st_within st_x st_y mbrcontains mbrdisjoint mbrequals
    mbrintersects mbroverlaps mbrtouches mbrwithin`),
  // it waits, and the statement timeout ends it (connect.ts): a slow query costs no more
  waits: words('sleep'),
};

/**
 * Keywords that a parenthesis may follow without a call: operators and clauses before a list or a
 * subquery (`in (`, `exists (`, `from (`, `as (` of a CTE, `over (`, `row (`, `values (`, `match (`,
 * `within group (`), and types with a length (`cast(x as decimal(10, 2))`, JSON_TABLE's
 * `varchar(100)`; `char`, `date`, `time`, `timestamp` and `year` are functions too, above). MariaDB
 * reserves each: none can name a function.
 */
export const NOT_CALLS: ReadonlySet<string> = new Set(
  words(`in exists not and or xor like rlike regexp between is div any some all distinct distinctrow match
    select from where having on using join inner cross natural straight_join union except intersect with
    recursive as by group values row case when then else over partition window rows range preceding
    following unbounded index key for force use ignore sounds binary character varchar nchar national
    varcharacter varying varbinary decimal dec numeric fixed float float4 float8 double real precision int
    integer int1 int2 int3 int4 int8 tinyint smallint mediumint middleint bigint bit datetime text tinytext
    mediumtext longtext blob tinyblob mediumblob longblob json signed unsigned enum bool boolean long`),
);

const FILES = 'it reads a file on the database host';
const LOCKS = 'named locks belong to the connection and outlive the call';
const REPLICATION = 'it waits on or reads replication state, holding the connection';

/** Why a built-in that is not on the list is refused, where the reason is worth saying. */
export const REFUSED: Readonly<Record<string, string>> = {
  load_file: FILES,
  get_lock: LOCKS,
  release_lock: LOCKS,
  release_all_locks: LOCKS,
  is_free_lock: LOCKS,
  is_used_lock: 'it shows which session holds a named lock',
  last_insert_id: 'it sets a value of the session that the next caller would see',
  // the previous statement's counts on this connection, which may be another caller's
  found_rows: "it reads the previous statement's row count, another caller's on a pooled connection",
  row_count: "it reads the previous statement's row count, another caller's on a pooled connection",
  nextval: 'it moves a sequence, which no rollback undoes',
  setval: 'it moves a sequence, which no rollback undoes',
  lastval: 'it reads a sequence value of the session',
  benchmark: 'it evaluates an expression over and over, only to burn CPU',
  master_pos_wait: REPLICATION,
  master_gtid_wait: REPLICATION,
  wsrep_sync_wait_upto_gtid: REPLICATION,
  binlog_gtid_pos: REPLICATION,
  // --des-key-file
  des_encrypt: 'it can read a key file on the database host',
  des_decrypt: 'it can read a key file on the database host',
  // lib_mysqludf_sys, where installed
  sys_exec: 'it is a UDF that runs a program on the database host',
  sys_eval: 'it is a UDF that runs a program on the database host',
  sys_get: 'it is a UDF that reads the environment of the database server',
  sys_set: 'it is a UDF that changes the environment of the database server',
  // POINT(x, y) is the grammar's; with another number of arguments the name goes to a stored function
  point: 'with other than two arguments it calls a stored function; use ST_PointFromText',
};

/** Every allowed name. */
export const ALLOWED: ReadonlySet<string> = new Set(Object.values(BUILTINS).flat());
