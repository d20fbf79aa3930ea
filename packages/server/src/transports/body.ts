import type { IncomingMessage } from 'node:http';

/**
 * JSON nesting a request may have. Ours nest far less (a filter at most 32 groups deep, about 70
 * levels in JSON form); parsing a 100,000-deep body took ~22 MB of heap, so such bodies are refused
 * before any parser sees them.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Collects a body up to `limit` bytes; `complete` is false when it was longer (reading stops there).
 * `admit`, when given, sees each chunk's size before it is kept: false stops reading and drops
 * what was kept (its caller answers the request), and `done` is not called. The returned
 * function does the same from outside.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  done: (chunks: Buffer[], complete: boolean) => void,
  admit?: (bytes: number) => boolean,
): () => void {
  let chunks: Buffer[] = [];
  let size = 0;
  const stop = () => {
    req.off('data', onData).off('end', onEnd);
    chunks = [];
  };
  const onData = (chunk: Buffer) => {
    if (admit && !admit(chunk.length)) return stop();
    chunks.push(chunk);
    size += chunk.length;
    if (size > limit) {
      req.off('data', onData).off('end', onEnd).pause();
      done(chunks, false);
    }
  };
  const onEnd = () => done(chunks, true);
  req.on('data', onData).on('end', onEnd);
  return stop;
}

/** The request again, its body served from bytes already read (the SDK's Node adapter iterates it). */
export function replay(req: IncomingMessage, chunks: readonly Buffer[]): IncomingMessage {
  const copy = {
    method: req.method,
    url: req.url,
    headers: req.headers,
    [Symbol.asyncIterator]: async function* () {
      yield* chunks;
    },
  };
  return copy as unknown as IncomingMessage;
}

const OPENING = [0x5b, 0x7b]; // [ {

/**
 * Whether JSON text opens more than `max` arrays and objects at once. Brackets inside strings do
 * not count; invalid JSON is left to the parser. UTF-8 continuation bytes are never ASCII, so
 * the bytes are scanned without decoding.
 */
export function nestsDeeper(chunks: readonly Buffer[], max: number): boolean {
  // No more than `max` brackets opened in all cannot nest deeper: counted natively, a tool call's
  // handful ends here without the byte-by-byte scan below.
  let opened = 0;
  for (const chunk of chunks) {
    for (const bracket of OPENING) {
      for (let i = chunk.indexOf(bracket); i !== -1 && opened <= max; i = chunk.indexOf(bracket, i + 1)) opened++;
    }
  }
  if (opened <= max) return false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c)
          escaped = true; // \
        else if (b === 0x22) inString = false; // "
      } else if (b === 0x22) inString = true;
      else if (b === 0x5b || b === 0x7b) {
        if (++depth > max) return true; // [ {
      } else if (b === 0x5d || b === 0x7d) depth--; // ] }
    }
  }
  return false;
}
