import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Server } from 'node:net';
import { liveTargets } from '@mcp-db-bench/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/mcp.js';

/**
 * The server's PostgreSQL session settings (read-only, UTC, statement timeout) travel in the
 * `options` startup parameter, which a pooler may drop. The server checks every new session and
 * refuses one without them, so it never claims "read-only" over a session that can write. The
 * settings and the check itself are the engines' (their postgres-session.test.ts); here, the
 * server started through a pooler that drops them.
 */

const target = liveTargets().find((t) => t.engine === 'postgres');

describe.runIf(target)('PostgreSQL session settings', () => {
  let proxy: Server;
  let proxyUrl = '';

  beforeAll(async () => {
    const upstream = new URL(target!.baseUrl);
    proxy = dropOptionsProxy(upstream.hostname, Number(upstream.port || 5432));
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const url = new URL(target!.baseUrl);
    url.port = String((proxy.address() as AddressInfo).port);
    proxyUrl = url.toString();
  });
  afterAll(() => {
    proxy?.close();
  });

  it('the server will not start through a pooler that drops the options parameter', async () => {
    // the same database through the proxy connects, but its sessions lack the settings
    const plain = new pg.Client({ connectionString: proxyUrl, options: '-c default_transaction_read_only=on' });
    await plain.connect();
    const { rows } = await plain.query<{ v: string }>('select current_setting($1) as v', [
      'default_transaction_read_only',
    ]);
    await plain.end();
    expect(rows).toEqual([{ v: 'off' }]);

    const server = spawn(process.execPath, [BIN, '--url', proxyUrl], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    // a server that started anyway would serve on stdin until killed
    const kill = setTimeout(() => server.kill('SIGKILL'), 15_000);
    const [code, signal] = (await once(server, 'exit')) as [number | null, string | null];
    clearTimeout(kill);
    expect(signal).toBeNull();
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/did not apply this server's session settings \(.*default_transaction_read_only = off/);
  });
});

/**
 * A TCP proxy to PostgreSQL that removes `options` from each client's startup message, as
 * PgBouncer does with `ignore_startup_parameters = options`. Everything else passes unchanged.
 */
function dropOptionsProxy(host: string, port: number): Server {
  return createServer((client) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < 4 || head.length < head.readInt32BE(0)) return;
      client.off('data', onData);
      client.pause();
      const length = head.readInt32BE(0);
      const upstream = createConnection({ host, port }, () => {
        upstream.write(withoutOptions(head.subarray(0, length)));
        upstream.write(head.subarray(length));
        client.pipe(upstream).pipe(client);
        client.resume();
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    };
    client.on('data', onData);
  });
}

/** A startup message (length, protocol, then name/value C strings) without its `options` pair. */
function withoutOptions(message: Buffer): Buffer {
  const parts = message
    .subarray(8, message.length - 1)
    .toString('utf8')
    .split('\0');
  const kept: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) if (parts[i] !== 'options') kept.push(parts[i]!, parts[i + 1]!);
  const body = Buffer.from(`${kept.join('\0')}\0\0`, 'utf8');
  const out = Buffer.alloc(8 + body.length);
  out.writeInt32BE(out.length, 0);
  message.copy(out, 4, 4, 8);
  body.copy(out, 8);
  return out;
}
