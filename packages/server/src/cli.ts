import { HOST_REVISIONS, MODERN_REVISION } from '@mcp-db-bench/contract';
import { ENGINE_TITLES, engineForUrl, URL_FORMS } from '@mcp-db-bench/engines';
import { Command, InvalidArgumentError, Option } from 'commander';
import { applyConfig } from './config/apply.js';
import { ConfigError, type LoadedConfig } from './config/load.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from './context.js';
import { collect, databaseUrls } from './database-urls.js';
import { openDatabases } from './databases.js';
import { createServerFactory, directTools } from './server.js';
import { startTelemetry, type Telemetry, TelemetryUnavailableError } from './telemetry/index.js';
import { prometheusAddress, prometheusRequested } from './telemetry/prometheus.js';
import { TEST_DELAY_ENV, withTestDelay } from './test-delay.js';
import { checkCustomTools, customTools } from './tools/custom.js';
import { ToolSelectionError, toolsFor } from './tools/index.js';
import { assertSafeBind } from './transports/access.js';
import { isWorker, reportListening, type WorkersOption, workerSessions } from './transports/cluster.js';
import { startHttp } from './transports/http.js';
import { DEFAULT_TRANSPORT_LIMITS as LIMITS } from './transports/limits.js';
import { readyLine } from './transports/ready.js';
import { DEFAULT_SESSION_LIMITS, Sessions } from './transports/sessions.js';
import { runStdio } from './transports/stdio.js';
import { VERSION } from './version.js';

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

/** The exit code of a mistake on the command line (commander's own errors included). */
export const USAGE_EXIT = 2;

