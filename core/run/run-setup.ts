/**
 * The parts a run is given (RunSetup) and what it reports as it goes (ProgressEvent): shared by
 * the run loop, each suite's plan and the curriculum's rounds.
 */
import type { SpadeCode } from '../roles/spade-code.js';
import type { Agent, Designer, Suite } from '../types.js';
import type { GateVerdict, RoundSummary, RunResults, SuiteResult, UsageMetrics } from '../results/results.js';
import type { SpadeConfig } from '../config/config.js';
import type { Evaluator, SandboxSet } from './evaluate.js';
import type { PriorWork } from '../results/resume.js';
import type { EnvironmentReviewer } from '../roles/llm-reviewer.js';
import type { HintWriter } from '../roles/llm-hint.js';

/** What the run reports as it goes (the CLI draws it). */
export type ProgressEvent =
  | { type: 'suite-start'; suite: string; kind: SuiteResult['kind']; environments: number; episodes: number }
  | { type: 'designed'; suite: string; round: number; count: number }
  | { type: 'environment'; suite: string; verdict: GateVerdict['verdict'] }
  | { type: 'episode'; suite: string }
  | { type: 'round'; suite: string; summary: RoundSummary; rounds: number }
  | { type: 'suite-end'; suite: string; result: SuiteResult }
  | { type: 'notice'; message: string };

export interface RunSetup {
  config: SpadeConfig;
  runId: string;
  designer: Designer;
  agent: Agent;
  sandboxes: SandboxSet;
  /** Static suites, in order; the self-play pool runs first when `selfplay` is true. */
  suites: Suite[];
  selfplay: boolean;
  outDir: string;
  versions: Record<string, string>;
  /** Gate only, no episodes. */
  validateOnly?: boolean;
  /** The journal of an interrupted invocation of this run (`--resume`). */
  prior?: PriorWork;
  /** Where environments are evaluated (default: in this thread). */
  evaluator?: Evaluator;
  /** The optional LLM reviewer after the gate. */
  reviewer?: EnvironmentReviewer;
  /** The designer model writing hints for valid programs without hint() (LLM designers). */
  hintWriter?: HintWriter;
  /** SPADE's prompt code (SPADE's designer protocol or memory). */
  spadeCode?: SpadeCode;
  /**
   * Model usage so far (all providers) outside episodes, for metrics.usage per suite: the calls
   * of episodes are counted through their `spent` (ProviderStats.outsideUsage).
   */
  outsideUsage?: () => UsageMetrics;
  /** A mark in the providers' call latencies, and the latencies since a mark (ms). */
  latencyMark?: () => number[];
  latencySince?: (mark: number[]) => number[];
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
  /** Writes report.html beside results.json; without it, results.json only. */
  renderReport?: ReportRenderer;
  /** Free what evaluating environments holds (threads, sandboxes): called once the last suite is played. */
  release?: () => Promise<void>;
}

/**
 * Renders the HTML report of runs in parts, in order, written one after another (the built-in
 * one is reports/html.ts, passed in by the composition root).
 */
export type ReportRenderer = (runs: RunResults[]) => Promise<readonly string[]>;
