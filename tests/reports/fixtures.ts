/**
 * Synthetic but realistic run results for report tests and benches: a self-play pool (rounds of
 * designed environments, with and without hints) and a static suite, with metrics computed by
 * the real metric builders from synthetic episodes and gate verdicts.
 */
import type { EpisodeResult, EpisodeStep } from '../../core/types.js';
import type { EnvironmentSummary, GateVerdict, RoundSummary, RunErrors, RunResults, SuiteResult } from '../../core/results/results.js';
import { SCHEMA_VERSION } from '../../core/results/results.js';
import { mulberry32 } from '../../core/run/random.js';
import { computeMetrics, usageMetrics, type EvaluatedEnvironment, type GameTypedEnvironment } from '../../core/metrics/index.js';
import { SKILL_NAMES } from '../../core/selfplay/skills.js';
import { roundLog } from '../../core/selfplay/round-log.js';
import type { Evaluation } from '../../core/run/evaluate.js';

export interface FixtureOptions {
  runId?: string;
  seed?: number;
  /** Environments per self-play round (and in the static suite: 2x). */
  environmentsPerRound?: number;
  rounds?: number;
  /** Attempts per environment, each played with and without the hint in self-play. */
  attempts?: number;
  agentLabel?: string;
  sandboxInsecure?: boolean;
  /** A string planted in every field that comes from an environment or a suite (hostile tests). */
  payload?: string;
  /** Share of episodes that error (default 0.03); 1: every episode errors, as with a model server that always fails. */
  erroredShare?: number;
  /** The run's errored work by class, as `run.errors` lists it (core/run/error-class.ts's tally): none by default. */
  errorClasses?: { errorClass: string; count: number; messages: string[] }[];
}

const FAMILIES = ['hanoi', 'maze', 'arithmetic', 'wordle', 'sorting', 'nim', 'inventory-tools'];
/** The fixture's single-turn and tool-use families; the others are multi-turn. */
const SINGLE_TURN = 'arithmetic';
const TOOL_USE = 'inventory-tools';
const REASONS: GateVerdict['reason'][] = ['timeout', 'answer-leak', 'reference-loses', 'smoke-test', 'syntax', 'nondeterministic'];
/** Reasons SPADE's own checks find too; for the others SPADE accepts what strict rejects. */
const SPADE_FINDS = new Set(['timeout', 'syntax']);

function programSource(family: string, difficulty: number, payload: string): string {
  return [
    `// ${family} environment, difficulty ${difficulty} ${payload}`,
    `class Env {`,
    `  reset(seed) { this.rng = seed * 7 + ${difficulty}; this.turn = 0; this.target = (seed % ${difficulty + 3}) + 1;`,
    `    return ['Find the ${family} target between 1 and ${difficulty + 3}. ${payload}', { horizon: ${difficulty * 2} }]; }`,
    `  step(action) { this.turn++; const m = /\\\\boxed\\{(.*?)\\}/.exec(action);`,
    `    const won = m && Number(m[1]) === this.target;`,
    `    return [won ? 'Correct!' : 'Try again (' + this.turn + ')', won ? 1 : 0, Boolean(won), this.turn >= ${difficulty * 2}, {}]; }`,
    `  solution() { return String(this.target); }`,
    `}`,
  ].join('\n');
}

