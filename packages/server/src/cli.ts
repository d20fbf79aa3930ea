import { engineForUrl, type SqlPolicy } from '@mcp-db-bench/engines';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import type { Command } from 'commander';
import { applyConfig } from './config/apply.js';
import { ConfigError, type LoadedConfig } from './config/load.js';
import { type DatabaseUrl, databaseUrls } from './database-urls.js';
import { type Databases, openDatabases } from './databases.js';
import { buildCli, type CliOptions } from './options.js';
import { createServerFactory, directTools } from './server.js';
import { startTelemetry, type Telemetry, TelemetryUnavailableError } from './telemetry/index.js';
import { prometheusAddress, prometheusRequested } from './telemetry/prometheus.js';
import { TEST_DELAY_ENV, withTestDelay } from './test-delay.js';
import { checkCustomTools, customTools } from './tools/custom.js';
import { SQL_TOOLS, type ToolDefinition, ToolSelectionError, toolsFor } from './tools/index.js';
import { assertSafeBind } from './transports/access.js';
import { isWorker, reportListening, workerSessions } from './transports/cluster.js';
import { startHttp } from './transports/http.js';
import { readyLine } from './transports/ready.js';
import { Sessions } from './transports/sessions.js';
import { runStdio } from './transports/stdio.js';

/** The exit code of a mistake on the command line (commander's own errors included). */
export const USAGE_EXIT = 2;

const log = (line: string) => process.stderr.write(`mcp-db-server: ${line}\n`);

/** Parses arguments, opens the database and serves until stdin closes or a signal arrives. */
export async function main(argv = process.argv): Promise<void> {
  const program = parseArguments(argv);
  const config = readConfig(program);
  const options = program.opts<CliOptions>();
  const { urls, selected } = checkOptions(program, options, givenUrls(program, options, config), config);
  const telemetry = await startTelemetryOrRefuse(program);
  const databases = await openServed(program, options, { urls, selected }, telemetry, config);
  const tools = withTestDelay(selected, options.testDelayMs);
  const factory = createServerFactory(databases.served, tools);
  await announce(options, databases, telemetry);
  if (options.http) await serveHttp(factory, options, databases, tools, telemetry);
  else await serveStdio(factory, databases, telemetry);
}

/**
 * The parsed command line. Usage errors (commander's, and the checks that call program.error)
 * exit 2; failures exit 1 (bin.ts).
 */
function parseArguments(argv: string[]): Command {
  const program = buildCli();
  program.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT));
  program.parse(argv);
  // Commander turns on a boolean flag whenever its variable is set; MCP_DB_HTTP=0 should not.
  const flags = [
    ['http', 'MCP_DB_HTTP'],
    ['echo', 'MCP_DB_ECHO'],
    ['allowWrites', 'MCP_DB_ALLOW_WRITES'],
    ['sql', 'MCP_DB_SQL'],
    ['sqlPrivilegedLogin', 'MCP_DB_SQL_PRIVILEGED_LOGIN'],
  ] as const;
  for (const [flag, variable] of flags) {
    if (program.getOptionValueSource(flag) === 'env' && /^(0|false|no|off)?$/i.test(process.env[variable] ?? '')) {
      program.setOptionValueWithSource(flag, false, 'env');
    }
  }
  // --stdio names the default: beside a typed --http it is a mistake; over MCP_DB_HTTP, it wins.
  if (program.getOptionValue('stdio') && program.getOptionValue('http')) {
    if (program.getOptionValueSource('http') === 'cli')
      program.error("error: option '--stdio' cannot be used with option '--http'");
    program.setOptionValueWithSource('http', false, 'cli');
  }
  return program;
}

/** The --config file, its options merged below the flags' and variables'. */
function readConfig(program: Command): LoadedConfig | undefined {
  try {
    const file = program.opts<CliOptions>().config;
    return file ? applyConfig(program, file) : undefined;
  } catch (error) {
    if (error instanceof ConfigError) program.error(`error: ${error.message}`);
    throw error;
  }
}

/**
 * The flag's or MCP_DB_URL's databases, else the file's, else DATABASE_URL. --db, the other
 * bin's spelling, is a flag as --url is: either beats MCP_DB_URL.
 */
function givenUrls(program: Command, options: CliOptions, config: LoadedConfig | undefined): string[] {
  const flagged = [
    ...(program.getOptionValueSource('url') === 'cli' ? (options.url ?? []) : []),
    ...(options.db ?? []),
  ];
  let given = (flagged.length ? flagged : (options.url ?? [])).filter(Boolean);
  if (!given.length) given = config?.urls ?? [];
  if (!given.length && process.env.DATABASE_URL) given = [process.env.DATABASE_URL];
  if (!given.length)
    program.error(
      'error: no database given: pass --url URL, set MCP_DB_URL, or name url in the --config file (see --help)',
    );
  return given;
}

/** The checks made before anything is opened: each mistake exits 2, like commander's own. */
function checkOptions(
  program: Command,
  options: CliOptions,
  given: string[],
  config: LoadedConfig | undefined,
): { urls: DatabaseUrl[]; selected: readonly ToolDefinition[] } {
  // Checked here, not by commander, whose message would print the secret.
  if (options.sessionKey !== undefined && options.sessionKey.length < 32) {
    program.error(
      'error: --session-key (MCP_DB_SESSION_KEY) must be at least 32 characters: it is shared by every server behind one load balancer, so make a real secret (openssl rand -hex 32)',
    );
  }
  if (options.sqlAllowFunction?.length && !options.sql)
    program.error('error: --sql-allow-function (sql.allowFunctions) applies to the sql tool: add --sql');
  let urls: DatabaseUrl[];
  try {
    if (options.http) assertSafeBind(options);
    urls = databaseUrls(given);
  } catch (error) {
    program.error(`error: ${(error as Error).message}`);
  }
  const selected = selectTools(program, options, urls, config);
  if (options.requestTimeout && options.headersTimeout > options.requestTimeout) {
    program.error(
      `error: --headers-timeout (${options.headersTimeout} ms) cannot be longer than --request-timeout (${options.requestTimeout} ms), which includes the headers`,
    );
  }
  return { urls, selected };
}

