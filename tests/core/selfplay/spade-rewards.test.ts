// Every designer reward against SPADE's own code: tests/fixtures/spade-rewards/recorded.json holds
// what SPADE's reward functions (9b2b813) returned on our inputs, written once by record.py (beside it)
// with Debian's python3. The inputs include partial, negative and clamped play rewards.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  blendParts, blendRewards, designerReward, episodeReward, LearningPotential, learningPotentialRewards, plateau, regretBasedRewards,
  SPADE_BLEND_AS_RUN, SPADE_BLEND_DEFAULTS, SPADE_SOLVE_RATE, spadeDesignerReward, varianceReward, type BlendOptions, type RoundGame,
} from '../../../core/selfplay/rewards.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const recorded = JSON.parse(readFileSync(path.join(root, 'tests/fixtures/spade-rewards/recorded.json'), 'utf8'));

const near = (actual: number | undefined, expected: number, what: string, tolerance = 1e-12): void =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: SPADE gives ${expected}, we give ${actual}`);

interface RecordedGame { id: string; skill: string; rewards: number[]; r_hint: number; timeout?: boolean; turn1_valid?: boolean }
const roundGames = (games: RecordedGame[]): RoundGame[] =>
  games.map((g) => ({ id: g.id, skill: g.skill, rewards: g.rewards, hintReward: g.r_hint, timedOut: g.timeout, firstTurnValid: g.turn1_valid }));
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

test('plateau, variance term and episode reward equal SPADE\'s', () => {
  for (const { winRate, reward } of recorded.plateau) near(plateau(winRate), reward, `plateau(${winRate})`);
  for (const { rewards, reward } of recorded.variance) near(varianceReward(rewards), reward, `variance of ${rewards}`);
  for (const { rewards, terminated, reward } of recorded.episode) near(episodeReward(rewards, terminated), reward, `episode ${rewards}`);
  assert.ok(recorded.variance.some((v: { reward: number }) => v.reward > 0.5 && v.reward < 1), 'the variance vectors cover a middle value');
});

for (const [key, variance] of [['learningPotential', false], ['learningPotentialVariance', true]] as const) {
  test(`learning_potential${variance ? ' with its variance term' : ''}: three rounds, per-skill trackers at 0.98/0.85, equal SPADE's`, () => {
    const trackers = new Map<string, LearningPotential>();
    recorded.rounds.forEach((games: RecordedGame[], round: number) => {
      const { raw, centred } = learningPotentialRewards(roundGames(games), trackers, { variance });
      const want = recorded[key][round];
      assert.equal([...raw.keys()].sort(), Object.keys(want.games).sort(), `round ${round}: the games rewarded`);
      for (const [id, g] of Object.entries(want.games) as [string, { raw: number; reward: number }][]) {
        near(raw.get(id), g.raw, `round ${round} ${id} raw`);
        near(centred.get(id), g.reward, `round ${round} ${id} centred`);
      }
      for (const [skill, t] of Object.entries(want.trackers) as [string, { mu_fast: number; mu_slow: number; potential: number; signed: number }][]) {
        const mine = trackers.get(skill)!;
        near(mine.muFast!, t.mu_fast, `round ${round} ${skill} mu_fast`);
        near(mine.muSlow!, t.mu_slow, `round ${round} ${skill} mu_slow`);
        near(mine.potential(), t.potential, `round ${round} ${skill} potential`);
        near(mine.signedPotential(), t.signed, `round ${round} ${skill} signed potential`);
      }
    });
    // The baseline moved: round 2's raw rewards are not the plain distance to the round's own mean.
    assert.ok(recorded[key][2].trackers.Logic.potential > 0, 'a skill with a potential after three rounds');
  });
}

test("regret_based: floored regret, −0.5 on a step timeout, 0 for an invalid first turn, centred per skill, equal SPADE's", () => {
  recorded.rounds.forEach((games: RecordedGame[], round: number) => {
    const got = regretBasedRewards(roundGames(games));
    const want = recorded.regretBased[round];
    for (const [id, g] of Object.entries(want.games) as [string, { raw: number; reward: number }][]) {
      near(got.raw.get(id), g.raw, `round ${round} ${id} raw`);
      near(got.centred.get(id), g.reward, `round ${round} ${id} centred`);
    }
    near(got.floored, want.stats['env/proposer_floored_frac'], `round ${round} floored share`);
    near(got.timedOut, want.stats['env/proposer_step_timeout_frac'], `round ${round} timeout share`);
    // The per-environment reward named `regret` is the same raw signal.
    for (const g of roundGames(games)) {
      if (g.firstTurnValid === false) continue;
      near(designerReward('regret', { hintReward: g.hintReward!, noHintReward: mean([...g.rewards]), winRate: 0, solveRate: 0, timedOut: g.timedOut ?? false }), want.games[g.id].raw, `regret ${g.id}`);
    }
  });
});