function makeSuite(id: string, kind: SuiteResult['kind'], rounds: number, perRound: number, attempts: number, random: () => number, payload: string, erroredShare = 0.03): SuiteResult {
  const environments: EnvironmentSummary[] = [];
  const typed: GameTypedEnvironment[] = [];
  const verdicts: GateVerdict[] = [];
  const episodes: EpisodeResult[] = [];
  const roundSummaries: RoundSummary[] = [];
  for (let round = 0; round < rounds; round++) {
    const roundEpisodes: EpisodeResult[] = [];
    // The round as SPADE's round log reads it: each design (with its reply's length) and its plays.
    const roundEvaluations: Evaluation[] = [];
    let valid = 0;
    let difficultySum = 0;
    let rewardSum = 0;
    for (let e = 0; e < perRound; e++) {
      const family = FAMILIES[Math.floor(random() * FAMILIES.length)]!;
      const difficulty = 1 + Math.floor(random() * (4 + round * 2));
      const horizon = family === SINGLE_TURN ? 1 : 2 * difficulty;
      const gameType = family === SINGLE_TURN ? 'single-turn' : family === TOOL_USE ? 'tool-use' : 'multi-turn';
      const roll = random();
      const verdict: GateVerdict['verdict'] = roll < 0.75 ? 'valid' : roll < 0.85 ? 'unproven' : 'invalid';
      const reason = verdict === 'invalid' ? REASONS[Math.floor(random() * REASONS.length)] : verdict === 'unproven' ? 'unproven' : undefined;
      const task = `${payload}Round ${round}: ${family} puzzle with ${difficulty + 2} pieces; reach the goal in at most ${horizon} moves, target ${Math.floor(random() * 1000)}.`;
      const checks = [
        { name: 'loads', ok: true },
        { name: 'smoke-test', ok: reason !== 'smoke-test' },
        { name: 'deterministic', ok: reason !== 'nondeterministic', detail: `${payload}same seed twice` },
        { name: 'reference-wins', ok: verdict === 'valid' },
      ];
      const envId = kind === 'selfplay' ? `r${round}-e${e}` : `${id}/${family}-${e}`;
      const spadeRejects = verdict === 'invalid' && SPADE_FINDS.has(reason!);
      const readings = {
        spade: spadeRejects ? { verdict: 'invalid' as const, reason, detail: `Game step() failed ${payload}` } : { verdict: 'valid' as const },
        strict: { verdict, ...(reason ? { reason } : {}), ...(verdict === 'invalid' ? { detail: `${payload}failed` } : {}) },
      };
      verdicts.push({ verdict, reason, checks, firstObservation: task, horizon, gameType, wallMs: 5 + random() * 50, readings, gate: 'strict' });
      const summary: EnvironmentSummary = {
        id: `${envId}${payload}`, round: kind === 'selfplay' ? round : undefined, family: `${family}${payload}`, difficulty, horizon,
        language: 'javascript', gameType, verdict, reason, checks, task, source: programSource(family, difficulty, payload),
        ...(kind === 'selfplay' ? { skill: `${SKILL_NAMES[e % 3]}${payload}` } : {}), readings, gate: 'strict',
      };
      environments.push(summary);
      const summaryEpisodes: EpisodeResult[] = [];
      typed.push({ gameType, verdict, episodes: summaryEpisodes });
      roundEvaluations.push({
        program: { id: envId, language: 'javascript', source: '', meta: { params: { designerReply: { tokens: 900 + 137 * e + 60 * round, finishReason: (e + round) % 7 === 0 ? 'length' : 'stop' } } } },
        verdict: verdicts.at(-1)!, episodes: summaryEpisodes, summary,
      });
      if (verdict === 'invalid') continue;
      valid++;
      difficultySum += difficulty;
      const skill = Math.max(0.05, 0.9 - difficulty * 0.08);
      let wins = 0;
      let hintWins = 0;
      for (let attempt = 0; attempt < attempts; attempt++) {
        for (const withHint of kind === 'selfplay' ? [false, true] : [false]) {
          const r = random();
          const outcome: EpisodeResult['outcome'] = r < erroredShare ? 'errored' : r < (withHint ? skill + 0.2 : skill) ? 'won' : 'lost';
          const turns = outcome === 'won' ? 1 + Math.floor(random() * horizon) : horizon;
          if (outcome === 'won') withHint ? hintWins++ : wins++;
          const steps: EpisodeStep[] = Array.from({ length: turns }, (_, t) => ({
            action: gameType === 'tool-use' && !(t === turns - 1 && outcome === 'won')
              ? `<tool_call>{"name": "get_stock", "arguments": {"bin": ${t + 1}}}</tool_call> ${payload}`
              : `I think the answer is ${gameType === 'tool-use' ? `<answer>${t + 1}</answer>` : `\\boxed{${t + 1}}`} ${payload}`,
            observation: t === turns - 1 && outcome === 'won' ? 'Correct!' : `Try again (${t + 1}) ${payload}`,
            reward: t === turns - 1 && outcome === 'won' ? 1 : 0,
            terminated: t === turns - 1 && outcome === 'won',
            truncated: t === turns - 1 && outcome !== 'won',
          }));
          const episode: EpisodeResult = {
            suite: id, environmentId: envId, round: summary.round, attempt, withHint, seed: attempt, horizon, outcome, turns,
            totalReward: outcome === 'won' ? 1 : 0, wallMs: 2 + random() * 20, firstObservation: task,
            usage: { inputTokens: 200 * turns, outputTokens: 40 * turns }, ...(outcome === 'errored' && { error: `sandbox timeout ${payload}` }),
            ...(gameType === 'tool-use' && { toolCalls: outcome === 'won' ? turns - 1 : turns }),
            rewards: steps.map((s) => s.reward), terminated: outcome === 'won', truncated: outcome === 'lost',
          };
          if (attempt === 0 && !withHint) summary.sample = { outcome, steps };
          roundEpisodes.push(episode);
          summaryEpisodes.push(episode);
        }
      }
      summary.solveRate = wins / attempts;
      summary.hintSolveRate = kind === 'selfplay' ? hintWins / attempts : undefined;
      summary.designerReward = kind === 'selfplay' ? Math.max(0, summary.hintSolveRate! - summary.solveRate) : undefined;
      rewardSum += summary.designerReward ?? 0;
    }
    episodes.push(...roundEpisodes);
    const noHint = roundEpisodes.filter((ep) => !ep.withHint && ep.outcome !== 'errored');
    const hinted = roundEpisodes.filter((ep) => ep.withHint && ep.outcome !== 'errored');
    roundSummaries.push({
      round, proposed: perRound, valid,
      solveRate: noHint.length ? noHint.filter((ep) => ep.outcome === 'won').length / noHint.length : 0,
      hintSolveRate: hinted.length ? hinted.filter((ep) => ep.outcome === 'won').length / hinted.length : 0,
      meanDifficulty: valid ? difficultySum / valid : 0,
      designerReward: valid ? rewardSum / valid : 0,
      log: roundLog(roundEvaluations.map((ev) => ev.program), roundEvaluations),
    });
  }
  // The metrics come from the table of metrics, as a run's do (core/metrics/table.ts).
  const usage = usageMetrics(episodes.map((ep) => ({ usage: ep.usage, calls: ep.turns })));
  const evaluated: EvaluatedEnvironment[] = environments.map((summary, i) => ({
    program: { source: summary.source, language: 'javascript' },
    verdict: verdicts[i]!,
    episodes: typed[i]!.episodes,
    summary,
    sandboxCallMs: typed[i]!.episodes!.map((ep) => ep.wallMs / Math.max(1, ep.turns)),
  }));
  return {
    id: `${id}${payload}`,
    kind,
    metrics: computeMetrics({ kind, environments: evaluated, wallSec: 12 + random() * 5, usage, providerCallMs: [] }),
    rounds: kind === 'selfplay' ? roundSummaries : [],
    environments,
  };
}

