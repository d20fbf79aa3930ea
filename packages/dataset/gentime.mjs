import { Dataset, TABLES, rowCounts, generateRows } from './dist/index.js';
const g = new Dataset({ seed: 42, counts: rowCounts(1) });
let total = 0;
for (const t of TABLES) { const t0 = performance.now(); let n = 0; generateRows(t, g, 1, g.count(t.name), () => n++); const s = (performance.now() - t0) / 1000; total += s; console.log(t.name, n, s.toFixed(2) + 's', (n / s).toFixed(0) + '/s'); }
console.log('total', total.toFixed(2));
