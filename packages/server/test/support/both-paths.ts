import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/context.js';
import { createServerFactory, directTools } from '../../src/server.js';
import { BENCH_TOOLS, READ_TOOLS } from '../../src/tools/index.js';
import { type HttpOptions, startHttp } from '../../src/transports/http.js';
import { loadShop } from './shop.js';

export interface BothPaths {
  /** the server with the hot paths */
  hotUrl: string;
  /** the same database and tools with every request through the SDK */
  sdkUrl: string;
  close(): Promise<void>;
}

/**
 * One shop database served twice over HTTP, in process: with the hot paths and without them, so
 * a test can send both the same request and require the same answer.
 */
export async function bothPaths(options: Pick<HttpOptions, 'sessions'> = {}): Promise<BothPaths> {
  const tools = [...READ_TOOLS, ...BENCH_TOOLS];
  const dir = mkdtempSync(join(tmpdir(), 'mcp-both-paths-'));
  const url = `sqlite:${join(dir, 'shop.db')}`;
  await loadShop(url);
  const ctx = await openDatabase({ url });
  const factory = createServerFactory(ctx, tools);
  const hot = await startHttp(factory, { host: '127.0.0.1', port: 0, direct: directTools(ctx, tools), ...options });
  const sdk = await startHttp(factory, { host: '127.0.0.1', port: 0 });
  return {
    hotUrl: hot.url,
    sdkUrl: sdk.url,
    async close() {
      for (const { server } of [hot, sdk]) {
        server.closeAllConnections();
        server.close();
      }
      await ctx.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
