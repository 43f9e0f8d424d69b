// Self-play with an LLM designer behind a local OpenAI-protocol server and Python environments
// gated in the pyodide sandbox: what the design-slot tests share.
import { readFileSync } from 'node:fs';
import { createLLMDesigner } from '../../core/roles/llm-designer.js';
import type { SelfPlayOptions } from '../../core/selfplay/selfplay.js';
import type { SandboxSet } from '../../core/run/evaluate.js';
import type { Agent, Provider } from '../../core/types.js';

/** A designer's reply kept in tests/fixtures/llm/NAME.md. */
export const llmFixture = (name: string): string => readFileSync(new URL(`../fixtures/llm/${name}.md`, import.meta.url), 'utf8');

/** An agent that always answers 0 (loses every task of these fixtures). */
export const zeroAgent: Agent = { id: 'zero', label: 'zero', kind: 'reference', start: () => ({ act: async () => ({ reply: '\\boxed{0}' }) }) };

/** One round of one slot, designed by `provider` one call at a time and played once by `zeroAgent`; `extra` overrides. */
export function oneSlotOptions(provider: Provider, sandboxes: SandboxSet, extra: Partial<SelfPlayOptions>): SelfPlayOptions {
  return {
    designer: createLLMDesigner(provider, { requestsInFlight: 1 }),
    rounds: 1,
    envsPerRound: 1,
    reward: 'spade',
    concurrency: 2,
    context: { suite: 'spade', sandboxes, agent: zeroAgent, limits: {}, attempts: 1, runSeed: 4 },
    ...extra,
  };
}