const blendSettings = (settings: Record<string, number | boolean>): Partial<BlendOptions> => ({
  ...(settings.regret_weight !== undefined && { regretWeight: settings.regret_weight as number }),
  ...(settings.plateau_weight !== undefined && { plateauWeight: settings.plateau_weight as number }),
  ...(settings.regret_floor !== undefined && { regretFloor: settings.regret_floor as boolean }),
  ...(settings.regret_scale !== undefined && { regretScale: settings.regret_scale as number }),
  ...(settings.micro_lp_weight !== undefined && { microLpWeight: settings.micro_lp_weight as number }),
  ...(settings.frontier_weight !== undefined && { frontierWeight: settings.frontier_weight as number }),
  ...(settings.micro_lp_slope !== undefined && { microLpSlope: settings.micro_lp_slope as boolean }),
  ...(settings.micro_lp_signed !== undefined && { microLpSigned: settings.micro_lp_signed as boolean }),
});

for (const name of ['defaults', 'as-run', 'solve-rate', 'frontier']) {
  test(`blend (${name}): regret, micro-LP, plateau and frontier terms, masking and centring equal SPADE's`, () => {
    const { settings, games } = recorded.blend[name];
    const options = blendSettings(settings);
    const got = blendRewards(recorded.blendGames.map((g: { id: string; skill: string; steps: number[][]; r_hint: number }) => ({ id: g.id, skill: g.skill, steps: g.steps, hintReward: g.r_hint })), options);
    for (const [id, want] of Object.entries(games) as [string, { blend: number; regret: number; micro_lp: number; win_rate: number; frontier_penalty: number; plateau: number; masked: boolean; reward: number | null }][]) {
      const p = got.parts.get(id)!;
      // numpy's polyfit solves by least squares, our slope in closed form: equal to rounding.
      near(p.microLp, want.micro_lp, `${id} micro-LP`, 1e-9);
      near(p.blend, want.blend, `${id} blend`, 1e-9);
      near(p.regret, want.regret, `${id} regret`);
      near(p.winRate, want.win_rate, `${id} win rate`);
      near(p.frontierPenalty, want.frontier_penalty, `${id} frontier penalty`);
      near(p.plateau, want.plateau, `${id} plateau`);
      assert.is(p.masked, want.masked, `${id} masked`);
      if (want.reward === null) assert.not.ok(got.centred.has(id), `${id}: masked, not rewarded`);
      else near(got.centred.get(id), want.reward, `${id} centred`, 1e-9);
    }
  });
}

test('the named blends are the settings the recording used', () => {
  assert.equal({ ...SPADE_BLEND_DEFAULTS, ...blendSettings(recorded.blend['as-run'].settings) }, { ...SPADE_BLEND_AS_RUN });
  assert.equal({ ...SPADE_BLEND_DEFAULTS, ...blendSettings(recorded.blend['solve-rate'].settings) }, { ...SPADE_SOLVE_RATE });
});

test("`spade` and `spade-solve-rate` on one step of plays are SPADE's as-run and solve_rate blends; `solve-rate` reads the won share", () => {
  for (const g of recorded.blendGames as { id: string; steps: number[][]; r_hint: number }[]) {
    const plays = g.steps[0]!;
    const won = plays.filter((r) => r > 0).length / plays.length;
    const input = { hintReward: g.r_hint, noHintReward: mean(plays), winRate: mean(plays), solveRate: won, timedOut: false };
    near(spadeDesignerReward(input), blendParts(g.r_hint, [plays], SPADE_BLEND_AS_RUN).blend, `${g.id} spade`);
    near(designerReward('spade-solve-rate', input), blendParts(g.r_hint, [plays], SPADE_SOLVE_RATE).blend, `${g.id} spade-solve-rate`);
    near(designerReward('solve-rate', input), plateau(won), `${g.id} solve-rate`);
  }
  // Partial rewards part the two readings: plays 0.2, 0.4, 0.6, 0.8 are all won (plateau 0) but average 0.5 (plateau 1).
  const partial = { hintReward: 0.5, noHintReward: 0.5, winRate: 0.5, solveRate: 1, timedOut: false };
  near(designerReward('solve-rate', partial), 0, 'won share 1');
  near(designerReward('spade-solve-rate', partial), 1, 'mean reward 0.5');
});

test('a learning-potential tracker refuses a fast gamma not above the slow one', () => {
  assert.throws(() => new LearningPotential(0.85, 0.98), /fast gamma/);
});

test.run();
