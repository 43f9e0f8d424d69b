import { loadProgram, agentWins } from './tests/plugins/providers/reference/load-program.js';
import { FAMILIES } from './plugins/providers/reference/families/index.js';
import { createReferenceAgent } from './plugins/providers/reference/agent.js';
const agent = createReferenceAgent({ budget: Number(process.argv[2] ?? 400) });
const N = 30;
const only = process.argv[3];
const tot: Record<string, number> = {};
for (const fam of FAMILIES.filter(f => !only || f.name === only)) {
  const row: string[] = [];
  for (const d of [1, 3, 5, 7, 10]) {
    const src = fam.program(d); const make = loadProgram(src);
    let w = 0, wh = 0;
    for (let s = 0; s < N; s++) { w += (await agentWins(agent, src, make, s, false)) ? 1 : 0; wh += (await agentWins(agent, src, make, s, true)) ? 1 : 0; }
    row.push(`d${d} ${(w / N).toFixed(2)}/${(wh / N).toFixed(2)}`);
    tot[`d${d}`] = (tot[`d${d}`] ?? 0) + w / N; tot[`h${d}`] = (tot[`h${d}`] ?? 0) + wh / N;
  }
  console.log(fam.name.padEnd(20), row.join('  '));
}
console.log(Object.entries(tot).map(([k, v]) => `${k} ${(v / (only ? 1 : FAMILIES.length)).toFixed(2)}`).join(' '));
