/**
 * What one HTTP request and its answer tell the recorder: a POST's exchange (its messages, sizes
 * and status), a GET stream's count of messages, a DELETE's end of the session.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Answer } from './http-forward.js';
import type { Recorder } from './recorder.js';

/** A host's request, once its body is read. */
export interface Sent {
  /** the session: the server's id, else the host's connection */
  key: string;
  method: string;
  sessionId: string | undefined;
  body: Buffer;
  startedAt: number;
}

/** The exchange to the recorder, once the answer has ended. */
export function recordAnswer(recorder: Recorder, sent: Sent, answer: Answer, endedAt: number) {
  const { key, method, sessionId, body, startedAt } = sent;
  if (method === 'DELETE' && sessionId !== undefined) return recorder.end(key, endedAt);
  if (method !== 'GET' && method !== 'POST') return;
  const { status, kept } = answer;
  const type = header(answer.headers, 'content-type') ?? '';
  const sse = type.startsWith('text/event-stream');
  const text = (kept.length === 1 ? kept[0]! : Buffer.concat(kept)).toString('utf8');
  if (method === 'GET') {
    const messages = sse ? sseMessages(text).length : 0;
    return recorder.stream({ key, startedAt, endedAt, status, messages });
  }
  const issued = header(answer.headers, 'mcp-session-id');
  recorder.exchange({
    key,
    sent: parseJson(body),
    received: sse ? sseMessages(text) : parseText(text),
    startedAt,
    endedAt,
    bytes: { request: body.length, response: answer.bytes },
    status,
    issuedSession: sessionId === undefined ? issued : undefined,
  });
}

/** A POST whose answer never came (the server unreachable or the stream broken), as a failed exchange. */
export function recordFailure(recorder: Recorder, sent: Sent, endedAt: number): void {
  recorder.exchange({
    key: sent.key,
    sent: parseJson(sent.body),
    received: [],
    startedAt: sent.startedAt,
    endedAt,
    bytes: { request: sent.body.length, response: 0 },
    failed: true,
  });
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A body's messages: one object, or a batch's array; nothing when it is not JSON. */
function parseJson(bytes: Buffer): unknown[] {
  return bytes.length === 0 ? [] : parseText(bytes.toString('utf8'));
}

function parseText(text: string): unknown[] {
  if (text.length === 0) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
}

/**
 * The JSON messages of an SSE stream's `data:` fields (an event's lines joined, as the standard
 * says; lines end with LF or CRLF, a blank line ends an event). One pass with indexOf: this runs
 * on every answer, and splitting the whole text with regular expressions cost more than the parse.
 */
export function sseMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  let data: string | undefined;
  const dispatch = () => {
    if (data) {
      try {
        messages.push(JSON.parse(data));
      } catch {
        // not JSON: an event the recorder has no use for
      }
    }
    data = undefined;
  };
  for (let at = 0; at <= text.length; ) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const next = end + 1;
    if (end > at && text.charCodeAt(end - 1) === 13 && next <= text.length) end--; // CRLF
    if (end === at) dispatch();
    else if (text.startsWith('data:', at)) {
      const value = text.slice(at + (text.charCodeAt(at + 5) === 32 ? 6 : 5), end);
      data = data === undefined ? value : `${data}\n${value}`;
    }
    at = next;
  }
  dispatch();
  return messages;
}
