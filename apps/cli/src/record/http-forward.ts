/**
 * The record proxy's forwarding: a host's request as the target gets it (its headers but one
 * hop's, its path on the target's origin), and the target's answer back to the host as it streams.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';

/** Headers that belong to one hop, not to the request: the proxy's own connection sets them. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);
/** The most of an answer kept to read its messages from; the bytes past it are passed on and counted. */
const KEEP_BYTES = 4 * 1024 * 1024;

/** The target's answer as it went by: the first KEEP_BYTES of its body kept for the recorder, all of it counted. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  kept: Buffer[];
  /** the body's size */
  bytes: number;
}

/**
 * An undici handler that passes the answer on chunk by chunk, as the server wrote it (an SSE
 * event reaches the host before the stream ends), keeping what the recorder reads.
 */
export function relay(
  res: ServerResponse,
  on: { end(answer: Answer): void; error(error: Error): void },
): Dispatcher.DispatchHandler {
  const answer: Answer = { status: 0, headers: {}, kept: [], bytes: 0 };
  let keptBytes = 0;
  return {
    // undici requires it; nothing to do before the request goes out
    onRequestStart() {},
    onResponseStart(_controller, statusCode, headers) {
      answer.status = statusCode;
      answer.headers = headers;
      res.writeHead(statusCode, responseHeaders(headers));
    },
    onResponseData(_controller, chunk) {
      answer.bytes += chunk.length;
      if (keptBytes < KEEP_BYTES) {
        answer.kept.push(chunk);
        keptBytes += chunk.length;
      }
      res.write(chunk);
    },
    onResponseEnd() {
      res.end();
      on.end(answer);
    },
    onResponseError(_controller, error) {
      on.error(error);
    },
  };
}

/** The request failed before or during its answer: 502 if nothing went out yet, else the host's stream is cut. */
export function badGateway(res: ServerResponse, target: URL, error: Error): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(502, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ error: `mcp-db-bench record: the server at ${target.origin} did not answer: ${error.message}` }),
  );
}

/**
 * The path asked for, on the target: the request line's path as it came; an absolute form
 * (`GET http://elsewhere/x`) keeps only its path, so the proxy never reaches another origin.
 */
export function pathOf(url: string | undefined, target: URL): string {
  if (url?.startsWith('/')) return url;
  const { pathname, search } = new URL(url ?? '/', target);
  return pathname + search;
}

/** The host's headers to pass on (its raw list, names and repeats as sent, one hop's dropped), and its session id. */
export function requestHeaders(raw: readonly string[]): { headers: string[]; sessionId: string | undefined } {
  const headers: string[] = [];
  let sessionId: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP.has(name)) continue;
    if (name === 'mcp-session-id') sessionId ??= raw[i + 1];
    headers.push(raw[i]!, raw[i + 1]!);
  }
  return { headers, sessionId };
}

/** The server's headers to pass back, one hop's dropped. */
function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP.has(name)) out[name] = value;
  }
  return out;
}
