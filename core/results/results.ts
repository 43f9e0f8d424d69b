/**
 * The results file (`results.json`) and its versioned schema. The CLI, the reports and the
 * library API all read and write this one shape.
 */
import type { GameType } from '../concepts/environment.js';
import type { EpisodeStep } from '../concepts/episode.js';
import type { GateCheck, GateReadingName, ReadingVerdict, Verdict } from '../concepts/verdict.js';
import type { SuiteSampling, SuiteScore } from '../concepts/suite.js';
import type { UsageMetrics } from '../concepts/provider.js';

export type { GateCheck, GateReason, GateReadingName, GateVerdict, ReadingVerdict, Verdict } from '../concepts/verdict.js';
export type { UsageMetrics } from '../concepts/provider.js';

/**
 * Version of results.json's layout. Schema 2 stores each suite's program code and gate checks
 * once (core/results/results-file.ts); readResults() reads 1 and 2 into the same RunResults.
 */
export const SCHEMA_VERSION = 2;

export interface RunInfo {
  id: string;
  startedAt: string;
  finishedAt?: string;
  seed: number;
  designer: string;
  designerLabel: string;
  agent: string;
  agentLabel: string;
  /** Whether each role was the offline reference policy or a model (reports label it). */
  designerKind?: 'reference' | 'llm';
  agentKind?: 'reference' | 'llm';
  /** The sandbox of JavaScript programs. */
  sandbox: string;
  /** The sandbox of Python programs, when the run could meet one (`spade-bench list` gives its protections). */
  pythonSandbox?: string;
  /** Protections of the JavaScript sandbox, and whether it is a security boundary. */
  sandboxProtections: string[];
  sandboxInsecure: boolean;
  versions: Record<string, string>;
  config: Record<string, unknown>;
  /** False when the run was interrupted; the numbers cover what finished. */
  complete: boolean;
  /** Why an incomplete run stopped (a signal, a model or plugin failure, a write that failed). */
  stopReason?: string;
  /** Work that errored, by class. */
  errors: RunErrors;
}

/** Where a piece of work errored: a design, repair, review or hint call of a self-play slot, or an episode. */
export type ErrorStage = 'design' | 'repair' | 'review' | 'hint' | 'episode';

/**
 * The errored work of one class: `provider:<kind>` (a model call that failed past the
 * provider's retries: `provider:connection`, `provider:auth`, `provider:bad-response`, ...),
 * `plugin` (a plugin threw), `plugin-contract` (a plugin returned the wrong shape), or
 * `sandbox:<kind>` (an environment program failed while played: `sandbox:timeout`, ...).
 */
export interface ErrorClassSummary {
  errorClass: string;
  /** Counted against --max-errors (model and plugin failures; an environment's own sandbox failures are not). */
  failure: boolean;
  count: number;
  byStage: Partial<Record<ErrorStage, number>>;
  bySuite: Record<string, number>;
  /** Its first distinct messages (at most three), in the order they were met. */
  messages: string[];
}

/**
 * A self-play design slot that errored: its design, repair, review or hint call failed (a model
 * call past the provider's retries, a plugin that threw). It has no result: it is neither
 * proposed nor invalid, and `--resume --retry-errored` does its work again.
 */
export interface SlotError {
  /** The slot's id (its first program's). */
  id: string;
  round: number;
  stage: Exclude<ErrorStage, 'episode'>;
  errorClass: string;
  message: string;
}

/** The run's errored work: episodes, design slots and hints that have no result. */
export interface RunErrors {
  /** Errored pieces of work, every class. */
  total: number;
  /** Those counted against --max-errors. */
  failures: number;
  /** One entry per class, the most frequent first. */
  classes: ErrorClassSummary[];
}

