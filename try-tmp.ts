import { loadProgram, referenceWins } from './tests/plugins/providers/reference/load-program.js';
const mod = await import('./plugins/providers/reference/families/' + process.argv[2] + '.js');
const fam = Object.values(mod).find((v: any) => v && typeof v === 'object' && 'program' in v) as any;
for (const d of [1, 5, 10]) {
  const make = loadProgram(fam.program(d));
  const e = make();
  const t0 = performance.now();
  const r = e.reset(7);
  console.log('reset ms', (performance.now() - t0).toFixed(2));
  console.log(r[0]); console.log('SOL', e.solution?.(), '| HINT', e.hint());
  let wins = 0; for (let s = 0; s < 30; s++) wins += referenceWins(make, s).won ? 1 : 0;
  console.log('ref wins', wins, '/30', e.step('1'), e.step('x'));
}