/** The flags' tools and the config file's custom ones, built for the databases' engines. */
function selectTools(
  program: Command,
  options: CliOptions,
  urls: DatabaseUrl[],
  config: LoadedConfig | undefined,
): readonly ToolDefinition[] {
  try {
    const engines = urls.map((u) => engineForUrl(u.url));
    const custom = config ? customTools(options.config!, config.tools, engines, options.allowWrites === true) : [];
    return toolsFor(options, custom);
  } catch (error) {
    if (error instanceof ToolSelectionError || error instanceof ConfigError) program.error(`error: ${error.message}`);
    throw error;
  }
}

async function startTelemetryOrRefuse(program: Command): Promise<Telemetry> {
  try {
    return await startTelemetry();
  } catch (error) {
    if (error instanceof TelemetryUnavailableError) program.error(`error: ${error.message}`);
    throw error;
  }
}

/** The databases opened, once they are known to serve these options and the config file's custom tools. */
async function openServed(
  program: Command,
  options: CliOptions,
  { urls, selected }: { urls: DatabaseUrl[]; selected: readonly ToolDefinition[] },
  telemetry: Telemetry,
  config: LoadedConfig | undefined,
): Promise<Databases> {
  // The sql tool's own connections are opened only where it is served (--sql, and not left out by --tools).
  const sql = SQL_TOOLS.some((tool) => selected.includes(tool));
  const databases = await openDatabases(urls, {
    telemetry,
    poolSize: options.poolSize,
    schemaTtl: options.schemaTtl,
    limits: {
      maxRows: options.maxRows,
      defaultRows: options.defaultRows,
      maxResponseBytes: options.maxResponseBytes,
      maxBoundValues: options.maxBoundValues,
    },
    allowWrites: options.allowWrites,
    statementTimeoutMs: options.statementTimeout,
    sql: sql ? { poolSize: options.sqlPoolSize, waitMs: options.sqlWaitTimeout, role: options.sqlRole } : undefined,
    sqlPolicy: sqlPolicy(options),
  });
  const refusal = await databases.refusal({
    workers: options.http ? options.workers : 1,
    sql,
    sqlPrivilegedLogin: options.sqlPrivilegedLogin,
    sqlRole: options.sqlRole,
    allowWrites: options.allowWrites,
  });
  if (refusal) {
    await databases.close();
    program.error(`error: ${refusal}`);
  }
  if (config) {
    try {
      await checkCustomTools(options.config!, config.tools, databases.contexts, config.line);
    } catch (error) {
      await databases.close();
      if (error instanceof ConfigError) program.error(`error: ${error.message}`);
      throw error;
    }
  }
  return databases;
}

/** What the operator allows the sql tool beyond its guard's judgement. */
function sqlPolicy(options: CliOptions): SqlPolicy {
  return { allowFunctions: new Set((options.sqlAllowFunction ?? []).map((n) => n.toLowerCase())) };
}

/** The start-up lines on stderr: the databases, where Prometheus scrapes, a test delay. */
async function announce(options: CliOptions, databases: Databases, telemetry: Telemetry): Promise<void> {
  for (const line of await databases.describe(options)) log(line);
  if (options.sql && options.sqlAllowFunction?.length)
    log(
      `sql: statements may also call ${[...sqlPolicy(options).allowFunctions].join(', ')} (--sql-allow-function): what they do is the operator's responsibility`,
    );
  if (telemetry.enabled && prometheusRequested(process.env)) {
    const { host, port } = prometheusAddress(process.env);
    log(`metrics for Prometheus on http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`);
  }
  if (options.testDelayMs)
    log(
      `TEST DELAY: every tool call waits ${options.testDelayMs} ms first (${TEST_DELAY_ENV} or --test-delay-ms; for tests only)`,
    );
}

/**
 * A signal ends the process, after databases.close has cancelled the statements still running in
 * the database (they would otherwise run on there to their timeout) and closed the pool.
 */
function stopOnSignal(databases: Databases, telemetry: Telemetry, stopServing: () => void): void {
  const stop = () => {
    stopServing();
    Promise.allSettled([databases.close(), telemetry.shutdown()]).finally(() => process.exit(0));
    // A signal always ends the process, even when a connection refuses to close in time.
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Serves over stdio until stdin closes. */
async function serveStdio(factory: McpServerFactory, databases: Databases, telemetry: Telemetry): Promise<void> {
  stopOnSignal(databases, telemetry, () => {});
  await runStdio(factory);
  await databases.close();
  await telemetry.shutdown();
}

/** Serves over HTTP, as the one process or as a --workers worker, until a signal arrives. */
async function serveHttp(
  factory: McpServerFactory,
  options: CliOptions,
  databases: Databases,
  tools: readonly ToolDefinition[],
  telemetry: Telemetry,
): Promise<void> {
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
  stopOnSignal(databases, telemetry, () => {
    server.close();
    server.closeAllConnections();
  });
}
