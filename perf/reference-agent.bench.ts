/**
 * The reference agent's own time on single-answer tasks (start + one reply), per family at
 * difficulty 5, and a whole single-turn episode in-process (reset + agent + step). The project
 * targets >= 2,000 episodes/s on single-turn suites, so agent time should stay well under 0.5 ms.
 * Run: node --no-node-snapshot --import tsx perf/reference-agent.bench.ts
 */
import { Bench } from 'tinybench';
import { createReferenceAgent } from '../plugins/reference/agent.js';
import { FAMILIES } from '../plugins/reference/families/index.js';
import { loadProgram } from '../tests/plugins/reference/load-program.js';
import { benchRows, publish } from './publish.js';

const agent = createReferenceAgent();
const TASKS = 64;

const bench = new Bench({ name: 'reference agent (single-answer, difficulty 5)', time: 1000, warmupTime: 200 });
for (const family of FAMILIES.filter((f) => !f.multiTurn)) {
  const source = family.program(5);
  const make = loadProgram(source);
  const observations = Array.from({ length: TASKS }, (_, seed) => make().reset(seed)[0]);
  const environment = { id: family.name, language: 'javascript' as const, source };
  let i = 0;
  bench.add(`agent reply: ${family.name}`, async () => {
    const observation = observations[i++ % TASKS]!;
    const episode = await agent.start({ environment, observation, seed: i, horizon: 1 });
    await episode.act(observation, 0);
  });
}
const mixed = FAMILIES.filter((f) => !f.multiTurn).map((f) => ({ source: f.program(5), make: loadProgram(f.program(5)) }));
let n = 0;
bench.add('whole episode in-process (reset + agent + step), mixed families', async () => {
  const { source, make } = mixed[n % mixed.length]!;
  const env = make();
  const [observation] = env.reset(n++);
  const episode = await agent.start({ environment: { id: 'e', language: 'javascript', source }, observation, seed: n, horizon: 1 });
  env.step((await episode.act(observation, 0)).reply);
});

await bench.run();
publish(import.meta.url, {
  about: "The reference agent's own time on single-answer tasks (start + one reply), per family at difficulty 5, and a whole single-turn episode in-process (reset + agent + step); agent time should stay well under 0.5 ms.",
  tables: [{ caption: bench.name, rows: benchRows(bench) }],
});
