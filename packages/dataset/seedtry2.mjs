import v8 from 'node:v8'; v8.setFlagsFromString('--max-semi-space-size=4');
const { seed } = await import("./dist/index.js");
const url = process.argv[2]; const scale = Number(process.argv[3] ?? 0.01);
const t = Date.now();
const r = await seed({ url, scale, seed: 42, indexes: 'optimized', force: true, on: { phase: (p) => console.error('..', p) } });
console.log(JSON.stringify({ ...r, checks: r.checks.ok, tables: r.tables.map(t => `${t.name}:${t.rows}:${(t.rows/t.seconds).toFixed(0)}/s`) }));
