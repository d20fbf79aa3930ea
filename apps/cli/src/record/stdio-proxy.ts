import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Recorder } from './recorder.js';

interface Pending {
  message: unknown;
  startedAt: number;
  bytes: number;
}

/**
 * A transparent MCP proxy over stdio: the host spawns `mcp-db-bench record --target-cmd CMD`
 * as its server; this spawns CMD, passes each line both ways unchanged, and gives the recorder
 * each request with its answer (matched by id; a notification at once). The whole process is one
 * session, which ends when either side closes. Resolves with the server's exit code.
 */
export function recordStdio(options: {
  command: string;
  args: readonly string[];
  recorder: Recorder;
  input?: Readable;
  output?: Writable;
}): Promise<number> {
  const { recorder } = options;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const child = spawn(options.command, options.args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const key = 'stdio';
  const pending = new Map<string | number, Pending>();

  createInterface({ input, crlfDelay: Infinity }).on('line', (line) => {
    child.stdin.write(`${line}\n`);
    const message = parse(line);
    if (message === undefined) return;
    const now = recorder.clock();
    const id = (message as { id?: string | number }).id;
    if (id === undefined || id === null) {
      recorder.exchange({
        key,
        sent: [message],
        received: [],
        startedAt: now,
        endedAt: now,
        bytes: { request: Buffer.byteLength(line), response: 0 },
      });
    } else {
      pending.set(id, { message, startedAt: now, bytes: Buffer.byteLength(line) });
    }
  });
  input.once('end', () => child.stdin.end());

  createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
    output.write(`${line}\n`);
    const message = parse(line) as { id?: string | number; method?: string } | undefined;
    // An answer (it has an id and no method); the server's own requests and notifications are passed on only.
    if (message?.id === undefined || message.method !== undefined) return;
    const request = pending.get(message.id);
    if (!request) return;
    pending.delete(message.id);
    recorder.exchange({
      key,
      sent: [request.message],
      received: [message],
      startedAt: request.startedAt,
      endedAt: recorder.clock(),
      bytes: { request: request.bytes, response: Buffer.byteLength(line) },
    });
  });

  return new Promise((resolve, reject) => {
    child.once('error', reject);
    // 'close', not 'exit': the server's last answers are read and recorded before the trace ends
    child.once('close', (code, signal) => {
      recorder.end(key, recorder.clock());
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
