/**
 * Pool metrics at scale: goal diversity (Vendi over task texts and program structure, distinct-n,
 * NCD) and the equal-size bootstrap comparison, on a static suite of 10,000 single-answer tasks
 * (the reference families at difficulties 1-10, 50 distinct programs). They run once after the
 * suites, so their time adds to every large run.
 */
import { Bench } from 'tinybench';
import { diversityMetrics } from '../core/metrics/diversity.js';
import { equalSizeDiversity } from '../core/metrics/equal-size.js';
import { FAMILIES } from '../plugins/reference/families/index.js';
import { loadProgram, type PlainEnvironment } from '../tests/plugins/reference/load-program.js';

const SIZE = 10_000;
const families = FAMILIES.filter((f) => !f.multiTurn);
const made = new Map<string, { source: string; make: () => PlainEnvironment }>();
const tasks: string[] = [];
const programs: { source: string; language: 'javascript' }[] = [];
for (let i = 0; i < SIZE; i++) {
  const family = families[i % families.length]!;
  const difficulty = 1 + (Math.floor(i / families.length) % 10);
  const key = `${family.name}-${difficulty}`;
  let program = made.get(key);
  if (!program) {
    const source = family.program(difficulty);
    made.set(key, (program = { source, make: loadProgram(source) }));
  }
  tasks.push(program.make().reset(1000 + i)[0]);
  programs.push({ source: program.source, language: 'javascript' });
}

const bench = new Bench({ iterations: 3, warmupIterations: 0, time: 0 });
bench.add(`diversityMetrics (${SIZE} tasks, ${made.size} programs)`, () => {
  diversityMetrics(tasks, programs);
});
bench.add(`equalSizeDiversity (${SIZE} tasks, 30 resamples of 64)`, () => {
  equalSizeDiversity([{ id: 'pool', tasks, programs }]);
});
await bench.run();
console.table(bench.table());
