/**
 * Pool metrics at scale: goal diversity (Vendi over task texts and program structure, distinct-n,
 * NCD) and the equal-size bootstrap comparison, on a static suite of 10,000 single-answer tasks
 * (the reference families at difficulties 1-10, 50 distinct programs), and on GSM8K's 1,319 test
 * questions as a run sees them (each task's first observation, its program from the dataset's
 * template): each part of the pool's diversity alone, then the whole. They run once after the
 * suites, so their time adds to every large run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { answerProgram, INSTRUCTIONS } from '../benchmarks/answer-program.js';
import { meanPairwiseNcd } from '../core/metrics/compression.js';
import { prepareFeatures, prepareIdBags, preparedVendi } from '../core/metrics/feature-vendi.js';
import { programFeatures, textFeatureIds, textFeatures } from '../core/metrics/diversity.js';
import { diversityMetrics, type PreparedDiversity } from '../core/metrics/diversity.js';
import { equalSizeDiversity } from '../core/metrics/equal-size.js';
import { FAMILIES } from '../plugins/reference/families/index.js';
import { loadProgram, type PlainEnvironment } from '../tests/plugins/reference/load-program.js';
import { benchRows, publish } from './publish.js';

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

const gsm8k = new URL('../../shared/datasets/gsm8k/test.jsonl', import.meta.url);
if (existsSync(gsm8k)) {
  const records = readFileSync(gsm8k, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { question: string; answer: string });
  const questions = records.map((r, i) => answerProgram({ id: `gsm8k/test/${i}`, question: r.question, answer: r.answer.slice(r.answer.lastIndexOf('####') + 4).trim(), checker: 'numeric', family: 'gsm8k', origin: `test.jsonl:${i + 1}` }));
  // What reset() shows: the question, then the instruction.
  const observations = records.map((r) => `${r.question}\n\n${INSTRUCTIONS.numeric}`);
  const n = questions.length;
  bench.add(`GSM8K ${n}: text features (ids) and Vendi`, () => {
    const features = textFeatureIds(observations);
    void preparedVendi(prepareIdBags(features.bags, features.dimension));
  });
  // The yardstick: the same scores from a string per n-gram, as the features were made before.
  bench.add(`GSM8K ${n}: text features as strings and Vendi (former)`, () => void preparedVendi(prepareFeatures(observations.map(textFeatures))));
  bench.add(`GSM8K ${n}: NCD (sampled pairs)`, () => void meanPairwiseNcd(observations));
  bench.add(`GSM8K ${n}: structure features and Vendi`, () => void preparedVendi(prepareFeatures(questions.map(programFeatures))));
  bench.add(`GSM8K ${n}: diversityMetrics (all of the above, distinct-n)`, () => void diversityMetrics(observations, questions));
  bench.add(`GSM8K ${n}: equalSizeDiversity (30 resamples of 64)`, () => void equalSizeDiversity([{ id: 'gsm8k', tasks: observations, programs: questions }]));
  // As a run measures it: from the features the pool's own metrics prepared.
  let prepared: PreparedDiversity | undefined;
  diversityMetrics(observations, questions, (p) => (prepared = p));
  bench.add(`GSM8K ${n}: equalSizeDiversity from the pool's prepared features (as a run)`, () => void equalSizeDiversity([{ id: 'gsm8k', tasks: observations, prepared }]));
}
await bench.run();
publish(import.meta.url, {
  about: `Pool metrics at scale, warm: goal diversity (Vendi over task texts and program structure, distinct-n, NCD) and the equal-size comparison, on ${SIZE} single-answer tasks of the reference families and on GSM8K's test questions as a run sees them.`,
  tables: [{ rows: benchRows(bench) }],
  notes: existsSync(gsm8k) ? [] : [`GSM8K rows skipped: ${gsm8k.pathname} not found`],
});
