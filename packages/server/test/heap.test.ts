import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, missingServingFlags, SERVING_NODE_FLAGS } from '../src/heap.js';
import { startServerProcess } from '../src/transports/ready.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
/** A process's command line as the kernel holds it (execve replaces it). */
const commandLine = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

describe('boundHeapGrowth', () => {
  it('leaves a growth factor chosen on the node command line alone', () => {
    expect(boundHeapGrowth(['--max-semi-space-size=2', '--heap-growing-percent=80'])).toBe(false);
    expect(boundHeapGrowth(['--heap_growing_percent=80'])).toBe(false);
  });

  it('sets its own otherwise', () => {
    expect(boundHeapGrowth(['--max-semi-space-size=2'])).toBe(true);
  });
});

describe('missingServingFlags', () => {
  it('names every serving flag a bare command line lacks', () => {
    expect(missingServingFlags([], '')).toEqual(SERVING_NODE_FLAGS);
    expect(missingServingFlags(['--import', 'x.mjs'], '')).toEqual(SERVING_NODE_FLAGS);
    expect(missingServingFlags(['--node-memory-debug'], '')).toEqual(SERVING_NODE_FLAGS);
  });

  it('leaves a flag the user set, either way and in either spelling', () => {
    expect(missingServingFlags(['--max-semi-space-size=16'], '')).toEqual(['--no-memory-reducer']);
    expect(missingServingFlags(['--max_semi_space_size=16', '--memory-reducer'], '')).toEqual([]);
    expect(missingServingFlags(['--memory_reducer'], '')).toEqual(['--max-semi-space-size=8']);
    expect(missingServingFlags(SERVING_NODE_FLAGS, '')).toEqual([]);
  });

  it('reads NODE_OPTIONS too: a young generation sized there is not overridden on the command line', () => {
    expect(missingServingFlags([], '--max-old-space-size=512 --max-semi-space-size=16')).toEqual([
      '--no-memory-reducer',
    ]);
  });
});

// execve and /proc: Linux (Node.js 22.15 or later). Elsewhere the server runs as started.
describe.runIf(process.platform === 'linux' && typeof process.execve === 'function')('the serving flags', () => {
  it('one HTTP process restarts in place with them, keeping its pid and the flags given', async () => {
    const server = await startServerProcess(['--url', 'sqlite::memory:', '--http', '--port', '0', '--workers', '1'], {
      bin: BIN,
      nodeArgs: ['--stack-trace-limit=20'],
    });
    try {
      const line = commandLine(server.child.pid!);
      expect(line).toEqual(expect.arrayContaining(['--stack-trace-limit=20', ...SERVING_NODE_FLAGS]));
      expect(line.slice(line.indexOf(BIN))).toEqual([
        BIN,
        '--url',
        'sqlite::memory:',
        '--http',
        '--port',
        '0',
        '--workers',
        '1',
      ]);
      // and serves: its database answers
      const health = await fetch(server.endpoint.replace(/\/mcp$/, '/healthz'));
      expect(health.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('a flag the user chose stays theirs: no restart when none is missing', async () => {
    const server = await startServerProcess(['--url', 'sqlite::memory:', '--http', '--port', '0', '--workers', '1'], {
      bin: BIN,
      nodeArgs: ['--memory-reducer', '--max-semi-space-size=4'],
    });
    try {
      const line = commandLine(server.child.pid!);
      expect(line).toContain('--memory-reducer');
      expect(line).not.toContain('--no-memory-reducer');
      expect(line).not.toContain('--max-semi-space-size=8');
    } finally {
      await server.stop();
    }
  });

  it('stdio serves as started: a desktop host keeps the memory reducer', async () => {
    const child = spawn(process.execPath, [BIN, '--url', 'sqlite::memory:', '--stdio'], { stdio: 'pipe' });
    try {
      // the answer to initialize means the server is up, after any restart would have happened
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
      );
      await new Promise((resolve) => child.stdout.once('data', resolve));
      expect(commandLine(child.pid!)).toEqual([process.execPath, BIN, '--url', 'sqlite::memory:', '--stdio']);
    } finally {
      child.kill();
    }
  });
});
