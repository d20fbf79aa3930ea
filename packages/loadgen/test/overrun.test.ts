import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/clients/index.js';
import { runStep } from '../src/drive/run-step.js';
import { startAgent } from '../src/loop.js';
import { WORKLOADS } from '../src/workloads/index.js';

/**
 * A step whose calls outlast it, on the real server bin slowed on purpose (--test-delay-ms: every
 * tool call waits that long): the step says how many calls were still running at its end and how
 * long after it the last one finished.
 */
type Db = { exec(sql: string): void; close(): void };
const Database = createRequire(new URL('../../server/package.json', import.meta.url))('better-sqlite3') as new (
  file: string,
) => Db;
const BIN = fileURLToPath(new URL('../../server/dist/bin.js', import.meta.url));
const DELAY_MS = 600;

let dir = '';
let dbUrl = '';
const servers: ChildProcess[] = [];

function startServer(delayMs: number): Promise<string> {
  const child = spawn(
    process.execPath,
    [BIN, '--url', dbUrl, '--http', '--port', '0', '--test-delay-ms', String(delayMs)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  servers.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const m = /listening on (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-overrun-'));
  const file = join(dir, 'tiny.db');
  const db = new Database(file);
  db.exec(`
    create table items (id integer primary key, label text not null);
    insert into items (label) values ('one'), ('two'), ('three');
  `);
  db.close();
  dbUrl = `sqlite:${file}`;
});

afterAll(async () => {
  for (const child of servers) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const step = (url: string, durationMs: number) =>
  runStep({
    agents: 2,
    mode: 'closed',
    warmupMs: 0,
    durationMs,
    makeAgent: (i) =>
      startAgent(
        WORKLOADS['point-read']!,
        createClient({ kind: 'http', url }, { client: 'lean', protocol: 'legacy', timeoutMs: 15_000 }),
        1,
        i,
      ),
  });

describe('a step whose calls outlast it', () => {
  it(`records the calls running at its end and how long after it the last one finished (${DELAY_MS} ms calls, 300 ms step)`, async () => {
    const url = await startServer(DELAY_MS);
    const m = await step(url, 300);
    // each agent's first call began as the step did and ended at least DELAY_MS later
    expect(m.calls).toBe(2);
    expect(m.overrun?.calls).toBe(2);
    expect(m.overrun!.lastEndedAfterMs).toBeGreaterThanOrEqual(DELAY_MS - 300);
    expect(m.overrun!.lastEndedAfterMs).toBeLessThan(10_000);
  }, 60_000);
});
