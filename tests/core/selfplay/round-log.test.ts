// SPADE's per-step log of a round: the figures SPADE's own code logged for recorded rounds
// (tests/fixtures/spade-rewards/recorded.json, from SPADE's assign_env_rewards_regret), from the
// same plays as spade-bench records them; and null, with a reason, for what a round cannot give.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROUND_LOG_FIGURES, ROUND_LOG_KEYS, roundLog, validatorCounts } from '../../../core/selfplay/round-log.js';
import type { Evaluation } from '../../../core/run/evaluate.js';
import type { EnvironmentProgram, EpisodeResult } from '../../../core/types.js';
import type { EnvironmentSummary } from '../../../core/results/results.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const recorded = JSON.parse(readFileSync(path.join(root, 'tests/fixtures/spade-rewards/recorded.json'), 'utf8'));

const near = (actual: number | null, expected: number, what: string): void =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-12, `${what}: SPADE logs ${expected}, we log ${actual}`);

let attempt = 0;
const play = (reward: number, withHint: boolean, turns = 2, extra: Partial<EpisodeResult> = {}): EpisodeResult => ({
  suite: 'spade', environmentId: 'x', attempt: attempt++, withHint, seed: 1, horizon: 5, outcome: reward > 0 ? 'won' : 'lost', turns,
  totalReward: reward, wallMs: 1, rewards: [0, reward], terminated: true, ...extra,
});
const timeout = (): EpisodeResult => ({ ...play(0, true), outcome: 'errored', errorKind: 'timeout', rewards: undefined });

const evaluation = (id: string, episodes: EpisodeResult[], summary: Partial<EnvironmentSummary> = {}, params?: Record<string, unknown>): Evaluation => {
  const program: EnvironmentProgram = { id, language: 'javascript', source: '', meta: params ? { params } : {} };
  return { program, verdict: { verdict: 'valid', checks: [] } as unknown as Evaluation['verdict'], episodes, summary: { id, language: 'javascript', gameType: 'single-turn', verdict: 'valid', checks: [], source: '', ...summary } };
};

interface RecordedGame { id: string; rewards: number[]; r_hint: number; timeout?: boolean }

test("regret, floored and timeout shares, difficulty bands: the figures SPADE's code logged for the same plays", () => {
  recorded.rounds.forEach((games: RecordedGame[], round: number) => {
    const evaluations = games.map((g) => evaluation(g.id, [...g.rewards.map((r) => play(r, false)), play(g.r_hint, true), ...(g.timeout ? [timeout()] : [])]));
    const { figures } = roundLog(evaluations.map((e) => e.program), evaluations);
    const stats = recorded.regretBased[round].stats;
    near(figures.rHint, stats['env/avg_r_hint'], `round ${round} r_hint`);
    near(figures.rNoHint, stats['env/avg_r_no_hint'], `round ${round} r_no_hint`);
    near(figures.meanRegret, stats['env/avg_regret'], `round ${round} regret`);
    near(figures.flooredShare, stats['env/proposer_floored_frac'], `round ${round} floored`);
    near(figures.stepTimeoutShare, stats['env/proposer_step_timeout_frac'], `round ${round} timeouts`);
    for (const band of ['easy', 'medium', 'hard'] as const) near(figures[`${band}Share`], stats[`env/game_difficulty/${band}_pct`], `round ${round} ${band}`);
  });
});

test('groups, turns, validation, the validator and the designer\'s replies, from what the round recorded', () => {
  const evaluations = [
    evaluation('a', [play(1, false, 3), play(1, false, 5)], { review: { accepted: true, reason: 'ok', by: 'm' } }, { designerReply: { tokens: 1000, finishReason: 'stop' } }),
    evaluation('b', [play(0, false, 1), play(0, false, 1)], { review: { accepted: true, reason: 'ok', by: 'm' } }, { designerReply: { tokens: 3000, finishReason: 'length' } }),
    evaluation('c', [play(0.5, false, 2), play(1, false, 4)], { review: { accepted: true, reason: 'ok', by: 'm' } }, { designerReply: { tokens: 2000, finishReason: 'stop' } }),
    evaluation('d', [], { verdict: 'valid', review: { accepted: false, reason: 'fatal bug', by: 'm' } }, { designerReply: { tokens: 500, finishReason: 'stop' } }),
  ];
  const programs = [...evaluations.map((e) => e.program), { id: 'e', language: 'javascript', source: '', designError: { errorClass: 'provider:connection', message: 'down' } } as EnvironmentProgram];
  const { figures, missing } = roundLog(programs, evaluations);
  // a: all won (one reward, all positive); b: all 0 (one reward, all zero); c: two rewards.
  near(figures.zeroVarianceShare, 2 / 3, 'zero-variance groups');
  near(figures.allZeroShare, 1 / 3, 'all-zero groups');
  near(figures.allPositiveShare, 2 / 3, 'all-positive groups');
  near(figures.meanTurns, (3 + 5 + 1 + 1 + 2 + 4) / 6, 'mean turns');
  // Four programs made (the errored slot made none), three accepted.
  near(figures.validationPassRate, 3 / 4, 'pass rate');
  near(figures.validatorRejectionRate, 1 / 4, 'validator rejections');
  near(figures.designerResponseTokens, 1625, 'mean reply tokens');
  near(figures.designerResponseTokensMax, 3000, 'most reply tokens');
  near(figures.designerTruncatedShare, 1 / 4, 'truncated replies');
  // No hinted play: no regret figures, each null with its reason; the bands are there.
  for (const key of ['rHint', 'rNoHint'] as const) {
    assert.is(figures[key], null, key);
    assert.match(missing[key] ?? '', /had a hinted play/, key);
  }
  near(figures.easyShare, 1 / 3, 'easy');
});

