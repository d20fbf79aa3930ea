import type { Socket } from 'node:net';
import type pg from 'pg';
import { answerTooLarge, interpose, readerAdded } from '../answer-bytes.js';
import { cancelRequest } from './cancel.js';

const DATA_ROW = 0x44; // 'D'
const READY_FOR_QUERY = 0x5a; // 'Z'
/** A message's type byte and its length, which counts itself but not the type. */
const HEADER = 5;

/**
 * Counts the bytes of the DataRow messages a connection receives for each statement, from the
 * protocol's framing alone: a statement's answer ends with its ReadyForQuery (one per Sync, so
 * each read of a pipelined connection is counted apart). A DataRow is judged by its header, so a
 * row larger than the budget is refused before a byte of it is buffered: pg would buffer a whole
 * message, then fail to make a string of a value past V8's limit, outside any call.
 */
export class RowBytes {
  readonly #header = Buffer.alloc(HEADER);
  /** bytes of a header split across chunks so far */
  #partial = 0;
  /** bytes of the current message's body still to come */
  #body = 0;
  /** bytes of DataRow messages since the last ReadyForQuery */
  #rows = 0;

  constructor(readonly budget: number) {}

  /** The budget's error once the statement being answered passes it, else undefined. */
  see(chunk: Buffer): ReturnType<typeof answerTooLarge> | undefined {
    let at = 0;
    while (at < chunk.length) {
      if (this.#body > 0) {
        const skipped = Math.min(this.#body, chunk.length - at);
        this.#body -= skipped;
        at += skipped;
        continue;
      }
      let type: number;
      let length: number;
      if (this.#partial === 0 && chunk.length - at >= HEADER) {
        type = chunk[at]!;
        length = chunk.readUInt32BE(at + 1);
        at += HEADER;
      } else {
        const taken = chunk.copy(this.#header, this.#partial, at, Math.min(chunk.length, at + HEADER - this.#partial));
        this.#partial += taken;
        at += taken;
        if (this.#partial < HEADER) break;
        this.#partial = 0;
        type = this.#header[0]!;
        length = this.#header.readUInt32BE(1);
      }
      this.#body = length - 4;
      if (type === DATA_ROW) {
        this.#rows += HEADER + this.#body;
        if (this.#rows > this.budget) return answerTooLarge(this.budget);
      } else if (type === READY_FOR_QUERY) this.#rows = 0;
    }
    return undefined;
  }
}

/**
 * pg's Client, with the rows each statement receives counted against `budget` bytes (RowBytes)
 * from the connection's first byte, and whatever pg throws while it reads them caught
 * (`interpose`). Past the budget the statement is cancelled in the database (a cancel request:
 * the backend may still be computing rows) and the connection destroyed: the statements on it
 * fail with the budget's error, and the pool discards it.
 */
export function meteredClient(Client: typeof pg.Client, budget: number): typeof pg.Client {
  return class MeteredClient extends Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      const connection = (this as unknown as { connection: { attachListeners(stream: Socket): void } }).connection;
      const attach = connection.attachListeners.bind(connection);
      // pg attaches its reader to the socket, or to the TLS socket once the server agrees to TLS.
      connection.attachListeners = (stream) => {
        const reader = readerAdded(stream, () => attach(stream));
        const rows = Number.isFinite(budget) ? new RowBytes(budget) : undefined;
        interpose(
          stream,
          reader,
          (chunk) => rows?.see(chunk),
          () => {
            // before the session started there is nothing to cancel (and no key to cancel it with)
            if ((this as unknown as { processID?: number }).processID) void cancelRequest(this);
          },
        );
      };
    }
  };
}
