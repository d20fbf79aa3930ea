/**
 * The PostgreSQL built-ins the sql tool lets a statement call by name: each computes its answer
 * from its arguments, the rows it is given, or the catalog, and leaves nothing behind when the
 * read-only transaction rolls back. Anything else (a built-in not here, every function an
 * extension installed, every function outside pg_catalog) is refused unless the operator names
 * it with --sql-allow-function; a function of a listed name is refused all the same when an
 * extension or a schema other than pg_catalog has one of that name too (see sql-guard.ts).
 *
 * Left off on purpose, among others: whatever runs SQL given as text (query_to_xml, ts_stat,
 * the xml export family, cursor_to_xml), reads or lists the host's files (pg_read_file, pg_ls_*,
 * lo_*), acts on other sessions or the server (pg_terminate_backend, pg_cancel_backend,
 * pg_reload_conf, set_config, replication and backup control), takes locks (pg_advisory_*),
 * writes despite a read-only transaction (gin_clean_pending_list, brin_summarize_*), takes a
 * transaction id (txid_current, pg_current_xact_id), or reads or moves session state another call
 * left (currval, lastval, nextval, setval, setseed, pg_notify). The support
 * functions behind types, operators, indexes and aggregates (int4pl, hashtext, numeric_avg ...)
 * are not listed either: a statement reaches them through an operator, a cast or an aggregate,
 * which the guard checks in their own right, and never needs to call them by name.
 *
 * Names are PostgreSQL 15's; a name a later version adds stays refused until it is added here.
 */
