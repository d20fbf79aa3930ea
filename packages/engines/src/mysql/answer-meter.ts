import type { Socket } from 'node:net';
import { answerTooLarge, interpose } from '../answer-bytes.js';

/**
 * Counts the bytes a mysql2 connection reads for each command against `budget`, and catches what
 * mysql2 throws while it reads them (`interpose`). mysql2 writes one command and reads its whole
 * answer before it writes the next, so the bytes read since the socket last wrote are that
 * answer's: the count needs no framing (a row past 16 MiB spans several packets anyway). Past the
 * budget the socket is destroyed with the budget's error: mysql2 fails the command with it and
 * drops the connection from its pool, and the server, which is writing the rows by then, stops
 * the statement at its next write to a client that has gone.
 */
export function meterAnswers(connection: { stream: Socket }, budget: number): void {
  const { stream } = connection;
  const readers = stream.listeners('data');
  if (readers.length !== 1) throw new Error(`expected mysql2 to read its socket once, found ${readers.length} readers`);
  let written = -1;
  let read = 0;
  interpose(stream, readers[0] as (chunk: Buffer) => void, (chunk) => {
    if (stream.bytesWritten !== written) {
      written = stream.bytesWritten;
      read = 0;
    }
    read += chunk.length;
    return read > budget ? answerTooLarge(budget) : undefined;
  });
}
