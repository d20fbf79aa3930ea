// Loaded into a server process with `node --import` (filter-flood.mjs does): every 250 ms it writes
// the event loop's delay over that interval to stderr, so a bench can read the server's own stalls.
//
//   loop-delay: max 12.3 ms, p99 4.1 ms
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
setInterval(() => {
  const inMs = (/** @type {number} */ ns) => (ns / 1e6).toFixed(1);
  process.stderr.write(`loop-delay: max ${inMs(histogram.max)} ms, p99 ${inMs(histogram.percentile(99))} ms\n`);
  histogram.reset();
}, 250).unref();