export function buildCli(): Command {
  return (
    new Command('mcp-db-server')
      .description(
        `An MCP server over ${ENGINE_TITLES} with one uniform set of tools: list_tables, describe_table, query, get, ` +
          'aggregate; insert, update, delete and transact with --allow-writes; sql with --sql. Read-only by default, enforced by ' +
          `the database. Speaks MCP ${MODERN_REVISION} and the 2025 revisions (${HOST_REVISIONS.at(-1)} to ${HOST_REVISIONS[0]}, ` +
          'with sessions over HTTP) over stdio (default) or HTTP.',
      )
      .version(VERSION)
      .addOption(
        new Option(
          '--config <file>',
          'read options and custom tools from this YAML file; flags and variables override it (see docs/server.md)',
        ).env('MCP_DB_CONFIG'),
      )
      .addOption(
        new Option('--url <url>', `database URL: ${URL_FORMS}; repeat as --url NAME=URL to serve several`)
          .env('MCP_DB_URL')
          .argParser(collect),
      )
      .addOption(
        new Option('--http', 'serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio').env('MCP_DB_HTTP'),
      )
      // The other bin's spellings, hidden: `mcp-db-bench serve` says --db and --stdio.
      .addOption(new Option('--stdio', 'serve over stdio (the default)').hideHelp())
      .addOption(new Option('--db <url>', 'same as --url').argParser(collect).hideHelp())
      .addOption(
        new Option('--host <host>', 'HTTP bind address; non-loopback addresses require --token')
          .env('MCP_DB_HOST')
          .default('127.0.0.1'),
      )
      .addOption(
        new Option('--port <port>', 'HTTP port (0 picks a free one)').env('MCP_DB_PORT').default(7400).argParser(port),
      )
      .addOption(
        new Option('--token <token>', 'require "Authorization: Bearer <token>" on every HTTP request').env(
          'MCP_DB_TOKEN',
        ),
      )
      .addOption(
        new Option('--allowed-hosts <names>', 'comma-separated extra Host/Origin names to accept (for a reverse proxy)')
          .env('MCP_DB_ALLOWED_HOSTS')
          .argParser((v) =>
            v
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          ),
      )
      .addOption(
        new Option('--max-rows <n>', 'most rows one call returns; larger limits are capped')
          .env('MCP_DB_MAX_ROWS')
          .default(1000)
          .argParser(positiveInt('max-rows')),
      )
      .addOption(
        new Option(
          '--max-response-bytes <n>',
          'largest tool result in bytes of JSON; larger ones are refused with a clear error',
        )
          .env('MCP_DB_MAX_RESPONSE_BYTES')
          .default(1024 * 1024)
          .argParser(positiveInt('max-response-bytes')),
      )
      .addOption(
        new Option('--default-rows <n>', 'rows returned when a call gives no limit')
          .env('MCP_DB_DEFAULT_ROWS')
          .default(100)
          .argParser(positiveInt('default-rows')),
      )
      .addOption(
        new Option('--allow-writes', 'register insert, update, delete and transact, and open read-write sessions').env(
          'MCP_DB_ALLOW_WRITES',
        ),
      )
      .addOption(
        new Option(
          '--sql',
          'register the sql tool: one caller-written SELECT with :named parameters, run read-only; what reaches files, locks or other sessions is refused',
        ).env('MCP_DB_SQL'),
      )
      .addOption(
        new Option(
          '--statement-timeout <ms>',
          'the database cancels a statement running longer than this (0: no limit)',
        )
          .env('MCP_DB_STATEMENT_TIMEOUT')
          .default(DEFAULT_STATEMENT_TIMEOUT_MS)
          .argParser(nonNegativeInt('statement-timeout', 'milliseconds')),
      )
      .addOption(
        new Option(
          '--tools <list>',
          'serve only these tools: names and sets (read, minimal, write, all), comma-separated, e.g. minimal or read,insert',
        ).env('MCP_DB_TOOLS'),
      )
      .addOption(
        new Option('--echo', 'also register an echo tool that skips the database (to measure protocol overhead)').env(
          'MCP_DB_ECHO',
        ),
      )
      .addOption(
        new Option('--pool-size <n>', 'most database connections to open')
          .env('MCP_DB_POOL_SIZE')
          .default(10)
          .argParser(positiveInt('pool-size')),
      )
      .addOption(
        new Option(
          '--schema-ttl <seconds>',
          'reload the cached schema this often (0: only when a statement hits a missing object)',
        )
          .env('MCP_DB_SCHEMA_TTL')
          .default(60)
          .argParser(nonNegativeInt('schema-ttl')),
      )
      .addOption(
        new Option(
          '--max-sessions <n>',
          'most 2025-era sessions (Mcp-Session-Id) the server remembers (its workers share one table); past it a new one ends the least recently used',
        )
          .env('MCP_DB_MAX_SESSIONS')
          .default(DEFAULT_SESSION_LIMITS.maxSessions)
          .argParser(positiveInt('max-sessions')),
      )
      .addOption(
        new Option(
          '--session-idle <seconds>',
          'a 2025-era session unused this long ends; its client must initialize again',
        )
          .env('MCP_DB_SESSION_IDLE')
          .default(DEFAULT_SESSION_LIMITS.idleMs / 1000)
          .argParser(positiveInt('session-idle')),
      )
      .addOption(
        new Option(
          '--session-key <key>',
          'sign 2025-era session ids with this secret (32+ characters; better set by its variable), so every server given it honours them',
        ).env('MCP_DB_SESSION_KEY'),
      )
      .addOption(
        new Option(
          '--max-connections <n>',
          'most open HTTP connections per worker process; more are answered 503 and closed',
        )
          .env('MCP_DB_MAX_CONNECTIONS')
          .default(LIMITS.maxConnections)
          .argParser(positiveInt('max-connections')),
      )
      .addOption(
        new Option(
          '--max-buffered-bytes <n>',
          'most bytes of request bodies (and batch answers) held at once per worker process; a request past it gets 503',
        )
          .env('MCP_DB_MAX_BUFFERED_BYTES')
          .default(LIMITS.maxBufferedBytes)
          .argParser(positiveInt('max-buffered-bytes')),
      )
      .addOption(
        new Option(
          '--body-timeout <ms>',
          'a request body that pauses longer than this between two pieces is answered 408',
        )
          .env('MCP_DB_BODY_TIMEOUT')
          .default(LIMITS.bodyTimeoutMs)
          .argParser(positiveInt('body-timeout')),
      )
      .addOption(
        new Option(
          '--headers-timeout <ms>',
          'a request whose line and headers take longer than this to arrive is answered 408',
        )
          .env('MCP_DB_HEADERS_TIMEOUT')
          .default(LIMITS.headersTimeoutMs)
          .argParser(positiveInt('headers-timeout')),
      )
      .addOption(
        new Option(
          '--request-timeout <ms>',
          'a request (headers and body) that takes longer than this to arrive is answered 408 (0: no limit)',
        )
          .env('MCP_DB_REQUEST_TIMEOUT')
          .default(LIMITS.requestTimeoutMs)
          .argParser(nonNegativeInt('request-timeout', 'milliseconds')),
      )
      .addOption(
        new Option('--max-batch <n>', 'most messages in one JSON-RPC batch (2025-03-26 clients)')
          .env('MCP_DB_MAX_BATCH')
          .default(LIMITS.maxBatch)
          .argParser(positiveInt('max-batch')),
      )
      .addOption(
        new Option(
          '--max-batch-bytes <n>',
          'largest answer to one JSON-RPC batch; past it, or past --statement-timeout, every call in it gets an error',
        )
          .env('MCP_DB_MAX_BATCH_BYTES')
          .default(LIMITS.maxBatchBytes)
          .argParser(positiveInt('max-batch-bytes')),
      )
      .addOption(
        new Option(
          '--workers <n>',
          'HTTP worker processes sharing the port, each with its own connections (auto: one per core but one; one for PGlite)',
        )
          .env('MCP_DB_WORKERS')
          .default('auto')
          .argParser(orAuto(positiveInt('workers'))),
      )
      .addOption(
        new Option(
          '--busy-poll <us>',
          'for a lone client that comes straight back after each answer: poll instead of sleeping while its call waits for the database (up to ten times this) and this many µs after the answer, so its next call finds the server awake (0: never; auto: 100 where the process may use two cores or more, else 0)',
        )
          .env('MCP_DB_BUSY_POLL')
          .default('auto')
          .argParser(orAuto(nonNegativeInt('busy-poll', 'microseconds'))),
      )
      .addOption(
        new Option('--test-delay-ms <ms>')
          .env(TEST_DELAY_ENV)
          .default(0)
          .argParser(nonNegativeInt('test-delay-ms', 'milliseconds'))
          .hideHelp(),
      )
      .addHelpText(
        'after',
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
          '@opentelemetry/sdk-node installed beside the server.\n',
      )
  );
}

