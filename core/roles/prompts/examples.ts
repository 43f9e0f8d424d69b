/**
 * The concrete example environment shown to the designer model, in each language: a small
 * multi-turn environment with every method of the contract (reset, step, solution-free
 * reference policy, hint), in SPADE's format.
 */
import type { Language } from '../../types.js';

const PYTHON_EXAMPLE = String.raw`import random
import re


class BinarySearchEnv:
    """Find a hidden number; after each guess the environment says higher or lower."""

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.low, self.high = 1, 200
        self.secret = rng.randint(self.low, self.high)
        self.max_turns = 9
        self.turns = 0
        self.lo, self.hi = self.low, self.high
        observation = (f"I am thinking of a whole number from {self.low} to {self.high}. "
                       f"Guess it: put one number in \\boxed{{}}. You have {self.max_turns} turns.")
        return observation, {"max_turns": self.max_turns}

    def step(self, action):
        self.turns += 1
        found = re.findall(r"\\boxed\{\s*(-?\d+)\s*\}", str(action))
        out_of_turns = self.turns >= self.max_turns
        if not found:
            return "No number found in \\boxed{}.", 0.0, False, out_of_turns, {}
        guess = int(found[-1])
        if guess == self.secret:
            return "Correct!", 1.0, True, False, {"turns": self.turns}
        direction = "higher" if guess < self.secret else "lower"
        return f"{guess} is wrong; go {direction}.", 0.0, False, out_of_turns, {}

    def reference_action(self, observation):
        found = re.match(r"(-?\d+) is wrong; go (higher|lower)", observation)
        if found:
            guess = int(found.group(1))
            if found.group(2) == "higher":
                self.lo = guess + 1
            else:
                self.hi = guess - 1
        return f"\\boxed{{{(self.lo + self.hi) // 2}}}"

    def hint(self):
        return "Halve the interval every turn: guess its middle."
`;

const JAVASCRIPT_EXAMPLE = String.raw`export default class BinarySearchEnv {
  reset(seed) {
    // Math.random is seeded from reset(seed) by the sandbox.
    this.low = 1;
    this.high = 200;
    this.secret = this.low + Math.floor(Math.random() * (this.high - this.low + 1));
    this.maxTurns = 9;
    this.turns = 0;
    this.lo = this.low;
    this.hi = this.high;
    const observation = ` + '`I am thinking of a whole number from ${this.low} to ${this.high}. Guess it: put one number in \\\\boxed{}. You have ${this.maxTurns} turns.`' + String.raw`;
    return [observation, { max_turns: this.maxTurns }];
  }

  step(action) {
    this.turns += 1;
    const found = [...String(action).matchAll(/\\boxed\{\s*(-?\d+)\s*\}/g)];
    const outOfTurns = this.turns >= this.maxTurns;
    if (found.length === 0) return ['No number found in \\boxed{}.', 0, false, outOfTurns, {}];
    const guess = Number(found[found.length - 1][1]);
    if (guess === this.secret) return ['Correct!', 1, true, false, { turns: this.turns }];
    const direction = guess < this.secret ? 'higher' : 'lower';
    return [` + '`${guess} is wrong; go ${direction}.`' + String.raw`, 0, false, outOfTurns, {}];
  }

  referenceAction(observation) {
    const found = /^(-?\d+) is wrong; go (higher|lower)/.exec(observation);
    if (found) {
      const guess = Number(found[1]);
      if (found[2] === 'higher') this.lo = guess + 1;
      else this.hi = guess - 1;
    }
    return ` + '`\\\\boxed{${Math.floor((this.lo + this.hi) / 2)}}`' + String.raw`;
  }

  hint() {
    return 'Halve the interval every turn: guess its middle.';
  }
}
`;

/** The example environment program in `language`. */
export function exampleProgram(language: Language): string {
  return language === 'python' ? PYTHON_EXAMPLE : JAVASCRIPT_EXAMPLE;
}
