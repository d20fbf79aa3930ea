import { HOST_REVISIONS, MODERN_REVISION } from '@mcp-db-bench/contract';
import { ENGINE_TITLES, URL_FORMS } from '@mcp-db-bench/engines';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_MAX_BOUND_VALUES } from './bound-values.js';
import { DEFAULT_SQL_POOL_SIZE, DEFAULT_SQL_WAIT_MS, DEFAULT_STATEMENT_TIMEOUT_MS } from './context.js';
import { collect } from './database-urls.js';
import { TEST_DELAY_ENV } from './test-delay.js';
import type { WorkersOption } from './transports/cluster.js';
import { DEFAULT_TRANSPORT_LIMITS as LIMITS } from './transports/limits.js';
import { DEFAULT_SESSION_LIMITS } from './transports/sessions.js';
import { VERSION } from './version.js';

/** The command line of mcp-db-server: its options, a group per concern in the order --help lists them. */
export function buildCli(): Command {
  const cli = new Command('mcp-db-server').description(DESCRIPTION).version(VERSION);
  const groups = [
    sourceOptions,
    transportOptions,
    answerOptions,
    toolOptions,
    sqlOptions,
    poolOptions,
    sessionOptions,
    limitOptions,
    processOptions,
  ];
  for (const group of groups) for (const option of group()) cli.addOption(option);
  return cli.addHelpText('after', HELP_AFTER);
}

/** The parsed options (commander's attribute names). */
export interface CliOptions {
  config?: string;
  url?: string[];
  db?: string[];
  stdio?: boolean;
  http?: boolean;
  host: string;
  port: number;
  token?: string;
  allowedHosts?: string[];
  maxRows: number;
  maxResponseBytes: number;
  defaultRows: number;
  maxBoundValues: number;
  poolSize: number;
  schemaTtl: number;
  echo?: boolean;
  allowWrites?: boolean;
  sql?: boolean;
  sqlPoolSize: number;
  sqlWaitTimeout: number;
  sqlPrivilegedLogin?: boolean;
  sqlRole?: string;
  sqlAllowFunction?: string[];
  tools?: string;
  statementTimeout: number;
  maxSessions: number;
  sessionIdle: number;
  sessionKey?: string;
  workers: WorkersOption;
  busyPoll: number | 'auto';
  maxConnections: number;
  maxBufferedBytes: number;
  bodyTimeout: number;
  headersTimeout: number;
  requestTimeout: number;
  maxBatch: number;
  maxBatchBytes: number;
  testDelayMs: number;
}

const DESCRIPTION =
  `An MCP server over ${ENGINE_TITLES} with one uniform set of tools: list_tables, describe_table, query, get, ` +
  'aggregate; insert, update, delete and transact with --allow-writes; sql with --sql. Read-only by default, enforced by ' +
  `the database. Speaks MCP ${MODERN_REVISION} and the 2025 revisions (${HOST_REVISIONS.at(-1)} to ${HOST_REVISIONS[0]}, ` +
  'with sessions over HTTP) over stdio (default) or HTTP.';

/** Where the databases (and the other options) come from. */
function sourceOptions(): Option[] {
  return [
    new Option(
      '--config <file>',
      'read options and custom tools from this YAML file; flags and variables override it (see docs/server.md)',
    ).env('MCP_DB_CONFIG'),
    new Option('--url <url>', `database URL: ${URL_FORMS}; repeat as --url NAME=URL to serve several`)
      .env('MCP_DB_URL')
      .argParser(collect),
  ];
}

