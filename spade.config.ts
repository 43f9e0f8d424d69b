// The configuration `npx spade-bench` uses in this repository: the embedded offline default.
// Every key is optional; `spade-bench run --help` lists the flags that override them.
// A type-only import: loading this file then compiles it alone, not the package's sources.
import type { UserConfig } from './index.js';

export default ({
  designer: 'reference', // the offline reference policy; or a provider id, e.g. 'openai:gpt-4.1-mini'
  agent: 'reference',
  sandbox: 'isolated-vm',
  suites: ['spade', 'procedural'], // 'spade' is the self-play pool
  seed: 1,
  attempts: 4, // plays of each environment, in every pool
  environmentsInFlight: 8,
  selfplay: { rounds: 3, envsPerRound: 16, reward: 'spade' },
}) satisfies UserConfig;
