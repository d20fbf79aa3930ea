import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseReady, readyLine, ServerStartError, startServerProcess } from '../src/transports/ready.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

describe('the start and ready contract', () => {
  it('parses the ready line it writes, one process or several', () => {
    const endpoint = 'http://127.0.0.1:41234/mcp';
    expect(parseReady(`mcp-db-server: ${readyLine(endpoint)}\n`)).toBe(endpoint);
    expect(parseReady(`mcp-db-server: warning: x\nmcp-db-server: ${readyLine(endpoint, 4)}\n`)).toBe(endpoint);
    expect(parseReady('mcp-db-server: starting\n')).toBeUndefined();
  });

  it('starts the bin and answers its endpoint; stop ends it', async () => {
    const server = await startServerProcess(['--url', 'sqlite::memory:', '--http', '--port', '0', '--workers', '1'], {
      bin: BIN,
    });
    expect(server.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.stderr()).toContain(readyLine(server.endpoint));
    await server.stop();
    expect(server.child.exitCode !== null || server.child.signalCode !== null).toBe(true);
  });

  it("rejects with the server's words when it exits before it is ready", async () => {
    const failed = startServerProcess(['--url', 'nosuch:thing', '--http', '--port', '0', '--workers', '1'], {
      bin: BIN,
    });
    await expect(failed).rejects.toBeInstanceOf(ServerStartError);
    await expect(failed).rejects.toMatchObject({ code: 'server_start', stderr: expect.stringContaining('nosuch') });
  });
});