/** stdio or HTTP, and who may reach the HTTP endpoint. */
function transportOptions(): Option[] {
  return [
    new Option('--http', 'serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio').env('MCP_DB_HTTP'),
    // The other bin's spellings, hidden: `mcp-db-bench serve` says --db and --stdio.
    new Option('--stdio', 'serve over stdio (the default)').hideHelp(),
    new Option('--db <url>', 'same as --url').argParser(collect).hideHelp(),
    new Option('--host <host>', 'HTTP bind address; non-loopback addresses require --token')
      .env('MCP_DB_HOST')
      .default('127.0.0.1'),
    new Option('--port <port>', 'HTTP port (0 picks a free one)').env('MCP_DB_PORT').default(7400).argParser(port),
    new Option('--token <token>', 'require "Authorization: Bearer <token>" on every HTTP request').env('MCP_DB_TOKEN'),
    new Option('--allowed-hosts <names>', 'comma-separated extra Host/Origin names to accept (for a reverse proxy)')
      .env('MCP_DB_ALLOWED_HOSTS')
      .argParser((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
  ];
}

/** How much one call answers, and how many values it may bind. */
function answerOptions(): Option[] {
  return [
    new Option('--max-rows <n>', 'most rows one call returns; larger limits are capped')
      .env('MCP_DB_MAX_ROWS')
      .default(1000)
      .argParser(positiveInt('max-rows')),
    new Option(
      '--max-response-bytes <n>',
      'largest tool result in bytes of JSON; larger ones are refused with a clear error',
    )
      .env('MCP_DB_MAX_RESPONSE_BYTES')
      .default(1024 * 1024)
      .argParser(positiveInt('max-response-bytes')),
    new Option('--default-rows <n>', 'rows returned when a call gives no limit')
      .env('MCP_DB_DEFAULT_ROWS')
      .default(100)
      .argParser(positiveInt('default-rows')),
    new Option(
      '--max-bound-values <n>',
      "most values one call binds (filter values, inserted cells, parameters), refused before any work past it; the engine's own limit per statement applies too",
    )
      .env('MCP_DB_MAX_BOUND_VALUES')
      .default(DEFAULT_MAX_BOUND_VALUES)
      .argParser(positiveInt('max-bound-values')),
  ];
}

/** Which tools are served, and how long their statements may run. */
function toolOptions(): Option[] {
  return [
    new Option('--allow-writes', 'register insert, update, delete and transact, and open read-write sessions').env(
      'MCP_DB_ALLOW_WRITES',
    ),
    new Option(
      '--sql',
      'register the sql tool: one caller-written SELECT with :named parameters, run read-only on connections of its own; what reaches files, locks or other sessions is refused, and so is a start on a login that reaches the database host',
    ).env('MCP_DB_SQL'),
    new Option(
      '--sql-allow-function <name>',
      "with --sql: let statements call this function, which the sql tool refuses (an extension's, the database's own, or a PostgreSQL built-in not known to be safe; docs/safety.md); repeat, or separate names by commas; what it does is then your responsibility",
    )
      .env('MCP_DB_SQL_ALLOW_FUNCTIONS')
      .argParser(functionNames),
    new Option('--statement-timeout <ms>', 'the database cancels a statement running longer than this (0: no limit)')
      .env('MCP_DB_STATEMENT_TIMEOUT')
      .default(DEFAULT_STATEMENT_TIMEOUT_MS)
      .argParser(nonNegativeInt('statement-timeout', 'milliseconds')),
    new Option(
      '--tools <list>',
      'serve only these tools: names and sets (read, minimal, write, all), comma-separated, e.g. minimal or read,insert',
    ).env('MCP_DB_TOOLS'),
    new Option('--echo', 'also register an echo tool that skips the database (to measure protocol overhead)').env(
      'MCP_DB_ECHO',
    ),
  ];
}

/** The sql tool's own connections, and the logins it accepts. */
function sqlOptions(): Option[] {
  return [
    new Option('--sql-pool-size <n>', "most connections of the sql tool's own (no other tool uses them)")
      .env('MCP_DB_SQL_POOL_SIZE')
      .default(DEFAULT_SQL_POOL_SIZE)
      .argParser(positiveInt('sql-pool-size')),
    new Option(
      '--sql-wait-timeout <ms>',
      "a sql call that finds every one of the sql tool's connections busy this long fails (limit_exceeded)",
    )
      .env('MCP_DB_SQL_WAIT_TIMEOUT')
      .default(DEFAULT_SQL_WAIT_MS)
      .argParser(positiveInt('sql-wait-timeout')),
    new Option(
      '--sql-privileged-login',
      'serve sql even on a login that reaches the database host (superuser, FILE, SUPER ...); without it --sql refuses to start there',
    ).env('MCP_DB_SQL_PRIVILEGED_LOGIN'),
    new Option(
      '--sql-role <name>',
      "PostgreSQL: the sql tool's sessions take this role (SET ROLE), narrower than the login; its rights are the ones checked",
    ).env('MCP_DB_SQL_ROLE'),
  ];
}

/** The database connections, and how long their schema is trusted. */
function poolOptions(): Option[] {
  return [
    new Option('--pool-size <n>', 'most database connections to open')
      .env('MCP_DB_POOL_SIZE')
      .default(10)
      .argParser(positiveInt('pool-size')),
    new Option(
      '--schema-ttl <seconds>',
      'reload the cached schema this often (0: only when a statement hits a missing object)',
    )
      .env('MCP_DB_SCHEMA_TTL')
      .default(60)
      .argParser(nonNegativeInt('schema-ttl')),
  ];
}

/** The 2025-era sessions (Mcp-Session-Id). */
function sessionOptions(): Option[] {
  return [
    new Option(
      '--max-sessions <n>',
      'most 2025-era sessions (Mcp-Session-Id) the server remembers (its workers share one table); past it a new one ends the least recently used',
    )
      .env('MCP_DB_MAX_SESSIONS')
      .default(DEFAULT_SESSION_LIMITS.maxSessions)
      .argParser(positiveInt('max-sessions')),
    new Option('--session-idle <seconds>', 'a 2025-era session unused this long ends; its client must initialize again')
      .env('MCP_DB_SESSION_IDLE')
      .default(DEFAULT_SESSION_LIMITS.idleMs / 1000)
      .argParser(positiveInt('session-idle')),
    new Option(
      '--session-key <key>',
      'sign 2025-era session ids with this secret (32+ characters; better set by its variable), so every server given it honours them',
    ).env('MCP_DB_SESSION_KEY'),
  ];
}

/** What HTTP clients may hold: connections, body bytes and time, batches (transports/limits.ts). */
function limitOptions(): Option[] {
  return [
    new Option(
      '--max-connections <n>',
      'most open HTTP connections per worker process; more are answered 503 and closed',
    )
      .env('MCP_DB_MAX_CONNECTIONS')
      .default(LIMITS.maxConnections)
      .argParser(positiveInt('max-connections')),
    new Option(
      '--max-buffered-bytes <n>',
      'most bytes of request bodies (and batch answers) held at once per worker process; a request past it gets 503',
    )
      .env('MCP_DB_MAX_BUFFERED_BYTES')
      .default(LIMITS.maxBufferedBytes)
      .argParser(positiveInt('max-buffered-bytes')),
    new Option('--body-timeout <ms>', 'a request body that pauses longer than this between two pieces is answered 408')
      .env('MCP_DB_BODY_TIMEOUT')
      .default(LIMITS.bodyTimeoutMs)
      .argParser(positiveInt('body-timeout')),
    new Option(
      '--headers-timeout <ms>',
      'a request whose line and headers take longer than this to arrive is answered 408',
    )
      .env('MCP_DB_HEADERS_TIMEOUT')
      .default(LIMITS.headersTimeoutMs)
      .argParser(positiveInt('headers-timeout')),
    new Option(
      '--request-timeout <ms>',
      'a request (headers and body) that takes longer than this to arrive is answered 408 (0: no limit)',
    )
      .env('MCP_DB_REQUEST_TIMEOUT')
      .default(LIMITS.requestTimeoutMs)
      .argParser(nonNegativeInt('request-timeout', 'milliseconds')),
    new Option('--max-batch <n>', 'most messages in one JSON-RPC batch (2025-03-26 clients)')
      .env('MCP_DB_MAX_BATCH')
      .default(LIMITS.maxBatch)
      .argParser(positiveInt('max-batch')),
    new Option(
      '--max-batch-bytes <n>',
      'largest answer to one JSON-RPC batch; past it, or past --statement-timeout, every call in it gets an error',
    )
      .env('MCP_DB_MAX_BATCH_BYTES')
      .default(LIMITS.maxBatchBytes)
      .argParser(positiveInt('max-batch-bytes')),
  ];
}

/** How the process uses the machine's cores, and the delay that only tests ask for. */
function processOptions(): Option[] {
  return [
    new Option(
      '--workers <n>',
      'HTTP worker processes sharing the port, each with its own connections (auto: one per core but one; one for PGlite)',
    )
      .env('MCP_DB_WORKERS')
      .default('auto')
      .argParser(orAuto(positiveInt('workers'))),
    new Option(
      '--busy-poll <us>',
      'for a lone client that comes straight back after each answer: poll instead of sleeping while its call waits for the database (up to ten times this) and this many µs after the answer, so its next call finds the server awake (0: never; auto: 100 where the process may use two cores or more and while the machine has a core to spare, else 0)',
    )
      .env('MCP_DB_BUSY_POLL')
      .default('auto')
      .argParser(orAuto(nonNegativeInt('busy-poll', 'microseconds'))),
    new Option('--test-delay-ms <ms>')
      .env(TEST_DELAY_ENV)
      .default(0)
      .argParser(nonNegativeInt('test-delay-ms', 'milliseconds'))
      .hideHelp(),
  ];
}

const HELP_AFTER =
  '\nEvery option can also be set by the environment variable shown, or in the --config file (maxRows: for --max-rows);\n' +
  'a flag beats its variable, which beats the file. DATABASE_URL is read when none of --url, MCP_DB_URL and the file names a database.\n' +
  'Several databases: --url NAME=URL once per database (NAME: a lowercase letter, then lowercase letters, digits or _); the\n' +
  'tools stay the same, each that touches data with a database argument naming one (see docs/server.md, "Several databases").\n' +
  'Exit codes: 0 stopped, 1 a failure (the database cannot be opened, the port is taken), 2 a mistake on the command line.\n\n' +
  'Examples:\n' +
  '  mcp-db-server --url sqlite:./shop.db\n' +
  '  mcp-db-server --url postgres://bench:bench@127.0.0.1:5432/bench --http --port 7400\n' +
  '  mcp-db-server --url shop=sqlite:./shop.db --url crm=$CRM_URL   # several databases: each tool takes database: shop or crm\n' +
  '  MCP_DB_TOKEN=$TOKEN MCP_DB_SESSION_KEY=$KEY mcp-db-server --url $DATABASE_URL --http --host 0.0.0.0   # one of several behind a load balancer\n' +
  '  mcp-db-server --config shop.yaml --http   # options and custom tools from a file (docs/examples/shop.yaml)\n' +
  '\nOver HTTP, GET /livez answers 200 while the process serves, and GET /healthz 200 only when the database (every one) answers too (503 otherwise); neither needs the token.\n' +
  '\nOpenTelemetry: set OTEL_EXPORTER_OTLP_ENDPOINT (or the _TRACES_ / _METRICS_ one) to export spans and metrics over OTLP;\n' +
  'OTEL_METRICS_EXPORTER=prometheus serves the metrics for scraping on 127.0.0.1:9464/metrics (OTEL_EXPORTER_PROMETHEUS_HOST,\n' +
  '_PORT; under --workers N, worker i on PORT+i). The other OTEL_* variables apply. Needs @opentelemetry/api and\n' +
  '@opentelemetry/sdk-node installed beside the server.\n';

/** Names given to --sql-allow-function, each appended to those before (several in one value by commas). */
const functionNames = (value: string, previous: string[] | undefined): string[] => {
  const names = value.split(',').map((n) => n.trim());
  const bad = names.find((n) => !/^[^\s"]+$/.test(n));
  if (bad !== undefined)
    throw new InvalidArgumentError(`a function name, as PostgreSQL spells it (no spaces or quotes): not "${bad}"`);
  return [...(previous ?? []), ...names];
};

const positiveInt = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return n;
};

const nonNegativeInt =
  (name: string, unit = 'seconds') =>
  (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError(`${name} must be a whole number of ${unit}, 0 or more`);
    return n;
  };

/** `parse`, or the word auto (the option's value then depends on the machine). */
const orAuto =
  <T>(parse: (value: string) => T) =>
  (value: string): T | 'auto' => {
    if (value === 'auto') return value;
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError(`${(error as Error).message}, or auto`);
    }
  };

const port = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('port must be 0-65535');
  return n;
};
