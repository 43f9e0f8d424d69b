/**
 * spade-bench's library API: typed config and plugins, the designer rewards, the metrics,
 * the validation gate and the results schema. Sandboxes and providers are reached by id
 * (`isolated-vm`, `openai:gpt-4.1-mini`), so importing this module loads no SDK or addon.
 */
export * from './core/types.js';
export * from './core/results.js';
export { defineConfig, DEFAULT_CONFIG } from './core/config.js';
export type { SpadeConfig, UserConfig, SelfPlayConfig, ProviderConfig } from './core/config.js';
export { definePlugin } from './core/plugin.js';
export type { PluginDefinition, ProviderPlugin, SandboxPlugin, SuitePlugin, RolePlugin, ProviderOptions } from './core/plugin.js';
export { plateau, spadeDesignerReward, learnabilityReward, uncertaintyReward, designerReward } from './core/rewards.js';
export type { DesignerRewardName, PlateauOptions, SpadeRewardInput } from './core/rewards.js';
export { passAtK, passHatK, vendiScore, wilsonInterval, distinctN } from './core/metrics/index.js';
export { validateEnvironment } from './core/gate.js';
export { playEpisode } from './core/episode.js';
export { UsageError, DataError } from './core/errors.js';
export { withProviderLayer, statsOf } from './core/providers/layer.js';
export type { RawProvider, RawChatResult, ManagedProvider } from './core/providers/layer.js';
export { layerOptionsFrom } from './core/providers/layer-options.js';
export type { ProviderLayerOptions } from './core/providers/layer-options.js';
export { ProviderError } from './core/providers/provider-error.js';
export { UnusableReplyError } from './core/providers/failures.js';
export { redact } from './core/providers/redact.js';
export { createLLMDesigner } from './core/roles/llm-designer.js';
export { createLLMAgent, parseAgentMemory } from './core/roles/llm-agent.js';
export { createLLMReviewer, reviewDecision } from './core/roles/llm-reviewer.js';
export type { EnvironmentReviewer, LLMReviewerOptions } from './core/roles/llm-reviewer.js';
/** @deprecated The LLM review after the gate is the reviewer now: use createLLMReviewer. */
export { createLLMReviewer as createLLMValidator } from './core/roles/llm-reviewer.js';
export { extractProgram } from './core/roles/code-extraction.js';
export { repetitionPenalties, sentenceBleu } from './core/repetition-penalty.js';
export { exportEpisodes, exportPool, codeHash } from './core/export.js';
