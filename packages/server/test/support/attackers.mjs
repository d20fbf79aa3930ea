// Clients that hold a server's memory and connections on purpose, run as a process of its own
// (memory-bounds.test.ts) so that their writes do not stall the well-behaved client the test
// runs beside them. Loopback only.
//
// argv[2]: JSON { port, host, stalled, slowloris, declared, sent, durationMs, settleMs }
//   stalled    connections that send the headers of a body of `declared` bytes, then `sent`
//              bytes of it, then nothing
//   slowloris  connections that send a request line, then one header line a second
// Attackers the server cuts off come back a second later until `durationMs` has passed; then the
// script waits up to `settleMs` for the server to close the rest, closes any left itself, and
// prints one JSON line: every connection's end ({ kind, status, option, afterMs, quietMs }) and
// how many it had to close. afterMs counts from the connection being made, quietMs from the last
// byte written.
import { connect } from 'node:net';

const config = JSON.parse(process.argv[2]);
const started = performance.now();
const open = new Set();
const endings = [];
const body = Buffer.alloc(config.sent, 'a');
body.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{"table":"items","key":"');
const head = `POST /mcp HTTP/1.1\r\nHost: ${config.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${config.declared}\r\n\r\n`;
let attacking = true;

function attacker(kind, wave) {
  return new Promise((resolve) => {
    // Set once connected: 900 connections at once overflow the listen backlog, and a connection
    // may wait seconds for the kernel to retry its SYN before the server ever sees it.
    let opened = performance.now();
    let wrote = opened;
    const written = () => {
      wrote = performance.now();
    };
    const socket = connect(config.port, '127.0.0.1');
    open.add(socket);
    let text = '';
    let timer;
    socket.on('data', (d) => {
      if (text.length < 2048) text += d.toString('latin1');
    });
    socket.on('error', () => {}); // reset while we write: keep what was read
    socket.once('connect', () => {
      opened = wrote = performance.now();
      if (kind === 'stalled') {
        socket.write(head, written);
        // The first wave sends its bodies at once; later ones wait to see whether the server
        // refuses them on their headers, which saves writing gigabytes for nothing.
        if (wave === 0) socket.write(body, written);
        else timer = setTimeout(() => socket.write(body, written), 200);
        return;
      }
      socket.write(`POST /mcp HTTP/1.1\r\nHost: ${config.host}\r\n`);
      let n = 0;
      timer = setInterval(() => socket.write(`X-Slow-${n}: ${n++}\r\n`, written), 1_000);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      clearInterval(timer);
      open.delete(socket);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      const option = /\(--([a-z-]+)/.exec(text)?.[1];
      const now = performance.now();
      endings.push({
        kind,
        status: status === undefined ? null : Number(status),
        option: option ?? null,
        afterMs: Math.round(now - opened),
        quietMs: Math.round(now - wrote),
      });
      if (!attacking) return resolve();
      setTimeout(() => resolve(attacking ? attacker(kind, wave + 1) : undefined), 1_000);
    });
  });
}

const all = [
  ...Array.from({ length: config.slowloris }, () => attacker('slowloris', 0)),
  ...Array.from({ length: config.stalled }, () => attacker('stalled', 0)),
];
await new Promise((resolve) => setTimeout(resolve, config.durationMs - (performance.now() - started)));
attacking = false;
await Promise.race([Promise.all(all), new Promise((resolve) => setTimeout(resolve, config.settleMs))]);
const stragglers = open.size;
for (const socket of open) socket.destroy();
await Promise.all(all);
process.stdout.write(`${JSON.stringify({ endings, stragglers })}\n`);
