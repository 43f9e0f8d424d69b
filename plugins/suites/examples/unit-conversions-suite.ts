/**
 * A worked example of a suite plugin of your own. Load it by listing it under `plugins` in
 * spade.config.ts, then name its id among the suites:
 *   plugins: ['./plugins/suites/examples/unit-conversions-suite.ts'], suites: ['unit-conversions']
 *
 * A suite plugin is a module whose default export is `definePlugin({ kind: 'suite', ... })`.
 * `create(argument, options)` gets what follows the id (`unit-conversions:ARG`, undefined here)
 * and the suite's `suiteOptions` entry, and returns a Suite: a pool of tasks, each an
 * environment program and the seed of its reset(). `defineStaticSuite` makes one from a loader
 * (called once per data folder; `limit` and counting malformed records are done for you), and
 * `answerProgram` turns a question with one reference answer into a program that reads the
 * agent's \boxed{} answer and scores it. Outside this repository, import all three from
 * 'spade-bench'.
 *
 * This one needs no data file: five unit conversions, written here.
 */
import { definePlugin } from '../../../core/config/plugin.js';
import { defineStaticSuite } from '../../../benchmarks/static-suite.js';
import { answerProgram } from '../../../benchmarks/answer-program.js';

const CONVERSIONS = [
  { question: 'How many minutes are there in 3.5 hours?', answer: '210' },
  { question: 'A recipe needs 2.5 kilograms of flour. How many grams is that?', answer: '2500' },
  { question: 'How many centimetres are there in 4.2 metres?', answer: '420' },
  { question: 'A film lasts 7,200 seconds. How many hours is that?', answer: '2' },
  { question: 'How many millilitres are there in 0.75 litres?', answer: '750' },
];

export default definePlugin({
  kind: 'suite',
  id: 'unit-conversions',
  description: 'Example plugin: five unit conversions, each a single-answer question with a numeric checker (no data file, no network).',
  create() {
    return defineStaticSuite({
      id: 'unit-conversions',
      description: 'Five unit conversions (an example suite plugin).',
      language: 'javascript',
      // `dataDir` is where a suite that downloads its data keeps it; this one has none to read.
      async load() {
        const tasks = CONVERSIONS.map(({ question, answer }, index) => ({
          program: answerProgram({
            id: `unit-conversions/${index}`,
            question,
            answer,
            checker: 'numeric',
            family: 'unit-conversions',
            origin: `unit-conversions-suite.ts#${index}`,
          }),
          seed: index,
        }));
        return { tasks, skipped: 0 };
      },
    });
  },
});