export interface ValidityMetrics {
  proposed: number;
  valid: number;
  /** valid / proposed. */
  rate: number;
  /** Wilson 95% interval of rate. */
  interval: [number, number];
  unproven: number;
  reasons: Record<string, number>;
  /** The reading that decided what was played (`valid`, `rate` and `reasons` above are its). */
  gate?: GateReadingName;
  /**
   * Self-play: validity of the designer's first drafts, before any repair (`valid` above counts
   * the programs valid after repairs). Absent for static suites, which repair nothing.
   */
  firstTry?: { proposed: number; valid: number; rate: number | null };
  /**
   * Self-play: validity per design slot, SPADE's pass rate (its env_validation_pass_rate): the
   * slots that ended with a program proved valid and not rejected by the LLM reviewer, after
   * their repairs and fresh designs, of the slots designed. Absent in older results.
   */
  perSlot?: { slots: number; valid: number; rate: number | null; interval: [number, number] };
  /**
   * Self-play: validity per program, every program the slots went through counted (first
   * designs, repairs and fresh designs): those proved valid and not rejected by the reviewer, of
   * all of them. Absent in older results.
   */
  perProgram?: { programs: number; valid: number; rate: number | null; interval: [number, number] };
  /**
   * Validity under both readings side by side, and the programs SPADE accepts that strict
   * rejects, by strict's reason (the other way round cannot happen: strict starts from SPADE's checks).
   */
  readings?: { spade: ReadingValidity; strict: ReadingValidity; spadeOnly: { count: number; reasons: Record<string, number> } };
}

/** Validity under one reading of the gate. */
export interface ReadingValidity {
  valid: number;
  unproven: number;
  /** valid / proposed, and its Wilson 95% interval. */
  rate: number;
  interval: [number, number];
  /** (valid + unproven) / proposed: the share that reading would play. */
  playedRate: number;
  /** Reason codes of the invalid ones. */
  reasons: Record<string, number>;
}

/** One skill's environments (SPADE's cognitive skills). */
export interface SkillMetrics {
  skill: string;
  environments: number;
  /** Accepted by the deciding reading (valid or unproven), and so played. */
  valid: number;
  /** No-hint plays won / decided, over the skill's environments (null when none was decided). */
  episodes: number;
  successRate: number | null;
}

/**
 * SPADE's difficulty bands over the played environments: the share whose mean episode reward
 * without the hint is above 0.8 (easy), below 0.2 (hard) or between, and the share whose plays
 * all got the same reward (nothing to learn from: GRPO's advantage is 0 on them).
 */
export interface DifficultyBands {
  environments: number;
  easy: number;
  medium: number;
  hard: number;
  sameReward: number;
}

export interface DiversityMetrics {
  /** Number of environments measured (valid ones). */
  n: number;
  /** Vendi score (q = 1) over the task texts. */
  vendi: number;
  vendiPerN: number;
  distinct1: number;
  distinct2: number;
  /** Vendi score (q = 1) over program structure (AST node-type 1..3-grams), when programs were given. */
  structureVendi?: number;
  structureVendiPerN?: number;
  /** Mean pairwise normalised compression distance (zlib) of the task texts: ~0 alike, ~1 unrelated. */
  ncd?: number;
  /** True when a score used the hashed-feature approximation (over 400 items and 400 features). */
  approximate?: boolean;
  /** Pools compared at one common size: statistics over bootstrap resamples of `size` items. */
  equalSize?: EqualSizeDiversity;
}

/** A point estimate with its 95% interval. */
export interface Estimate {
  mean: number;
  interval: [number, number];
}

export interface EqualSizeDiversity {
  size: number;
  replicates: number;
  vendi: Estimate;
  distinct2: Estimate;
  structureVendi?: Estimate;
}

export interface LatencySummary {
  calls: number;
  p50Ms: number;
  p95Ms: number;
}

export interface ThroughputMetrics {
  episodes: number;
  steps: number;
  episodesPerSec: number;
  stepsPerSec: number;
  wallSec: number;
  environmentsDesigned?: number;
  environmentsPerSec?: number;
  validEnvironments?: number;
  validPerSec?: number;
  /** Model tokens (input + output) and their rate. */
  tokens?: number;
  tokensPerSec?: number;
  latency?: { providerCall?: LatencySummary; sandboxCall?: LatencySummary };
}

