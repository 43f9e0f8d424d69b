import { loadProgram, referenceWins } from './tests/plugins/providers/reference/load-program.js';
import { FAMILIES } from './plugins/providers/reference/families/index.js';
for (const fam of FAMILIES.filter(f => f.multiTurn)) for (const d of [5, 10]) {
  const make = loadProgram(fam.program(d));
  const e = make();
  console.log(e.reset(11)[0]); console.log('HINT', e.hint());
  let turns = 0, wins = 0; for (let s = 0; s < 20; s++) { const r = referenceWins(make, s); turns += r.turns; wins += r.won ? 1 : 0; }
  console.log(fam.name, d, 'wins', wins, 'mean turns', turns / 20);
}
