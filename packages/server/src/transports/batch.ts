import type { IncomingMessage, ServerResponse } from 'node:http';
import { inExchange } from '@mcp-db-bench/engines';
import { toWebRequest } from '@modelcontextprotocol/node';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { replay } from './body.js';
import { isId, isObject } from './fast-path.js';
import { type Budget, rpcError, type TransportLimits } from './limits.js';

/** Whether JSON text is an array: its first byte that is not white space is `[`. */
export function isBatch(chunks: readonly Buffer[]): boolean {
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b === 0x5b;
    }
  }
  return false;
}

export interface BatchOptions {
  limits: TransportLimits;
  /** the bytes held for requests in flight, shared with the bodies being read */
  budget: Budget;
  maxRequestBodySize: number;
  /** hands a request to the SDK as it is */
  toSdk: (req: IncomingMessage, res: ServerResponse) => void;
  onerror: (error: Error) => void;
}

/**
 * JSON-RPC batches (2025-03-26 allowed them; the SDK's legacy path serves them, up to 100
 * messages) bounded as one request: at most `maxBatch` messages, and answers of at most
 * `maxBatchBytes`, ready within `batchTimeoutMs`. A small request can otherwise ask for a large
 * answer: 100 `query` calls in 8.7 KB came back as 21 MB after 5 s of CPU. The SDK still
 * answers; its answer is gathered (its bytes held against the shared budget) and sent whole, or,
 * past a limit, the exchange is abandoned and every request in the batch gets the same error, so
 * a client never sees half a batch.
 */
export function batchPath(
  handler: McpHttpHandler,
  options: BatchOptions,
): (req: IncomingMessage, res: ServerResponse, chunks: Buffer[]) => void {
  const { limits, budget, maxRequestBodySize, toSdk, onerror } = options;
  const ranAnyway = 'so none is sent; its calls may have run (writes too)';
  const tooLarge = `Response too large: the answers to this batch pass ${limits.maxBatchBytes} bytes (--max-batch-bytes), ${ranAnyway}: send fewer calls per batch, or ask for fewer rows`;
  const tooSlow = `Request timeout: the answers to this batch took longer than ${limits.batchTimeoutMs} ms (--statement-timeout), ${ranAnyway}: send fewer calls per batch`;
  const busy = `Service Unavailable: the answers to this batch would pass the ${limits.maxBufferedBytes} bytes the server holds for requests in flight (--max-buffered-bytes), ${ranAnyway}: retry later`;

  const gather = async (req: IncomingMessage, res: ServerResponse, chunks: Buffer[], ids: (string | number)[]) => {
    const abort = new AbortController();
    let finished = false;
    let held = 0;
    res.once('close', () => {
      if (!finished) abort.abort();
      budget.give(held);
      held = 0;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      if (limits.batchTimeoutMs) timer = setTimeout(() => resolve(tooSlow), limits.batchTimeoutMs);
    });
    let parts: Uint8Array[] = [];
    let failure: string | undefined;
    let broken = false;
    try {
      const request = await toWebRequest(replay(req, chunks), undefined, { signal: abort.signal, maxRequestBodySize });
      const response = await Promise.race([inExchange(abort.signal, () => handler.fetch(request)), late]);
      if (typeof response === 'string') failure = response;
      else {
        const reader = response.body?.getReader();
        while (reader && failure === undefined) {
          const next = await Promise.race([reader.read(), late]);
          if (typeof next === 'string') failure = next;
          else if (next.done) break;
          else if (held + next.value.byteLength > limits.maxBatchBytes) failure = tooLarge;
          else if (!budget.take(next.value.byteLength, held + next.value.byteLength)) failure = busy;
          else {
            held += next.value.byteLength;
            parts.push(next.value);
          }
        }
        if (failure !== undefined) void reader?.cancel().catch(() => {});
        else {
          // Sent as the SDK's Node adapter sends it (chunked), only all at once.
          const headers: Record<string, string> = {};
          for (const [name, value] of response.headers) headers[name] = value;
          res.writeHead(response.status, headers);
          for (const part of parts) res.write(part);
          res.end();
        }
      }
    } catch (error) {
      onerror(error as Error);
      broken = true;
    } finally {
      finished = true;
      clearTimeout(timer);
    }
    if (failure === undefined && !broken) return;
    // Abandoned: the SDK tears the exchange down on abort; what was gathered goes now.
    abort.abort();
    parts = [];
    budget.give(held);
    held = 0;
    if (res.headersSent) return void res.destroy();
    const message = failure;
    const answer =
      message === undefined ? rpcError(-32603, 'Internal error') : ids.map((id) => rpcError(-32000, message, id));
    res.writeHead(broken ? 500 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  };

  return (req, res, chunks) => {
    let messages: unknown;
    try {
      messages = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return toSdk(replay(req, chunks), res);
    }
    if (!Array.isArray(messages)) return toSdk(replay(req, chunks), res);
    if (messages.length > limits.maxBatch) {
      const error = rpcError(
        -32600,
        `Invalid Request: a batch may hold at most ${limits.maxBatch} messages (--max-batch); this one has ${messages.length}`,
      );
      return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(error));
    }
    const ids = messages
      .filter((m) => isObject(m) && typeof m.method === 'string' && isId(m.id))
      .map((m) => m.id as string | number);
    // Notifications and responses only: the SDK answers 202 (or an error), nothing large.
    if (ids.length === 0) return toSdk(replay(req, chunks), res);
    void gather(req, res, chunks, ids);
  };
}
