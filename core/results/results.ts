/**
 * The results file (`results.json`) and its versioned schema. The CLI, the reports and the
 * library API all read and write this one shape.
 */
import type { GameType } from '../concepts/environment.js';
import type { EpisodeStep } from '../concepts/episode.js';
import type { GateCheck, GateReadingName, ReadingVerdict, Verdict } from '../concepts/verdict.js';

export type { GateCheck, GateReason, GateReadingName, GateVerdict, ReadingVerdict, Verdict } from '../concepts/verdict.js';

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
  sandbox: string;
  /** Protections of the sandbox, and whether it is a security boundary. */
  sandboxProtections: string[];
  sandboxInsecure: boolean;
  versions: Record<string, string>;
  config: Record<string, unknown>;
  /** False when the run was interrupted; the numbers cover what finished. */
  complete: boolean;
  /** Why an incomplete run stopped (a signal, --max-errors, a write that failed). */
  stopReason?: string;
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
  /** No-hint plays won / decided, over the skill's environments. */
  episodes: number;
  successRate: number;
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
  /** won / (won + lost): errored episodes are counted apart, never as failures. */
  successRate: number;
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
  /** won / (won + lost). */
  successRate: number;
  /** Wilson 95% interval of successRate. */
  interval: [number, number];
  /** Mean turns of the decided episodes (0 when none). */
  meanTurns: number;
  /** Tool-use: mean tool calls per decided episode. */
  toolCallsPerEpisode?: number;
}

export interface UsageMetrics {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  cachedCalls: number;
}

export interface RoundSummary {
  round: number;
  proposed: number;
  valid: number;
  /** No-hint win rate over the round's valid environments. */
  solveRate: number;
  /** Win rate with the hint. */
  hintSolveRate: number;
  meanDifficulty: number;
  designerReward: number;
  /** Vendi score (q = 1) of the round's accepted task texts. */
  diversity?: number;
  /**
   * A curriculum pool's difficulty windows [low, high] after the round, over its environments:
   * their mean low and high, the highest high, and how many windows moved up this round.
   */
  window?: { meanLow: number; meanHigh: number; maxHigh: number; promotions: number };
}

export interface EnvironmentSummary {
  id: string;
  round?: number;
  family?: string;
  difficulty?: number;
  horizon?: number;
  language: string;
  /** single-turn, multi-turn or tool-use (absent in results written before game types were recorded). */
  gameType?: GameType;
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
  /** Earlier programs of this slot the gate rejected, repaired into this one. */
  repairs?: RepairRecord[];
  /** The LLM reviewer's verdict after the gate; a rejected review excludes the environment from play. */
  review?: ReviewRecord;
  /** R-Zero's repetition penalty subtracted from the designer reward (reward `uncertainty`). */
  repetitionPenalty?: number;
}

export interface RepairRecord {
  /** The rejected program's id. */
  id: string;
  reason: string;
  /** The failed check's detail. */
  detail?: string;
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
    /**
     * The pool split by game type (single-turn, multi-turn, tool-use), only the types present.
     * Absent in results written before game types were recorded.
     */
    byGameType?: Partial<Record<GameType, GameTypeMetrics>>;
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
  /** Self-play and curriculum pools: one entry per round. */
  rounds: RoundSummary[];
  environments: EnvironmentSummary[];
}

export interface RunResults {
  schemaVersion: typeof SCHEMA_VERSION;
  run: RunInfo;
  suites: SuiteResult[];
}
