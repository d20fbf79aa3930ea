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
  return deeperThan(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), max);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** [ { ] } */
const BRACKETS = [0x5b, 0x7b, 0x5d, 0x7d];

/**
 * Whether `bytes` opens more than `max` brackets at once, outside strings. Native searches find
 * the next quote and the next of each bracket; only those bytes are looked at. A byte loop over
 * a 3.4 MB body of numbers (a large filter, which passes the count above) took the event loop
 * several milliseconds.
 */
function deeperThan(bytes: Buffer, max: number): boolean {
  let at = 0;
  let depth = 0;
  const find = (byte: number) => {
    const i = bytes.indexOf(byte, at);
    return i === -1 ? Number.POSITIVE_INFINITY : i;
  };
  const next = BRACKETS.map(find);
  let quote = find(QUOTE);
  for (;;) {
    const bracket = Math.min(...next);
    if (quote < bracket) {
      // to the closing quote: one after an even run of backslashes (none escapes it)
      let end = quote;
      do {
        end = bytes.indexOf(QUOTE, end + 1);
        if (end === -1) return false; // an open string: the parser says so
      } while (escapedQuote(bytes, end));
      at = end + 1;
      quote = find(QUOTE);
      for (let k = 0; k < next.length; k++) if (next[k]! < at) next[k] = find(BRACKETS[k]!);
      continue;
    }
    if (bracket === Number.POSITIVE_INFINITY) return false;
    const kind = next.indexOf(bracket);
    if (kind < 2 && ++depth > max) return true;
    if (kind >= 2) depth--;
    at = bracket + 1;
    next[kind] = find(BRACKETS[kind]!);
  }
}

/** Whether the quote at `end` is escaped: an odd run of backslashes before it. */
function escapedQuote(bytes: Buffer, end: number): boolean {
  let run = 0;
  while (bytes[end - 1 - run] === BACKSLASH) run++;
  return run % 2 === 1;
}