test('what a round cannot give is null with a reason, never 0; every figure has a SPADE name', () => {
  const evaluations = [evaluation('a', [play(1, false), play(0, false)])];
  const { figures, missing } = roundLog(evaluations.map((e) => e.program), evaluations, { hinted: false });
  for (const key of ['rHint', 'rNoHint', 'meanRegret', 'flooredShare', 'validatorRejectionRate', 'designerResponseTokens', 'designerResponseTokensMax', 'designerTruncatedShare'] as const) {
    assert.is(figures[key], null, key);
    assert.ok((missing[key] ?? '').length > 10, `${key} says why`);
  }
  assert.match(missing.rHint!, /without a hint/);
  assert.match(missing.validatorRejectionRate!, /--reviewer/);
  assert.match(missing.designerResponseTokens!, /no reply length/);
  near(figures.stepTimeoutShare, 0, 'no timeout');
  assert.equal(Object.keys(figures).sort(), [...ROUND_LOG_KEYS].sort());
  for (const key of ROUND_LOG_KEYS) assert.ok(ROUND_LOG_FIGURES[key].spade.length > 0, key);
  for (const [key, value] of Object.entries(figures)) assert.ok(value !== null || missing[key as keyof typeof missing], `${key}: null without a reason`);
  // Nothing played at all: every figure of the plays is null.
  const empty = roundLog([], []);
  assert.is(empty.figures.meanTurns, null);
  assert.is(empty.figures.easyShare, null);
  assert.is(empty.figures.validationPassRate, null);
  // Designed, but no slot ended with a design (its calls failed): said so, not laid on the reference designer.
  const failed = roundLog(evaluations.map((e) => e.program), []);
  assert.is(failed.missing.designerResponseTokens, 'no slot of the round ended with a design (its calls failed)');
});

test("a slot designed afresh: the reply it ended with counts, and a slot that errored is out of the pass rate", () => {
  // Slot 0's first design was cut at its token limit and rejected; its second design was played.
  const first: EnvironmentProgram = { id: 'r0-e0', language: 'javascript', source: '', meta: { params: { designerReply: { tokens: 16384, finishReason: 'length' } } } };
  const resampled = evaluation('r0-e0-s2', [play(1, false), play(0, false)], {}, { repairOf: 'r0-e0', repairAttempt: 1, designerReply: { tokens: 700, finishReason: 'stop' } });
  // Slot 1 was designed (its reply recorded) but its hint call errored: no result.
  const errored: EnvironmentProgram = { id: 'r0-e1', language: 'javascript', source: '', meta: { params: { designerReply: { tokens: 900, finishReason: 'stop' } } } };
  const { figures } = roundLog([first, errored], [resampled]);
  near(figures.designerResponseTokens, (700 + 900) / 2, 'mean reply tokens: the final replies');
  near(figures.designerResponseTokensMax, 900, 'most reply tokens');
  near(figures.designerTruncatedShare, 0, 'the cut reply was not the slot\'s last');
  near(figures.validationPassRate, 1, 'the errored slot is left out');
});

test("SPADE's validator rejection rate: every check since the run began, resampled rejections and the reset gate's included", () => {
  const review = (accepted: boolean) => ({ accepted, reason: accepted ? 'ok' : 'unwinnable', by: 'm' });
  // Round 0: one slot rejected by the validator twice, then accepted; one rejected at the end.
  const round0 = [
    evaluation('r0-e0-s3', [play(1, false)], { review: review(true), repairs: [{ id: 'r0-e0', reason: 'review', resampled: true }, { id: 'r0-e0-s2', reason: 'review', resampled: true }] }),
    evaluation('r0-e1', [], { review: review(false) }),
  ];
  // Round 1: one accepted after a reset-gate rejection; one ended on the reset gate (no review); one gate failure (not the validator's).
  const round1 = [
    evaluation('r1-e0-s2', [play(0, false)], { review: review(true), repairs: [{ id: 'r1-e0', reason: 'reset-gate', resampled: true }] }),
    evaluation('r1-e1', [], { verdict: 'invalid', reason: 'reset-gate' }),
    evaluation('r1-e2', [], { verdict: 'invalid', reason: 'syntax' }),
  ];
  assert.equal(validatorCounts(round0), { accepted: 1, rejected: 3 });
  assert.equal(validatorCounts(round1), { accepted: 1, rejected: 2 });
  const first = roundLog(round0.map((e) => e.program), round0, { validator: { accepted: 1, rejected: 3 } });
  near(first.figures.validatorRejectionRateRun, 3 / 4, 'round 0, SPADE\'s count');
  near(first.figures.validatorRejectionRate, 1 / 2, 'round 0, final reviews');
  const second = roundLog(round1.map((e) => e.program), round1, { validator: { accepted: 2, rejected: 5 } });
  near(second.figures.validatorRejectionRateRun, 5 / 7, 'round 1, since the run began');
  near(second.figures.validatorRejectionRate, 0, 'round 1, its one final review accepted');
  // No validator in the run: null, saying so; one with nothing checked yet: null, saying that.
  assert.match(roundLog([], []).missing.validatorRejectionRateRun!, /--reviewer/);
  assert.match(roundLog([], [], { validator: { accepted: 0, rejected: 0 } }).missing.validatorRejectionRateRun!, /nothing has reached/);
});

test.run();