export interface HorizonBucket {
  horizon: number;
  episodes: number;
  successRate: number;
  interval: [number, number];
}

/** Success at one difficulty level, on the pool's own scale (the reference designer's 1-10, RLVE's 0 up). */
export interface DifficultyBucket {
  difficulty: number;
  /** Decided (won or lost) episodes of environments at this difficulty. */
  episodes: number;
  successRate: number;
  interval: [number, number];
}

export interface SuccessMetrics {
  episodes: number;
  won: number;
  lost: number;
  errored: number;
  /** won / (won + lost): errored episodes are counted apart, never as failures. Null when none was decided. */
  successRate: number | null;
  interval: [number, number];
  byHorizon: HorizonBucket[];
  /** success@T: share of decided episodes won within T turns, T ascending. */
  successAtT?: { turns: number; successRate: number; interval: [number, number] }[];
  /** pass@k and pass^k over environments with at least k decided attempts (bootstrap intervals). */
  passAtK?: PassAtKPoint[];
  /** Success by the difficulty of the environment played, ascending (pools whose environments have one). */
  byDifficulty?: DifficultyBucket[];
}

export interface PassAtKPoint {
  k: number;
  environments: number;
  passAtK: Estimate;
  passHatK: Estimate;
}

/**
 * One game type's share of a pool: how many of its environments were proposed and proven valid,
 * and how the agent did on them without the hint (errored episodes counted apart).
 */
export interface GameTypeMetrics {
  /** Proposed environments of this type. */
  environments: number;
  valid: number;
  /** Episodes played without the hint (won, lost and errored). */
  episodes: number;
  /** won / (won + lost); null when none was decided. */
  successRate: number | null;
  /** Wilson 95% interval of successRate. */
  interval: [number, number];
  /** Mean turns of the decided episodes (0 when none). */
  meanTurns: number;
  /** Tool-use: mean tool calls per decided episode. */
  toolCallsPerEpisode?: number;
}

export interface RoundSummary {
  round: number;
  proposed: number;
  valid: number;
  /** No-hint win rate over the round's valid environments (null when none was played). */
  solveRate: number | null;
  /** Win rate with the hint (null when none was played). */
  hintSolveRate: number | null;
  /** Mean difficulty of the round's environments (null when none has one: an LLM designer's, or nothing played). */
  meanDifficulty: number | null;
  /** Mean designer reward of the round's played environments (null when none was played, or no designer made them). */
  designerReward: number | null;
  /** Design slots whose design, repair, review or hint call failed: not in `proposed`, neither valid nor invalid. */
  errored?: number;
  /** Vendi score (q = 1) of the round's accepted task texts. */
  diversity?: number;
  /**
   * A curriculum pool's difficulty windows [low, high] after the round, over its environments:
   * their mean low and high, the highest high, and how many windows moved up this round.
   */
  window?: { meanLow: number; meanHigh: number; maxHigh: number; promotions: number };
  /** SPADE's per-step log for the round (core/selfplay/round-log.ts). */
  log: RoundLog;
}

/** The figures of SPADE's per-step log that a round keeps (their SPADE names: core/selfplay/round-log.ts). */
export type RoundLogKey =
  | 'rHint'
  | 'rNoHint'
  | 'meanRegret'
  | 'flooredShare'
  | 'stepTimeoutShare'
  | 'easyShare'
  | 'mediumShare'
  | 'hardShare'
  | 'validationPassRate'
  | 'validatorRejectionRate'
  | 'validatorRejectionRateRun'
  | 'designerResponseTokens'
  | 'designerResponseTokensMax'
  | 'designerTruncatedShare'
  | 'zeroVarianceShare'
  | 'allZeroShare'
  | 'allPositiveShare'
  | 'meanTurns';

/** One round's SPADE log: every figure, null when the run has nothing to compute it from, and then why. */
export interface RoundLog {
  figures: Record<RoundLogKey, number | null>;
  missing: Partial<Record<RoundLogKey, string>>;
}

