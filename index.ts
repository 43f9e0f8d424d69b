/**
 * spade-bench's package entry (`import { run } from 'spade-bench'`): start a run from code,
 * load a config, and write plugins. Sandboxes and providers are reached by id (`isolated-vm`,
 * `openai:gpt-4.1-mini`), so importing this module loads no SDK, addon or interpreter.
 *
 * The rest of the library is in subpath exports, each for one job (docs/plugins.md):
 *   spade-bench/providers      writing a provider: the shared layer, its errors, keys, redaction
 *   spade-bench/environments   environment programs: the contract checks, tool calls, data
 *                              headers, the gate, one episode, seeds (writing a sandbox)
 *   spade-bench/selfplay       designer rewards, skills, the curriculum window, the LLM roles
 *   spade-bench/metrics        pass@k, Vendi, Wilson intervals, distinct-n
 *   spade-bench/results        results.json, its types, exports of episodes and pools
 *   spade-bench/config         checking and resolving configs, the options table and defaults
 */

/** Run self-play and the static suites from a config; writes results.json, report.html and the journal into `out`. */
export { run } from './core/setup/api.js';
/** How one run is carried out (resume, threads, shard, Redis, signal, progress), and what it is about to do. */
export type { RunOptions, RunStart } from './core/setup/api.js';
/** The progress events a run emits as it goes (`RunOptions.onProgress`). */
export type { ProgressEvent } from './core/run/run-setup.js';
/** What a run resolves with (results.json's content); its parts are in spade-bench/results. */
export type { RunResults, SuiteResult, EnvironmentSummary } from './core/results/results.js';

/** Types a config file's default export (`export default defineConfig({...})`). */
export { defineConfig } from './core/config/config.js';
/** Find and load `spade.config.*` (or the file named), checked: a wrong key throws a UsageError naming its path. */
export { loadConfigFile as loadConfig } from './core/config/config.js';
/** A resolved config, a user's (every key optional), and their parts. */
export type { SpadeConfig, UserConfig, SelfPlayConfig, ProviderConfig } from './core/config/config.js';

/**
 * Errors with typed fields: UsageError (exit 2: config, plugin id, key, input), DataError (a data
 * file, with its line), PluginContractError (exit 2: a plugin returned the wrong shape, naming the
 * plugin, method and field), RunStoppedError (exit 3: stopped early, results kept), RunFailedError
 * (exit 4: a model or plugin failure past the provider's retries, results kept), SandboxError (a
 * classified failure of an environment's call, `kind`), and the exit codes.
 */
export { UsageError, DataError, PluginContractError, RunStoppedError, RunFailedError, SandboxError, EXIT } from './core/errors.js';

/** Types a plugin module's default export (`export default definePlugin({ kind: 'suite', ... })`). */
export { definePlugin } from './core/config/plugin.js';
/** The definition of each plugin kind, and what a provider plugin's create() receives. */
export type { PluginDefinition, ProviderPlugin, SandboxPlugin, SuitePlugin, RolePlugin, ProviderOptions } from './core/config/plugin.js';
/** A static suite from a loader of its tasks: loaded once per data folder, cut by `limit`, malformed records counted. */
export { defineStaticSuite } from './benchmarks/static-suite.js';
/** What defineStaticSuite takes and gives. */
export type { StaticSuite, StaticSuiteDefinition, LoadedTasks } from './benchmarks/static-suite.js';
/** A question with one reference answer as an environment program (read from \boxed{}, scored by a checker). */
export { answerProgram } from './benchmarks/answer-program.js';
/** What answerProgram takes: the question, its answer, the checker (`numeric`, `exact`, `contains`). */
export type { AnswerTask, AnswerChecker } from './benchmarks/answer-program.js';
/** The contract every plugin kind speaks: environment programs, sandboxes, providers, roles, suites, episodes. */
export type * from './core/types.js';
