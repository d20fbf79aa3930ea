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
 * refuse every new session. The server here keeps only 3.
 */
describe('session starts repeated on one client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-sessions-'));
  let server: ServerProcess;

  beforeAll(async () => {
    const url = `sqlite:${join(dir, 'bench.db')}`;
    await seed({ url, scale: 0.001, seed: 1, indexes: 'optimized', force: false });
    server = await startServer(url, ['--max-sessions', '3']);
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const kind of ['lean', 'sdk'] as const) {
    it(`${kind}: 30 session starts on one client against a limit of 3, none refused`, async () => {
      const client = createClient({ kind: 'http', url: server.endpoint }, { client: kind, protocol: 'legacy' });
      try {
        for (let i = 0; i < 30; i++) {
          const { era } = await client.open();
          expect(era).toBe('legacy');
          const answer = await client.callTool('list_tables', {});
          expect(answer.isError).toBe(false);
          // The lean client ends the replaced session in the background: let it land before the next start.
          if (kind === 'lean') await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await client.close();
      }
    });
  }
});
