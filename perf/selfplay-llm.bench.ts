/**
 * The harness's own time around an LLM designer, per round of 16 environments: extracting the
 * program from a reply (prose, several blocks, no fence), building a design prompt from a full
 * memory of 200 records, and R-Zero's repetition penalty over the round's 16 tasks (and over 64,
 * a large round). All should be negligible next to a model call (hundreds of ms).
 * Run: node --no-node-snapshot --import tsx perf/selfplay-llm.bench.ts
 */
import { readFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { extractProgram } from '../core/roles/code-extraction.js';
import { designUserPrompt } from '../core/roles/prompts/designer.js';
import { repetitionPenalties } from '../core/selfplay/repetition-penalty.js';
import type { EnvironmentRecord } from '../core/types.js';
import { benchRows, publish } from './publish.js';

const reply = (name: string): string => readFileSync(new URL(`../tests/fixtures/llm/${name}.md`, import.meta.url), 'utf8');
const replies = ['single-answer', 'multi-turn-two-blocks', 'no-fence'].map(reply);
const memory: EnvironmentRecord[] = Array.from({ length: 200 }, (_, i) => ({
  id: `r${i >> 4}-e${i & 15}`, round: i >> 4, valid: i % 5 !== 0, solveRate: (i % 11) / 10, regret: (i % 7) / 10,
  task: `Task ${i}: compute ${i * 7} times ${i + 13} and put the result in \\boxed{}.`, source: replies[i % 3]!,
}));
const tasks = (n: number): string[] => Array.from({ length: n }, (_, i) => `Compute ${10 + i} times ${97 - i}. Put the result in \\boxed{}. ${i % 3 ? 'Then add one.' : ''}`);
const round16 = tasks(16);
const round64 = tasks(64);

const bench = new Bench({ name: 'LLM designer: harness time per step', time: 1000, warmupTime: 200 });
let i = 0;
bench.add('extract the program from a reply', () => void extractProgram(replies[i++ % 3]!, 'python'));
bench.add('design prompt from a memory of 200 records', () => void designUserPrompt({ index: 0, count: 16, language: 'python', memory, recentSolveRates: [0.3, 0.5], kind: 'multi-turn' }));
bench.add('repetition penalty, 16 tasks', () => void repetitionPenalties(round16));
bench.add('repetition penalty, 64 tasks', () => void repetitionPenalties(round64));

await bench.run();
publish(import.meta.url, {
  about: "The harness's own time around an LLM designer, per round of 16 environments: extracting the program from a reply, building a design prompt from a memory of 200 records, R-Zero's repetition penalty over 16 and 64 tasks. All should be negligible next to a model call (hundreds of ms).",
  tables: [{ caption: bench.name, rows: benchRows(bench) }],
});
