/**
 * `spade-bench/environments`: environment programs and what runs them. The checks of SPADE's
 * interface contract and the default limits (what a sandbox plugin is written with), SPADE's
 * text protocol of tool calls, game types, programs that open with their data, the validation
 * gate on one program, one episode, and seeded randomness.
 */

/** SPADE's interface contract for sandboxes: a program's raw reset()/step()/text results and tool schemas checked and typed. */
export { toResetResult, toStepResult, toText, toToolSchemas, TOOL_NAME, describeValue } from '../core/gate/contract.js';
/** The default limits of one environment (wall time per call, memory, output size, calls). */
export { DEFAULT_LIMITS } from '../core/config/options.js';
/** A sandbox's fingerprint (SandboxPlugin.fingerprint): a hash of its files and versions. */
export { sourceFingerprint, siblingFiles } from '../core/gate/verdict-cache.js';
/** Programs that open with their data (`const NAME = <JSON>;` lines): a sandbox compiles their code once. */
export { splitDataHeader, dataHeaderOf, declareDataHeader, dataArray, DATA_PARAMETER } from '../core/results/data-header.js';
/** A program's data header, and its code without the values. */
export type { DataHeader } from '../core/results/data-header.js';
/**
 * SPADE's text protocol of tool-use games: read an action as ToolUseBaseEnv's step() does,
 * write a tool call or an answer, count an episode's tool calls, and turn an environment's
 * function schemas into the tools a provider takes.
 */
export { readToolAction, readToolCallsInText, toolCallText, answerText, countToolCalls, toolDefinitionsOf } from '../core/run/tool-calls.js';
/** What an action is to ToolUseBaseEnv (an answer, a tool call, a malformed call, or neither), and a call a model wrote in text. */
export type { ToolAction, TextToolCall } from '../core/run/tool-calls.js';
/** A program's game type (single-turn, multi-turn, tool-use), and whether its source extends ToolUseBaseEnv. */
export { gameTypeOf, extendsToolUseBase, GAME_TYPES } from '../core/run/game-type.js';
/** The validation gate on one program in a sandbox. */
export { validateEnvironment } from '../core/gate/gate.js';
/** One episode: an agent plays a loaded environment. */
export { playEpisode } from '../core/run/episode.js';
/** Seeded randomness: a seed derived from a base and parts, and the mulberry32 generator. */
export { deriveSeed, mulberry32 } from '../core/run/random.js';