interface CliOptions {
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
  poolSize: number;
  schemaTtl: number;
  echo?: boolean;
  allowWrites?: boolean;
  sql?: boolean;
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

/** Parses arguments, opens the database and serves until stdin closes or a signal arrives. */
export async function main(argv = process.argv): Promise<void> {
  const program = buildCli();
  // Usage errors (commander's, and the checks below that call program.error) exit 2; failures exit 1 (bin.ts).
  program.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT));
  program.parse(argv);
  // Commander turns on a boolean flag whenever its variable is set; MCP_DB_HTTP=0 should not.
  const flags = [
    ['http', 'MCP_DB_HTTP'],
    ['echo', 'MCP_DB_ECHO'],
    ['allowWrites', 'MCP_DB_ALLOW_WRITES'],
    ['sql', 'MCP_DB_SQL'],
  ] as const;
  for (const [flag, variable] of flags) {
    if (program.getOptionValueSource(flag) === 'env' && /^(0|false|no|off)?$/i.test(process.env[variable] ?? '')) {
      program.setOptionValueWithSource(flag, false, 'env');
    }
  }
  // --stdio names the default: beside a typed --http it is a mistake; over MCP_DB_HTTP, it wins.
  if (program.getOptionValue('stdio') && program.getOptionValue('http')) {
    if (program.getOptionValueSource('http') === 'cli')
      return program.error("error: option '--stdio' cannot be used with option '--http'");
    program.setOptionValueWithSource('http', false, 'cli');
  }
  let config: LoadedConfig | undefined;
  try {
    const file = program.opts<CliOptions>().config;
    if (file) config = applyConfig(program, file);
  } catch (error) {
    if (error instanceof ConfigError) return program.error(`error: ${error.message}`);
    throw error;
  }
  const options = program.opts<CliOptions>();
  // The flag's or MCP_DB_URL's databases, else the file's, else DATABASE_URL.
  // --db, the other bin's spelling, is a flag as --url is: either beats MCP_DB_URL.
  const flagged = [
    ...(program.getOptionValueSource('url') === 'cli' ? (options.url ?? []) : []),
    ...(options.db ?? []),
  ];
  let given = (flagged.length ? flagged : (options.url ?? [])).filter(Boolean);
  if (!given.length) given = config?.urls ?? [];
  if (!given.length && process.env.DATABASE_URL) given = [process.env.DATABASE_URL];
  if (!given.length)
    return program.error(
      'error: no database given: pass --url URL, set MCP_DB_URL, or name url in the --config file (see --help)',
    );

  // Checked here, not by commander, whose message would print the secret.
  if (options.sessionKey !== undefined && options.sessionKey.length < 32) {
    return program.error(
      'error: --session-key (MCP_DB_SESSION_KEY) must be at least 32 characters: it is shared by every server behind one load balancer, so make a real secret (openssl rand -hex 32)',
    );
  }
  // Mistakes on the command line exit 2, like commander's own (bin.ts exits 1 on a failure while running).
  let urls: ReturnType<typeof databaseUrls>;
  try {
    if (options.http) assertSafeBind(options);
    urls = databaseUrls(given);
  } catch (error) {
    return program.error(`error: ${(error as Error).message}`);
  }
  let selected: ReturnType<typeof toolsFor>;
  try {
    const engines = urls.map((u) => engineForUrl(u.url));
    const custom = config ? customTools(options.config!, config.tools, engines, options.allowWrites === true) : [];
    selected = toolsFor(options, custom);
  } catch (error) {
    if (error instanceof ToolSelectionError || error instanceof ConfigError)
      return program.error(`error: ${error.message}`);
    throw error;
  }
  if (options.requestTimeout && options.headersTimeout > options.requestTimeout) {
    return program.error(
      `error: --headers-timeout (${options.headersTimeout} ms) cannot be longer than --request-timeout (${options.requestTimeout} ms), which includes the headers`,
    );
  }
  let telemetry: Telemetry;
  try {
    telemetry = await startTelemetry();
  } catch (error) {
    if (error instanceof TelemetryUnavailableError) return program.error(`error: ${error.message}`);
    throw error;
  }
  const databases = await openDatabases(urls, {
    telemetry,
    poolSize: options.poolSize,
    schemaTtl: options.schemaTtl,
    limits: { maxRows: options.maxRows, defaultRows: options.defaultRows, maxResponseBytes: options.maxResponseBytes },
    allowWrites: options.allowWrites,
    statementTimeoutMs: options.statementTimeout,
  });
  const refusal = databases.refusal({ workers: options.http ? options.workers : 1, sql: options.sql });
  if (refusal) {
    await databases.close();
    return program.error(`error: ${refusal}`);
  }
  if (config) {
    try {
      await checkCustomTools(options.config!, config.tools, databases.contexts, config.line);
    } catch (error) {
      await databases.close();
      if (error instanceof ConfigError) return program.error(`error: ${error.message}`);
      throw error;
    }
  }
  const tools = withTestDelay(selected, options.testDelayMs);
  const factory = createServerFactory(databases.served, tools);
  const log = (line: string) => process.stderr.write(`mcp-db-server: ${line}\n`);
  for (const line of await databases.describe(options)) log(line);
  if (telemetry.enabled && prometheusRequested(process.env)) {
    const { host, port } = prometheusAddress(process.env);
    log(`metrics for Prometheus on http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`);
  }
  if (options.testDelayMs)
    log(
      `TEST DELAY: every tool call waits ${options.testDelayMs} ms first (${TEST_DELAY_ENV} or --test-delay-ms; for tests only)`,
    );

  // A signal ends the process, after databases.close has cancelled the statements still running in the
  // database (they would otherwise run on there to their timeout) and closed the pool.
  const onSignal = (stopServing: () => void) => {
    const stop = () => {
      stopServing();
      Promise.allSettled([databases.close(), telemetry.shutdown()]).finally(() => process.exit(0));
      // A signal always ends the process, even when a connection refuses to close in time.
      setTimeout(() => process.exit(0), 5_000).unref();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  };
  if (!options.http) {
    onSignal(() => {});
    await runStdio(factory);
    await databases.close();
    await telemetry.shutdown();
    return;
  }
  const limits = { maxSessions: options.maxSessions, idleMs: options.sessionIdle * 1000 };
  const key = options.sessionKey === undefined ? undefined : Buffer.from(options.sessionKey);
  const { server, url: endpoint } = await startHttp(factory, {
    host: options.host,
    port: options.port,
    token: options.token,
    allowedHosts: options.allowedHosts,
    direct: directTools(databases.served, tools),
    // A worker always has a key: the given one, or the one its primary made.
    sessions: isWorker() && key ? workerSessions(limits, key) : new Sessions(limits, key),
    health: databases.ping,
    telemetry,
    busyPollUs: options.busyPoll === 'auto' ? undefined : options.busyPoll,
    limits: {
      maxConnections: options.maxConnections,
      maxBufferedBytes: options.maxBufferedBytes,
      bodyTimeoutMs: options.bodyTimeout,
      headersTimeoutMs: options.headersTimeout,
      requestTimeoutMs: options.requestTimeout,
      maxBatch: options.maxBatch,
      maxBatchBytes: options.maxBatchBytes,
      // A batch may take what one statement may: its CPU is bounded like a single call's.
      batchTimeoutMs: options.statementTimeout,
    },
  });
  if (isWorker()) reportListening(endpoint);
  else log(readyLine(endpoint));
  onSignal(() => {
    server.close();
    server.closeAllConnections();
  });
}
