import { parentPort } from 'node:worker_threads';
import { loadModule, parseSync } from 'libpg-query';
import { type Parsed, summarize, unparsed } from './parse.js';

/** The parser thread (see ParserThread): a statement in, its summary out. */
await loadModule();
parentPort!.on('message', ({ id, text }: { id: number; text: string }) => {
  let parsed: Parsed;
  try {
    parsed = summarize(parseSync(text));
  } catch (error) {
    parsed = unparsed(error instanceof Error ? error.message : String(error));
  }
  parentPort!.postMessage({ id, parsed });
});
