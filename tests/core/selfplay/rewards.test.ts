import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designerReward, episodeReward, learnabilityReward, plateau, regretReward, spadeDesignerReward, uncertaintyReward } from '../../../core/selfplay/rewards.js';

const near = (actual: number, expected: number, what: string): void =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: expected ${expected}, got ${actual}`);

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

test('plateau: 1 inside [0.4, 0.6], linear to 0 at 0.25 beyond', () => {
  near(plateau(0.4), 1, 'lower edge');
  near(plateau(0.5), 1, 'middle');
  near(plateau(0.6), 1, 'upper edge');
  // 0.3 is 0.1 below 0.4: 1 - 0.1/0.25 = 0.6
  near(plateau(0.3), 0.6, '0.3');
  // 0.8 is 0.2 above 0.6: 1 - 0.2/0.25 = 0.2
  near(plateau(0.8), 0.2, '0.8');
  near(plateau(0.1), 0, '0.1 (0.3 below: clipped)');
  near(plateau(1), 0, '1');
  // SPADE's late band [0.2, 0.4], ramp 0.2: 0.5 is 0.1 above → 1 - 0.1/0.2 = 0.5
  near(plateau(0.5, { lo: 0.2, hi: 0.4, ramp: 0.2 }), 0.5, 'late band');
  near(plateau(0.35, { lo: 0.2, hi: 0.3, ramp: 0.1 }), 0.5, 'custom band');
});

test("a play's reward as SPADE reads it: the last reward clamped to [-1, 1] when it terminated, else 0", () => {
  near(episodeReward([0, 0, 1], true), 1, 'won on the third turn');
  near(episodeReward([-0.1, 0, 0], false), 0, 'truncated: 0 whatever came before');
  near(episodeReward([0, 2.5], true), 1, 'clamped from 2.5');
  near(episodeReward([-3], true), -1, 'clamped from -3');
  near(episodeReward([0.5], true), 0.5, 'a partial reward stays');
  near(episodeReward([], true), 0, 'no step');
});

// Four plays without the hint and four with it, as SPADE's blend reads them.
const plain = [episodeReward([0, 0, 1], true), episodeReward([-0.1, 0, 0], false), episodeReward([0, 2.5], true), episodeReward([-3], true)];
const hinted = [episodeReward([1], true), episodeReward([0.5], true), episodeReward([0, 0], false), episodeReward([1], true)];

test("SPADE's blend on SPADE's inputs: 0.4·clip(regret/0.15, 0, 1) + 0.6·plateau(win rate), hand-worked", () => {
  // plain: 1 + 0 + 1 - 1 = 1 over 4 = 0.25; hinted: 1 + 0.5 + 0 + 1 = 2.5 over 4 = 0.625
  near(mean(plain), 0.25, 'no-hint mean');
  near(mean(hinted), 0.625, 'hint mean');
  const input = { hintReward: mean(hinted), noHintReward: mean(plain), winRate: mean(plain), timedOut: false };
  // regret 0.375 → 0.375/0.15 = 2.5 → clip 1 → 0.4; plateau(0.25) = 1 - 0.15/0.25 = 0.4 → 0.24; total 0.64
  near(spadeDesignerReward(input), 0.64, 'default band');
  // In SPADE's late band [0.2, 0.4] (ramp 0.2) 0.25 is inside: 0.4 + 0.6 = 1
  near(spadeDesignerReward(input, { lo: 0.2, hi: 0.4, ramp: 0.2 }), 1, 'late band');
  // A small regret: 0.3 - 0.25 = 0.05 → 0.05/0.15 = 1/3 → 0.4/3; plus 0.24
  near(spadeDesignerReward({ ...input, hintReward: 0.3 }), 0.4 / 3 + 0.24, 'partial regret');
  // The hint hurting is clipped to 0: 0.6·plateau(0.25) = 0.24 only
  near(spadeDesignerReward({ ...input, hintReward: 0 }), 0.24, 'negative regret');
  // The blend has no timeout penalty: a timed-out play changes nothing here
  near(spadeDesignerReward({ ...input, timedOut: true }), 0.64, 'timeout');
});

test("SPADE's regret reward: max(0, hinted − unhinted), −0.5 on a step timeout, hand-worked", () => {
  near(regretReward({ hintReward: mean(hinted), noHintReward: mean(plain), timedOut: false }), 0.375, '0.625 - 0.25');
  near(regretReward({ hintReward: 0.25, noHintReward: 0.625, timedOut: false }), 0, 'the hint hurt: floored');
  near(regretReward({ hintReward: 1, noHintReward: 0, timedOut: true }), -0.5, 'timeout');
});

test('learnability (Absolute Zero) and uncertainty (R-Zero)', () => {
  near(learnabilityReward(0), 0, 'p=0');
  near(learnabilityReward(1), 0, 'p=1');
  near(learnabilityReward(0.25), 0.75, 'p=0.25');
  near(uncertaintyReward(0.5), 1, 'p=0.5');
  near(uncertaintyReward(0), 0, 'p=0');
  // 1 - 2·|0.8 - 0.5| = 0.4
  near(uncertaintyReward(0.8), 0.4, 'p=0.8');
});

test('designerReward picks the configured reward: spade and regret on mean rewards, the others on the solve rate', () => {
  const input = { hintReward: 0.6, noHintReward: 0.3, winRate: 0.3, solveRate: 0.5, timedOut: false };
  near(designerReward('spade', input), spadeDesignerReward(input), 'spade');
  near(designerReward('regret', input), 0.3, 'regret');
  near(designerReward('solve-rate', input), plateau(0.5), 'solve-rate');
  near(designerReward('solve-rate', input, { lo: 0.2, hi: 0.4, ramp: 0.2 }), 0.5, 'solve-rate in a configured band');
  near(designerReward('learnability', input), 0.5, 'learnability');
  near(designerReward('uncertainty', input), 1, 'uncertainty');
});

test.run();
