import { seed } from './dist/index.js';
let peak = 0; const timer = setInterval(() => { const m = process.memoryUsage(); if (m.rss > peak) { peak = m.rss; console.error('rss', (m.rss/1e6).toFixed(0), 'heap', (m.heapUsed/1e6).toFixed(0), 'ext', (m.external/1e6).toFixed(0), 'ab', (m.arrayBuffers/1e6).toFixed(0)); } }, 200);
await seed({ url: process.argv[2], scale: 1, seed: 42, indexes: 'optimized', force: true, on: { phase: (p) => console.error('..', p), tableStart: (t) => console.error('>>', t) } });
clearInterval(timer);
