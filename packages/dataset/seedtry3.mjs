import { seedInWorker } from './dist/index.js';
const r = await seedInWorker({ url: process.argv[2], scale: Number(process.argv[3]), seed: 42, indexes: 'optimized', force: true }, { phase: (p) => console.error('..', p) });
console.log(JSON.stringify({ seconds: r.seconds, ok: r.checks.ok, rates: r.tables.map((t) => `${t.name}:${(t.rows / t.seconds).toFixed(0)}/s`) }));
