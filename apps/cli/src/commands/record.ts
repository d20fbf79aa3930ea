import { createWriteStream } from 'node:fs';
import { TRACE_VALUES, type TraceLine, type TraceValues } from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import { assertSafeBind } from '@mcp-db-bench/server';
import { Command, Option } from 'commander';
import { EXIT, UsageError } from '../errors.js';
import { checkOutputPath, examples } from '../options.js';
import { parsePort, parseTarget } from '../parse/values.js';
import { recordHttp } from '../record/http-proxy.js';
import { Recorder } from '../record/recorder.js';
import { recordStdio } from '../record/stdio-proxy.js';

interface RecordFlags {
  target?: string;
  targetCmd?: string;
  host: string;
  port: number;
  token?: string;
  out: string;
  values: TraceValues;
}

/** A transparent proxy between a host and any MCP server that writes what the host does as a trace. */
export function recordCommand(): Command {
  return new Command('record')
    .description(
      "record a host's MCP sessions as a trace: a transparent proxy in front of any MCP server (HTTP or stdio)",
    )
    .addOption(
      new Option(
        '--target <url>',
        'the MCP server to record, over Streamable HTTP; the host connects to --host:--port instead',
      ).argParser(parseTarget),
    )
    .option(
      '--target-cmd <command>',
      'the MCP server to record, over stdio: the host runs `mcp-db-bench record --target-cmd ...` as its server',
    )
    .option('--host <host>', 'address the proxy listens on (HTTP); beyond loopback it needs --token', '127.0.0.1')
    .addOption(
      new Option('--port <port>', 'port the proxy listens on (HTTP; 0 picks a free one)')
        .default(7410)
        .argParser(parsePort),
    )
    .addOption(
      new Option(
        '--token <token>',
        'bearer token every request to the proxy must carry (HTTP), as the server requires its own; sent on to the target as it came',
      ).env('MCP_DB_TOKEN'),
    )
    .option('-o, --out <file>', 'the trace, one JSON object per line', 'mcp-trace.jsonl')
    .addOption(
      new Option(
        '--values <mode>',
        'what the trace keeps of tool arguments: shape (types and lengths; table and column names kept), keep, or drop',
      )
        .choices(TRACE_VALUES)
        .default('shape'),
    )
    .addHelpText(
      'after',
      '\nThe trace holds, per session: its start (protocol version, client), then every request (method, tool, arguments as --values keeps them,\n' +
        'think time since the previous answer, duration, bytes, rows, error). Server session ids are never written.\n' +
        'Over HTTP, point the host at the proxy (e.g. claude mcp add --transport http shop http://127.0.0.1:7410/mcp);\n' +
        'over stdio, give the host the record command as its server command.\n' +
        examples(
          'mcp-db-bench record --target http://127.0.0.1:7400/mcp --port 7410 -o session.jsonl',
          'mcp-db-bench record --target-cmd "mcp-db-server --url sqlite:shop.db" -o session.jsonl',
        ),
    )
    .action(async (flags: RecordFlags) => {
      if ((flags.target === undefined) === (flags.targetCmd === undefined))
        throw new UsageError('give the server to record: --target URL or --target-cmd COMMAND (one of them)');
      checkOutputPath('--out', flags.out);
      const [command = '', ...args] = (flags.targetCmd ?? '').split(/\s+/).filter(Boolean);
      if (flags.targetCmd !== undefined && !command) throw new UsageError('--target-cmd needs a command');
      // Before the trace file is made: the proxy serves the target's data, so it guards it as the server does.
      if (!command) {
        try {
          assertSafeBind({ host: flags.host, token: flags.token });
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
      }

      const { write, finished } = traceFile(flags.out);
      // Over stdio, stdout is the protocol: everything for the user goes to stderr.
      const say = (text: string) => process.stderr.write(`mcp-db-bench record: ${text}\n`);

      if (command) {
        const recorder = new Recorder(write, flags.values, command);
        say(`recording ${command} over stdio to ${flags.out}`);
        const code = await recordStdio({ command, args, recorder });
        await finished();
        process.exitCode = code;
        return;
      }
      const recorder = new Recorder(write, flags.values, redactUrl(flags.target!));
      const { server, url } = await recordHttp({
        target: flags.target!,
        host: flags.host,
        port: flags.port,
        token: flags.token,
        recorder,
      });
      say(`recording ${redactUrl(flags.target!)} to ${flags.out}; point the host at ${url} (Ctrl-C stops)`);
      await new Promise<void>((stop) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) {
          process.once(signal, () => {
            process.exitCode = signal === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
            stop();
          });
        }
      });
      // Sockets report their close later, after the file has ended: their sessions end here instead.
      recorder.stop(recorder.clock());
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await finished();
      say(`trace written to ${flags.out}`);
    });
}

/** The most of the trace that waits to be written with the lines after it. */
const BATCH_CHARS = 64 * 1024;

/**
 * The trace file, the lines of one event-loop turn written together: the HTTP proxy records in
 * batches (`Recorder.later`), so a batch's lines go out in one write in place of one per line,
 * which at thousands of calls a second cost the proxy more than the lines themselves. `finished`
 * writes what waits, then ends the file: the trace is whole once it resolves.
 */
function traceFile(path: string): { write: (line: TraceLine) => void; finished: () => Promise<void> } {
  const file = createWriteStream(path);
  let waiting = '';
  let pending: NodeJS.Immediate | undefined;
  const flush = () => {
    clearImmediate(pending);
    pending = undefined;
    if (waiting) file.write(waiting);
    waiting = '';
  };
  return {
    write(line) {
      waiting += `${JSON.stringify(line)}\n`;
      if (waiting.length >= BATCH_CHARS) flush();
      else pending ??= setImmediate(flush);
    },
    finished() {
      flush();
      return new Promise<void>((done) => file.end(done));
    },
  };
}
