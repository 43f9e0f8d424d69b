/**
 * spade-bench's library API, the package entry (`import { run } from 'spade-bench'`): start a
 * run from code, load and check configs, read results, and write plugins with exactly what the
 * built-in plugins use. Sandboxes and providers are reached by id (`isolated-vm`,
 * `openai:gpt-4.1-mini`), so importing this module loads no SDK, addon or interpreter.
 */

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

/** Run self-play and the static suites from a config; writes results.json, report.html and the journal into `out`. */
export { run } from './core/setup/api.js';
/** How one run is carried out (resume, threads, shard, Redis, signal, progress), and what it is about to do. */
export type { RunOptions, RunStart } from './core/setup/api.js';
/** The progress events a run emits as it goes (`RunOptions.onProgress`). */
export type { ProgressEvent } from './core/run/run-setup.js';

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------

/** Types a config file's default export (`export default defineConfig({...})`). */
export { defineConfig } from './core/config/config.js';
/** Find and load `spade.config.*` (or the file named), checked: a wrong key throws a UsageError naming its path. */
export { loadConfigFile as loadConfig } from './core/config/config.js';
/** Check a config object (UsageError naming the key path), and resolve one over the defaults. */
export { validateConfig, resolveConfig } from './core/config/config.js';
/** The config of a run given nothing (the offline default). */
export { DEFAULT_CONFIG } from './core/config/config.js';
/** A resolved config, a user's (every key optional), and their parts. */
export type { SpadeConfig, UserConfig, SelfPlayConfig, ProviderConfig } from './core/config/config.js';
/** Every option with its default: the defaults, the table itself, and the data folder used when none is set. */
export { DEFAULTS, RUN_OPTIONS, defaultDataDir } from './core/config/options.js';

// ---------------------------------------------------------------------------------------------
// Results and errors
// ---------------------------------------------------------------------------------------------

/** The results file (`results.json`): RunResults and its parts, and the schema version. */
export * from './core/results/results.js';
/** results.json on disk: read it (schema 1 or 2) into RunResults, or write it; the stored shapes. */
export { readResults, writeResults, resultsFromStored, sourceFromParts } from './core/results/results-file.js';
/** The shapes results.json stores (schema 2): code and checks once per suite. */
export type { StoredResults, StoredSuite, StoredEnvironment } from './core/results/results-file.js';
/**
 * Errors with typed fields: UsageError (exit 2: config, plugin id, key, input), DataError (a data
 * file, with its line), RunStoppedError (exit 3: stopped early, results kept), SandboxError (a
 * classified failure of an environment's call, `kind`), and the exit codes.
 */
export { UsageError, DataError, RunStoppedError, SandboxError, EXIT } from './core/errors.js';

// ---------------------------------------------------------------------------------------------
// The contract: environments, sandboxes, providers, roles, suites, episodes
// ---------------------------------------------------------------------------------------------

/** The core concepts as types, plus the default sandbox limits. */
export * from './core/types.js';

// ---------------------------------------------------------------------------------------------
// Writing plugins
// ---------------------------------------------------------------------------------------------

/** Types a plugin module's default export (`export default definePlugin({ kind: 'provider', ... })`). */
export { definePlugin } from './core/config/plugin.js';
/** The definition of each plugin kind, and what a provider plugin's create() receives. */
export type { PluginDefinition, ProviderPlugin, SandboxPlugin, SuitePlugin, RolePlugin, ProviderOptions } from './core/config/plugin.js';
/** Wrap a provider's raw call with the shared layer (retries, timeout, limits, cache, usage, redaction); a provider's stats. */
export { withProviderLayer, statsOf } from './core/providers/layer.js';
/** A provider's raw call (what a plugin writes), its result, and the provider the layer makes of it. */
export type { RawProvider, RawChatResult, ManagedProvider } from './core/providers/layer.js';
/** Read the shared layer's options from a provider's config entry; the layer's default request timeout. */
export { layerOptionsFrom, DEFAULT_TIMEOUT_MS, DEFAULT_REQUESTS_IN_FLIGHT } from './core/providers/layer-options.js';
/** The shared layer's options: requests in flight, timeout, retries, rate limits, cache, prices. */
export type { ProviderLayerOptions } from './core/providers/layer-options.js';
/** A failed provider call, classified (rate limit, server, timeout...). */
export { ProviderError } from './core/providers/provider-error.js';
/** A reply with no usable text (empty, refused, cut off): retried by the layer, then an errored call. */
export { UnusableReplyError } from './core/providers/failures.js';
/** A provider's API key from its options or the first environment variable set. */
export { resolveApiKey } from './core/providers/keys.js';
/** Remove API keys from a text (log lines, errors). */
export { redact } from './core/providers/redact.js';
/** SPADE's interface contract for sandboxes: a program's raw reset()/step()/text results and tool schemas checked and typed. */
export { toResetResult, toStepResult, toText, toToolSchemas, TOOL_NAME, describeValue } from './core/gate/contract.js';
/**
 * SPADE's text protocol of tool-use games: read an action as ToolUseBaseEnv's step() does,
 * write a tool call or an answer, count an episode's tool calls, and turn an environment's
 * function schemas into the tools a provider takes.
 */
