import { createProceduralSuite } from './benchmarks/procedural.js';
const s = createProceduralSuite();
const t = await s.tasks({});
console.log(t.length, t.slice(0, 10).map(x => x.program.id + ' ' + x.seed));
const byH: Record<number, number> = {}; for (const x of t) byH[x.program.meta!.horizon!] = (byH[x.program.meta!.horizon!] ?? 0) + 1; console.log(byH);
