import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designerReward, learnabilityReward, plateau, spadeDesignerReward, uncertaintyReward } from '../../index.js';

const near = (actual: number, expected: number, what: string): void =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: expected ${expected}, got ${actual}`);

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
  // custom band [0.2, 0.3], ramp 0.1: 0.35 is 0.05 above → 0.5
  near(plateau(0.35, { lo: 0.2, hi: 0.3, ramp: 0.1 }), 0.5, 'custom band');
});

test('spadeDesignerReward: 0.4·clip(regret/0.15) + 0.6·plateau(w), −0.5 on timeout', () => {
  // regret 0.3 → clip(2) = 1 → 0.4; w = 0.5 → plateau 1 → 0.6; total 1.0
  near(spadeDesignerReward({ hintReward: 0.8, noHintReward: 0.5, winRate: 0.5, timedOut: false }), 1, 'ideal');
  // regret 0.075 → 0.5 → 0.2; w = 0.3 → plateau 0.6 → 0.36; total 0.56
  near(spadeDesignerReward({ hintReward: 0.375, noHintReward: 0.3, winRate: 0.3, timedOut: false }), 0.56, 'partial');
  // negative regret clipped to 0; w = 0.9 → plateau 0 → 0
  near(spadeDesignerReward({ hintReward: 0.7, noHintReward: 0.9, winRate: 0.9, timedOut: false }), 0, 'too easy, hint hurts');
  near(spadeDesignerReward({ hintReward: 1, noHintReward: 0, winRate: 0.5, timedOut: true }), -0.5, 'timeout');
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

test('designerReward picks the configured reward', () => {
  const input = { hintReward: 0.6, noHintReward: 0.3, winRate: 0.3, timedOut: false };
  near(designerReward('spade', input), spadeDesignerReward(input), 'spade');
  near(designerReward('solve-rate', input), plateau(0.3), 'solve-rate');
  near(designerReward('learnability', input), 0.7, 'learnability');
  near(designerReward('uncertainty', input), 0.6, 'uncertainty');
});

test.run();