// biome-ignore format: a list, read by category, not one name a line
export const SAFE_FUNCTIONS = {
  math: [
    'abs', 'cbrt', 'ceil', 'ceiling', 'degrees', 'div', 'exp', 'factorial', 'floor', 'gcd', 'lcm', 'ln', 'log',
    'log10', 'min_scale', 'mod', 'pi', 'pow', 'power', 'radians', 'round', 'scale', 'sign', 'sqrt', 'trim_scale',
    'trunc', 'width_bucket',
    'acos', 'acosd', 'acosh', 'asin', 'asind', 'asinh', 'atan', 'atan2', 'atan2d', 'atand', 'atanh', 'cos', 'cosd',
    'cosh', 'cot', 'cotd', 'sin', 'sind', 'sinh', 'tan', 'tand', 'tanh',
    // the session's generator: reading it changes nothing another call relies on (setseed, which would, is not listed)
    'random',
  ],
  string: [
    'ascii', 'bit_length', 'btrim', 'char_length', 'character_length', 'chr', 'concat', 'concat_ws', 'format',
    'initcap', 'left', 'length', 'lower', 'lpad', 'ltrim', 'normalize', 'is_normalized', 'octet_length', 'overlay',
    'parse_ident', 'position', 'quote_ident', 'quote_literal', 'quote_nullable', 'repeat', 'replace', 'reverse',
    'right', 'rpad', 'rtrim', 'split_part', 'starts_with', 'string_to_array', 'string_to_table', 'strpos', 'substr',
    'substring', 'to_ascii', 'to_hex', 'translate', 'unistr', 'upper',
    'regexp_count', 'regexp_instr', 'regexp_like', 'regexp_match', 'regexp_matches', 'regexp_replace',
    'regexp_split_to_array', 'regexp_split_to_table', 'regexp_substr',
    // what `SIMILAR TO` and `LIKE ... ESCAPE` are parsed into
    'like_escape', 'similar_escape', 'similar_to_escape',
  ],
  binary: [
    'bit_count', 'convert', 'convert_from', 'convert_to', 'decode', 'encode', 'get_bit', 'get_byte', 'md5', 'set_bit',
    'set_byte', 'sha224', 'sha256', 'sha384', 'sha512',
  ],
  formatting: ['to_char', 'to_date', 'to_number', 'to_timestamp'],
  dateTime: [
    'age', 'date_bin', 'date_part', 'date_trunc', 'extract', 'isfinite', 'justify_days', 'justify_hours',
    'justify_interval', 'make_date', 'make_interval', 'make_time', 'make_timestamp', 'make_timestamptz', 'now',
    'overlaps', 'statement_timestamp', 'transaction_timestamp', 'clock_timestamp', 'timeofday',
    // what `AT TIME ZONE` is parsed into
    'timezone',
  ],
  conditional: ['num_nonnulls', 'num_nulls'],
  json: [
    'array_to_json', 'json_agg', 'json_array_element', 'json_array_element_text', 'json_array_elements',
    'json_array_elements_text', 'json_array_length', 'json_build_array', 'json_build_object', 'json_each',
    'json_each_text', 'json_extract_path', 'json_extract_path_text', 'json_object', 'json_object_agg',
    'json_object_field', 'json_object_field_text', 'json_object_keys', 'json_populate_record',
    'json_populate_recordset', 'json_strip_nulls', 'json_to_record', 'json_to_recordset', 'json_typeof',
    'jsonb_agg', 'jsonb_array_element', 'jsonb_array_element_text', 'jsonb_array_elements',
    'jsonb_array_elements_text', 'jsonb_array_length', 'jsonb_build_array', 'jsonb_build_object', 'jsonb_concat',
    'jsonb_contained', 'jsonb_contains', 'jsonb_delete', 'jsonb_delete_path', 'jsonb_each', 'jsonb_each_text',
    'jsonb_exists', 'jsonb_exists_all', 'jsonb_exists_any', 'jsonb_extract_path', 'jsonb_extract_path_text',
    'jsonb_insert', 'jsonb_object', 'jsonb_object_agg', 'jsonb_object_field', 'jsonb_object_field_text',
    'jsonb_object_keys', 'jsonb_path_exists', 'jsonb_path_exists_tz', 'jsonb_path_match', 'jsonb_path_match_tz',
    'jsonb_path_query', 'jsonb_path_query_array', 'jsonb_path_query_array_tz', 'jsonb_path_query_first',
    'jsonb_path_query_first_tz', 'jsonb_path_query_tz', 'jsonb_populate_record', 'jsonb_populate_recordset',
    'jsonb_pretty', 'jsonb_set', 'jsonb_set_lax', 'jsonb_strip_nulls', 'jsonb_to_record', 'jsonb_to_recordset',
    'jsonb_typeof', 'row_to_json', 'to_json', 'to_jsonb',
  ],
  arrays: [
    'array_append', 'array_cat', 'array_dims', 'array_fill', 'array_length', 'array_lower', 'array_ndims',
    'array_position', 'array_positions', 'array_prepend', 'array_remove', 'array_replace', 'array_to_string',
    'array_upper', 'cardinality', 'generate_subscripts', 'trim_array', 'unnest',
  ],
  ranges: [
    'daterange', 'datemultirange', 'int4range', 'int4multirange', 'int8range', 'int8multirange', 'isempty',
    'lower_inc', 'lower_inf', 'multirange', 'numrange', 'nummultirange', 'range_merge', 'tsrange', 'tsmultirange',
    'tstzrange', 'tstzmultirange', 'upper_inc', 'upper_inf',
  ],
  // a set of rows as big as asked: the row cap and the statement timeout bound it
  series: ['generate_series'],
  aggregates: [
    'array_agg', 'avg', 'bit_and', 'bit_or', 'bit_xor', 'bool_and', 'bool_or', 'count', 'every', 'max', 'min',
    'range_agg', 'range_intersect_agg', 'string_agg', 'sum', 'xmlagg',
    'corr', 'covar_pop', 'covar_samp', 'regr_avgx', 'regr_avgy', 'regr_count', 'regr_intercept', 'regr_r2',
    'regr_slope', 'regr_sxx', 'regr_sxy', 'regr_syy', 'stddev', 'stddev_pop', 'stddev_samp', 'var_pop', 'var_samp',
    'variance',
    // ordered-set and hypothetical-set aggregates (WITHIN GROUP)
    'mode', 'percentile_cont', 'percentile_disc',
  ],
  windows: [
    'cume_dist', 'dense_rank', 'first_value', 'lag', 'last_value', 'lead', 'nth_value', 'ntile', 'percent_rank',
    'rank', 'row_number',
  ],
  // a type's name called as a function converts to it: `date(ts)`, `int4(x)`, `text(x)`
  conversions: [
    'bit', 'bool', 'bpchar', 'char', 'cidr', 'date', 'float4', 'float8', 'int2', 'int4', 'int8', 'interval',
    'macaddr', 'macaddr8', 'money', 'name', 'numeric', 'oid', 'regclass', 'text', 'time', 'timestamp',
    'timestamptz', 'timetz', 'varbit', 'varchar', 'xid', 'xml',
  ],
  network: [
    'abbrev', 'broadcast', 'family', 'host', 'hostmask', 'inet_merge', 'inet_same_family', 'masklen', 'netmask',
    'network', 'set_masklen', 'macaddr8_set7bit',
  ],
  geometry: [
    'area', 'bound_box', 'box', 'center', 'circle', 'diagonal', 'diameter', 'height', 'isclosed', 'ishorizontal',
    'isopen', 'isparallel', 'isperp', 'isvertical', 'line', 'lseg', 'npoints', 'path', 'pclose', 'point', 'polygon',
    'popen', 'radius', 'slope', 'width',
  ],
  textSearch: [
    'array_to_tsvector', 'get_current_ts_config', 'json_to_tsvector', 'jsonb_to_tsvector', 'numnode',
    'phraseto_tsquery', 'plainto_tsquery', 'querytree', 'setweight', 'strip', 'to_tsquery', 'to_tsvector',
    'ts_debug', 'ts_delete', 'ts_filter', 'ts_headline', 'ts_lexize', 'ts_parse', 'ts_rank', 'ts_rank_cd',
    'ts_token_type', 'tsquery_phrase', 'tsvector_to_array', 'websearch_to_tsquery',
  ],
  xml: [
    'xml_is_well_formed', 'xml_is_well_formed_content', 'xml_is_well_formed_document', 'xmlcomment', 'xmlexists',
    'xpath', 'xpath_exists',
  ],
  enums: ['enum_first', 'enum_last', 'enum_range'],
  uuid: ['gen_random_uuid'],
  // what the session is: names and settings it may read anyway (the pg_settings view shows the same)
  session: [
    'current_database', 'current_schema', 'current_schemas', 'current_setting', 'current_user', 'session_user',
    'version', 'pg_backend_pid', 'pg_client_encoding', 'getdatabaseencoding', 'pg_encoding_to_char',
    'pg_char_to_encoding', 'pg_encoding_max_length', 'pg_jit_available', 'pg_is_in_recovery',
    'pg_postmaster_start_time', 'pg_conf_load_time', 'pg_trigger_depth', 'row_security_active',
  ],
  // the catalog, as an agent discovers a schema: definitions, comments, visibility, privileges
  catalog: [
    'col_description', 'format_type', 'obj_description', 'shobj_description', 'pg_typeof', 'pg_collation_for',
    'pg_describe_object', 'pg_identify_object', 'pg_identify_object_as_address', 'pg_get_catalog_foreign_keys',
    'pg_get_constraintdef', 'pg_get_expr', 'pg_get_function_arg_default', 'pg_get_function_arguments',
    'pg_get_function_identity_arguments', 'pg_get_function_result', 'pg_get_function_sqlbody', 'pg_get_functiondef',
    'pg_get_indexdef', 'pg_get_keywords', 'pg_get_partition_constraintdef', 'pg_get_partkeydef', 'pg_get_ruledef',
    'pg_get_serial_sequence', 'pg_get_statisticsobjdef', 'pg_get_statisticsobjdef_columns',
    'pg_get_statisticsobjdef_expressions', 'pg_get_triggerdef', 'pg_get_userbyid', 'pg_get_viewdef',
    'pg_index_column_has_property', 'pg_index_has_property', 'pg_indexam_has_property', 'pg_options_to_table',
    'pg_partition_ancestors', 'pg_partition_root', 'pg_partition_tree', 'pg_relation_is_updatable',
    'pg_column_is_updatable', 'pg_my_temp_schema', 'pg_is_other_temp_schema',
    'pg_collation_is_visible', 'pg_conversion_is_visible', 'pg_function_is_visible', 'pg_opclass_is_visible',
    'pg_operator_is_visible', 'pg_opfamily_is_visible', 'pg_statistics_obj_is_visible', 'pg_table_is_visible',
    'pg_ts_config_is_visible', 'pg_ts_dict_is_visible', 'pg_ts_parser_is_visible', 'pg_ts_template_is_visible',
    'pg_type_is_visible', 'to_regclass', 'to_regcollation', 'to_regnamespace', 'to_regoper', 'to_regoperator',
    'to_regproc', 'to_regprocedure', 'to_regrole', 'to_regtype', 'acldefault', 'aclexplode', 'oidvectortypes',
    'has_any_column_privilege', 'has_column_privilege', 'has_database_privilege',
    'has_foreign_data_wrapper_privilege', 'has_function_privilege', 'has_language_privilege',
    'has_parameter_privilege', 'has_schema_privilege', 'has_sequence_privilege', 'has_server_privilege',
    'has_table_privilege', 'has_tablespace_privilege', 'has_type_privilege', 'pg_has_role',
  ],
  // sizes of the database's own relations, as their files have them (no path is shown)
  sizes: [
    'pg_column_size', 'pg_database_size', 'pg_indexes_size', 'pg_relation_size', 'pg_size_bytes', 'pg_size_pretty',
    'pg_table_size', 'pg_total_relation_size',
  ],
  // waits: the statement timeout ends it as it ends any slow query (which needs no pg_sleep to be slow)
  waiting: ['pg_sleep', 'pg_sleep_for', 'pg_sleep_until'],
  // the methods of `TABLESAMPLE`
  sampling: ['bernoulli', 'system'],
} as const satisfies Record<string, readonly string[]>;

/** Every listed name. */
export const KNOWN_SAFE: ReadonlySet<string> = new Set(Object.values(SAFE_FUNCTIONS).flat());
