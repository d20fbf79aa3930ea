import { readFileSync } from 'node:fs';
import { type Document, isAlias, isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { type CustomToolConfig, configSchema, type ServerConfig } from './schema.js';

/** A config file that cannot be served: each line of the message names the file, the line and the key. */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
}

/** A loaded config file: option values by the name commander gives them, and the custom tools. */
export interface LoadedConfig {
  /** values for the options the file sets, keyed like `program.opts()` (`maxRows`, `tools` for selectTools) */
  options: Record<string, unknown>;
  /** the databases the file names, as `--url` values (URL, or NAME=URL); empty when it names none */
  urls: string[];
  tools: Record<string, CustomToolConfig>;
  /** The file's line of a key (`['tools', 'top_customers', 'sql']`), or of the deepest one on the path it has. */
  line(path: readonly PropertyKey[]): number;
}

interface Problem {
  path: readonly PropertyKey[];
  message: string;
}

/** Reads, interpolates (`${VAR}` in string values) and validates a config file. Throws ConfigError. */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot read the config file: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length) {
    throw new ConfigError(
      doc.errors.map((e) => `${file}:${lines.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`).join('\n'),
    );
  }
  const problems: Problem[] = [];
  const raw = interpolate(doc.toJS() ?? {}, [], env, problems);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    // An unset variable is the mistake to report there, not what the empty value it left fails.
    const unset = new Set(problems.map((p) => p.path.join('\0')));
    for (const issue of parsed.error.issues) {
      if (unset.has(issue.path.join('\0'))) continue;
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) problems.push({ path: [...issue.path, key], message: 'unknown key' });
      } else problems.push({ path: issue.path, message: issue.message });
    }
  }
  if (problems.length) {
    const located = problems.map((p) => ({ line: lineOf(doc, lines, p.path), text: describe(p) }));
    located.sort((a, b) => a.line - b.line);
    throw new ConfigError(located.map((p) => `${file}:${p.line}: ${p.text}`).join('\n'));
  }
  return { ...toOptions(parsed.data!), line: (path) => lineOf(doc, lines, path) };
}

function describe(p: Problem): string {
  const key = p.path.map(String).join('.');
  return key ? `${key}: ${p.message}` : p.message;
}

/** The file's values as commander's option names, and its one database. */
function toOptions(config: ServerConfig): Omit<LoadedConfig, 'line'> {
  const { url, databases, tools, selectTools, sql, ...rest } = config;
  const options: Record<string, unknown> = { ...rest, ...sqlOptions(sql) };
  if (selectTools !== undefined) options.tools = Array.isArray(selectTools) ? selectTools.join(',') : selectTools;
  return { options, urls: databaseValues(url, databases), tools: tools ?? {} };
}

/** `sql: true`, or `sql:` as a map of its settings (`sql.poolSize` is --sql-pool-size's sqlPoolSize). */
function sqlOptions(sql: ServerConfig['sql']): Record<string, unknown> {
  if (sql === undefined || typeof sql === 'boolean') return sql === undefined ? {} : { sql };
  // each key is its flag's name after `sql` (`poolSize`: --sql-pool-size), but for the list of --sql-allow-function
  const flag = (key: string) =>
    key === 'allowFunctions' ? 'sqlAllowFunction' : `sql${key[0]!.toUpperCase()}${key.slice(1)}`;
  const settings = Object.entries(sql).map(([key, value]) => [flag(key), value]);
  return { sql: true, ...Object.fromEntries(settings) };
}

/**
 * The databases the file names, as `--url` values: `url` as it is, each entry of `databases` as
 * NAME=URL (database-urls.ts checks them as it checks the flags').
 */
function databaseValues(url: string | undefined, databases: Record<string, string> = {}): string[] {
  return [...(url === undefined ? [] : [url]), ...Object.entries(databases).map(([name, u]) => `${name}=${u}`)];
}

const VARIABLE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${VAR}` in string values becomes the variable's value; `$${VAR}` stays `${VAR}`; an unset one is a problem. */
function interpolate(value: unknown, path: PropertyKey[], env: NodeJS.ProcessEnv, problems: Problem[]): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (whole, escaped: string, name: string) => {
      if (escaped) return whole.slice(1);
      const found = env[name];
      if (found === undefined) problems.push({ path, message: `\${${name}} is not set in the environment` });
      return found ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, [...path, i], env, problems));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, [...path, k], env, problems)]));
  }
  return value;
}

/** The line of the deepest node on `path` that the file has (a key's own line where the path ends at a key). */
function lineOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number {
  let node: unknown = doc.contents;
  let offset = (doc.contents as Node | null)?.range?.[0] ?? 0;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => String((p.key as { value?: unknown })?.value ?? p.key) === String(segment));
      if (!pair) break;
      offset = (pair.key as Node | null)?.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment]) {
      node = node.items[segment];
      offset = (node as Node).range?.[0] ?? offset;
    } else break;
  }
  return lines.linePos(offset).line;
}