export { readToolAction, readToolCallsInText, toolCallText, answerText, countToolCalls, toolDefinitionsOf } from './core/run/tool-calls.js';
/** What an action is to ToolUseBaseEnv (an answer, a tool call, a malformed call, or neither), and a call a model wrote in text. */
export type { ToolAction, TextToolCall } from './core/run/tool-calls.js';
/** A program's game type (single-turn, multi-turn, tool-use), and whether its source extends ToolUseBaseEnv. */
export { gameTypeOf, extendsToolUseBase, GAME_TYPES } from './core/run/game-type.js';
/** Seeded randomness: a seed derived from a base and parts, and the mulberry32 generator. */
export { deriveSeed, mulberry32 } from './core/run/random.js';
/** Write a file so it is never half-written (temporary file, fsync, rename). */
export { writeFileAtomic } from './core/results/fs.js';
/** Programs that open with their data (`const NAME = <JSON>;` lines): a sandbox compiles their code once. */
export { splitDataHeader, dataHeaderOf, declareDataHeader, dataArray, DATA_PARAMETER } from './core/results/data-header.js';
/** A program's data header, and its code without the values. */
export type { DataHeader } from './core/results/data-header.js';
/** A sandbox's fingerprint (SandboxPlugin.fingerprint): a hash of its files and versions. */
export { sourceFingerprint, siblingFiles } from './core/gate/verdict-cache.js';

// ---------------------------------------------------------------------------------------------
// The parts of a run, for use on their own
// ---------------------------------------------------------------------------------------------

/** Designer rewards: SPADE's (regret + difficulty band, on its episode rewards), its regret-only reward, solve-rate band, Absolute Zero's learnability, R-Zero's uncertainty. */
export { plateau, episodeReward, spadeDesignerReward, regretReward, learnabilityReward, uncertaintyReward, designerReward } from './core/selfplay/rewards.js';
/** The rewards' names and inputs. */
export type { DesignerRewardName, PlateauOptions, SpadeRewardInput } from './core/selfplay/rewards.js';
/** Metrics: pass@k and pass^k, the Vendi score, the Wilson interval (and its exact quantile), distinct-n. */
export { passAtK, passHatK, vendiScore, wilsonInterval, Z_95, distinctN } from './core/metrics/index.js';
/** RLVE's adaptive difficulty: a sliding window of difficulties per environment (what curriculum pools such as rlve-adaptive are played with). */
export { SlidingWindow } from './core/curriculum/sliding-window.js';
/** The sliding window's settings (tauAcc, tauNum, width, maxDifficulty) and one environment's window. */
export type { SlidingWindowSettings, DifficultyWindow } from './core/curriculum/sliding-window.js';
/** The validation gate on one program in a sandbox. */
export { validateEnvironment } from './core/gate/gate.js';
/** One episode: an agent plays a loaded environment. */
export { playEpisode } from './core/run/episode.js';
/** The LLM designer: a provider writes environment programs with SPADE-style prompts, and repairs rejected ones. */
export { createLLMDesigner } from './core/roles/llm-designer.js';
/** The LLM agent: a provider plays environments; its memory of long episodes (`full`, `window:K`, `summary[:K]`). */
export { createLLMAgent, parseAgentMemory } from './core/roles/llm-agent.js';
/** The LLM reviewer after the gate ("accept unless a clear fatal bug"), and how its verdict is read from a reply. */
export { createLLMReviewer, reviewDecision } from './core/roles/llm-reviewer.js';
/** What reviews environments after the gate, and the LLM reviewer's options. */
export type { EnvironmentReviewer, LLMReviewerOptions } from './core/roles/llm-reviewer.js';
/** @deprecated The LLM review after the gate is the reviewer now: use createLLMReviewer. */
export { createLLMReviewer as createLLMValidator } from './core/roles/llm-reviewer.js';
/** The environment program in a model's reply, whatever prose or fences surround it. */
export { extractProgram } from './core/roles/code-extraction.js';
/** R-Zero's repetition penalty over a round's tasks, and the BLEU it is built on. */
export { repetitionPenalties, sentenceBleu } from './core/selfplay/repetition-penalty.js';
/** Export a run's episodes (JSONL for RL trainers) or its valid environments (program files); a program's code hash. */
export { exportEpisodes, exportPool, codeHash } from './core/results/export.js';
/** SPADE's pool layout: games/game_{round}_{index}_{skill}.py, manifest.jsonl, checksums.sha256. */
export {
  GAMES_FOLDER, MANIFEST_FILE, CHECKSUMS_FILE, GAME_HEADER, gameFileName, parseGameFileName, gameFileText, parseChecksums, insidePool, sha256Hex,
} from './core/results/pool-layout.js';
/** What each line of a pool's manifest.jsonl holds, as spade-bench writes it. */
export type { PoolManifestLine } from './core/results/pool-layout.js';
/** SPADE's cognitive and tool-use skills and their rotation over rounds. */
export { COGNITIVE_SKILLS, SKILL_NAMES, TOOL_USE_SKILLS, TOOL_USE_SKILL_NAMES, DESIGN_GAME_TYPES, defaultSkills, isToolUseSkill, skillName, skillSlug, skillsForRound } from './core/selfplay/skills.js';
/** A tool-use skill's facts (category, complexity, kinds of task), and what a self-play run designs (cognitive or tool-use games). */
export type { ToolUseSkill, DesignGameType } from './core/selfplay/skills.js';