export interface EnvironmentSummary {
  id: string;
  round?: number;
  family?: string;
  difficulty?: number;
  horizon?: number;
  language: string;
  /** single-turn, multi-turn or tool-use. */
  gameType: GameType;
  verdict: Verdict;
  reason?: string;
  checks: GateCheck[];
  task?: string;
  source: string;
  /** The cognitive skill the environment exercises (self-play: SPADE's skill rotation). */
  skill?: string;
  /** Both readings of the gate (spade and strict) and the one that decided `verdict`. */
  readings?: { spade: ReadingVerdict; strict: ReadingVerdict };
  gate?: GateReadingName;
  /** Share of decided plays won, without the hint and with it. */
  solveRate?: number;
  hintSolveRate?: number;
  /** SPADE's reward inputs: the mean episode reward (last reward clamped to [-1, 1] if terminated, else 0) without the hint and with it. */
  meanReward?: number;
  hintMeanReward?: number;
  /** The hint the designer model wrote for a program without hint(), or why there is none. */
  designerHint?: string;
  hintError?: string;
  designerReward?: number;
  /** A sample trajectory (the first no-hint attempt). */
  sample?: { outcome: string; steps: EpisodeStep[] };
  /** Earlier programs of this slot that were rejected, repaired into this one or followed by a fresh design. */
  repairs?: RepairRecord[];
  /** The LLM reviewer's verdict after the gate; a rejected review excludes the environment from play. */
  review?: ReviewRecord;
  /** R-Zero's repetition penalty subtracted from the designer reward (reward `uncertainty`). */
  repetitionPenalty?: number;
}

export interface RepairRecord {
  /** The rejected program's id. */
  id: string;
  /** The gate's reason code, or `review` when the LLM reviewer rejected it. */
  reason: string;
  /** The failed check's detail (the review's words). */
  detail?: string;
  /** A fresh design of the slot followed it (SPADE's resampling), not a repair of it. */
  resampled?: boolean;
}

export interface ReviewRecord {
  accepted: boolean;
  reason: string;
  /** The reviewer's id (a provider id). */
  by: string;
}

export interface SuiteResult {
  id: string;
  /** `selfplay`: the designer's pool; `curriculum`: a fixed pool whose difficulty adapts round by round (rlve-adaptive); `static`: fixed tasks. */
  kind: 'selfplay' | 'curriculum' | 'static';
  metrics: {
    validity: ValidityMetrics;
    diversity: DiversityMetrics;
    throughput: ThroughputMetrics;
    success: SuccessMetrics;
    usage: UsageMetrics;
    /** The pool split by game type (single-turn, multi-turn, tool-use), only the types present. */
    byGameType: Partial<Record<GameType, GameTypeMetrics>>;
    /** Per cognitive skill (environments that have one: self-play). */
    bySkill?: SkillMetrics[];
    /** SPADE's difficulty bands over the played environments. */
    bands?: DifficultyBands;
    /** Every other metric of the metrics table (core/metrics/table.ts), under its key. */
    [key: string]: unknown;
  };
  /** Malformed dataset records skipped with --skip-bad (absent when none). */
  skippedRecords?: number;
  /** Tasks left out because they cannot run here (a package the Python sandbox lacks), by reason (absent when none). */
  skippedTasks?: Record<string, number>;
  /**
   * A published benchmark's own figures, under the keys its authors' evaluation writes
   * (`aime2025_pass1`, `gpqa_diamond_avg_at_n`, `gem_eval/category_rg_math/win_rate`...), each
   * with its 95% interval where one is known. `spade-bench table` reads them.
   */
  scores?: Record<string, SuiteScore>;
  /** The sampling the suite's model calls used (a published benchmark's protocol, with config overrides). */
  sampling?: SuiteSampling;
  /** Its task text is private: environments show ids and hashes only (unless the run passed --show-task-text). */
  privateText?: boolean;
  /** Self-play and curriculum pools: one entry per round. */
  rounds: RoundSummary[];
  environments: EnvironmentSummary[];
}

export interface RunResults {
  schemaVersion: typeof SCHEMA_VERSION;
  run: RunInfo;
  suites: SuiteResult[];
}