/** `run.errors` for these classes: episodes of the pool `selfplay`, counted against --max-errors. */
function errorsOf(classes: readonly { errorClass: string; count: number; messages: string[] }[]): RunErrors {
  const total = classes.reduce((n, c) => n + c.count, 0);
  return { total, failures: total, classes: classes.map((c) => ({ ...c, failure: true, byStage: { episode: c.count }, bySuite: { selfplay: c.count } })) };
}

/** One run: a self-play pool (`rounds` rounds) and the static suite `procedural`. */
export function syntheticRun(options: FixtureOptions = {}): RunResults {
  const seed = options.seed ?? 1;
  const random = mulberry32(seed);
  const rounds = options.rounds ?? 3;
  const perRound = options.environmentsPerRound ?? 12;
  const attempts = options.attempts ?? 3;
  const payload = options.payload ?? '';
  return {
    schemaVersion: SCHEMA_VERSION,
    run: {
      id: options.runId ?? `run-${seed}`,
      startedAt: '2025-01-01T00:00:00.000Z',
      finishedAt: '2025-01-01T00:10:00.000Z',
      seed,
      designer: 'reference',
      designerLabel: 'reference policy (offline, deterministic)',
      agent: options.agentLabel ? options.agentLabel.split(' ')[0]! : 'reference',
      agentLabel: options.agentLabel ?? 'reference policy (offline, budgeted search)',
      sandbox: options.sandboxInsecure ? 'vm2' : 'isolated-vm',
      sandboxProtections: ['separate V8 isolate', 'no host objects', `memory limit ${payload}`],
      sandboxInsecure: options.sandboxInsecure ?? false,
      versions: { 'spade-bench': '0.1.0', node: process.version },
      config: { seed },
      complete: true,
      errors: errorsOf(options.errorClasses ?? []),
    },
    suites: [
      makeSuite('selfplay', 'selfplay', rounds, perRound, attempts, random, payload, options.erroredShare),
      makeSuite('procedural', 'static', 1, perRound * 2, attempts, random, payload, options.erroredShare),
    ],
  };
}

/** Count of episodes a fixture run holds (to size benches). */
export function episodeCount(run: RunResults): number {
  return run.suites.reduce((sum, suite) => sum + suite.metrics.throughput.episodes, 0);
}
