import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@mcp-db-bench/agent';
import { seed } from '@mcp-db-bench/dataset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../src/run/server-process.js';

/**
 * Our clients end the 2025-era sessions they replace: a benchmark that starts sessions over and
 * over (the session-init workload) must not fill the server's session table, which would then
 * refuse every new session. The SDK client ends each one as it opens the next; the lean client
 * ends them in batches of 64, so here the server keeps 70 and sees 200 session starts.
 */
describe('session starts repeated on one client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-sessions-'));
  let server: ServerProcess;

  beforeAll(async () => {
    const url = `sqlite:${join(dir, 'bench.db')}`;
    await seed({ url, scale: 0.001, seed: 1, indexes: 'optimized', force: false });
    server = await startServer(url, ['--max-sessions', '70']);
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const kind of ['lean', 'sdk'] as const) {
    it(`${kind}: 200 session starts on one client against a limit of 70, none refused`, async () => {
      const client = createClient({ kind: 'http', url: server.endpoint }, { client: kind, protocol: 'legacy' });
      try {
        for (let i = 0; i < 200; i++) {
          const { era } = await client.open();
          expect(era).toBe('legacy');
          const answer = await client.callTool('list_tables', {});
          expect(answer.isError).toBe(false);
        }
      } finally {
        await client.close();
      }
    });
  }
});
