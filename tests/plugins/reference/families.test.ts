/** Every reference family writes programs that keep SPADE's contract and are fair, verifiable tasks. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAMILIES } from '../../../plugins/reference/families/index.js';
import { loadProgram, referenceWins, type PlainEnvironment } from './load-program.js';

const DIFFICULTIES = [1, 5, 10];
const SEEDS = [0, 1, 2];

/** A wrong answer that is close to the right one. */
function nearMiss(solution: string): string {
  if (/^\d+$/.test(solution)) return solution.slice(0, -1) + String((Number(solution.at(-1)) + 1) % 10);
  if (/^[A-Z]+$/.test(solution)) return solution.length > 1 ? solution.slice(1) : solution === 'A' ? 'B' : 'A';
  const words = solution.split(' ');
  return words[0] === words[1] ? ['zzz', ...words.slice(1)].join(' ') : [words[1], words[0], ...words.slice(2)].join(' ');
}

/** What the task is: the first observation plus the hint (Mastermind's first observation is the same for every secret). */
function taskText(make: () => PlainEnvironment, seed: number): string {
  const env = make();
  return env.reset(seed)[0] + env.hint();
}

for (const family of FAMILIES) {
  test(`${family.name}: the source is plain, self-contained JavaScript with no clock or host randomness`, () => {
    const source = family.program(5);
    assert.not.match(source, /Math\.random|Date|require\(|import |process\.|globalThis/);
    assert.match(source, /export default \w+;\s*$/);
  });

  for (const difficulty of DIFFICULTIES) {
    const make = loadProgram(family.program(difficulty));

    test(`${family.name} d${difficulty}: the same seed gives the same episode, another seed another`, () => {
      const a = make().reset(7);
      const b = make().reset(7);
      assert.equal(a, b);
      assert.is(a[1].horizon, family.horizon(difficulty));
      assert.ok(new Set(SEEDS.map((s) => taskText(make, s))).size > 1);
      assert.is.not(taskText(loadProgram(family.program(difficulty, 99)), 7), taskText(make, 7), 'variant changes the task');
    });

    test(`${family.name} d${difficulty}: reset(seed) after play starts afresh (kept tasks are copies)`, () => {
      const env = make();
      const first = env.reset(5);
      const reference = referenceWins(() => env, 5);
      assert.ok(reference.won);
      // Played through to the win (state changed); the same seed again gives the untouched start,
      // and so does the same seed after another one.
      assert.equal(env.reset(5), first);
      env.reset(6);
      assert.equal(env.reset(5), first);
      assert.equal(referenceWins(() => env, 5), reference);
    });

    test(`${family.name} d${difficulty}: SPADE's smoke test and odd input never throw`, () => {
      const env = make();
      assert.not.throws(() => env.step('1'), 'step before reset');
      env.reset(3);
      for (const action of ['1', '2', 'test', '\\boxed{', '\\boxed{}', '\\boxed{\\boxed{?}}', 'x'.repeat(10_000)]) {
        const [observation, reward, terminated, truncated] = env.step(action);
        assert.type(observation, 'string');
        assert.ok(reward <= 0, `no reward for ${action.slice(0, 20)}`);
        assert.type(terminated, 'boolean');
        assert.type(truncated, 'boolean');
      }
    });

    test(`${family.name} d${difficulty}: the reference wins, the hint is given, the answer does not leak`, () => {
      for (const seed of SEEDS) {
        assert.ok(referenceWins(make, seed).won, `seed ${seed}`);
        const env: PlainEnvironment = make();
        const [observation] = env.reset(seed);
        assert.ok(env.hint().length > 10, 'hint present');
        if (env.solution) assert.not.ok(observation.includes(env.solution()), `observation contains ${env.solution()}`);
      }
    });

    test(`${family.name} d${difficulty}: a wrong answer or aimless play loses`, () => {
      for (const seed of SEEDS) {
        const env = make();
        env.reset(seed);
        if (family.toolUse) {
          // A wrong answer does not end a tool-use game; talk without tools or an answer costs 0.1 a turn.
          const [feedback, reward, terminated] = env.step('<answer>not it</answer>');
          assert.equal([reward, terminated], [0, false]);
          assert.match(feedback, /^Incorrect\. Keep using tools\./);
          let last: [string, number, boolean, boolean, Record<string, unknown>] | undefined;
          for (let turn = 1; turn < family.horizon(difficulty) && !last?.[3]; turn++) last = env.step('I pass. \\boxed{pass}');
          assert.equal([last![1], last![2], last![3]], [0, false, true], 'out of turns: truncated');
          assert.match(last![0], /Time up\. Solution:/);
          continue;
        }
        if (env.solution) {
          const [, reward, terminated] = env.step(`\\boxed{${nearMiss(env.solution())}}`);
          assert.is(reward, 0);
          assert.ok(terminated);
          continue;
        }
        let ended: [boolean, boolean] = [false, false];
        let total = 0;
        for (let turn = 0; turn < family.horizon(difficulty) && !ended[0] && !ended[1]; turn++) {
          const [, reward, terminated, truncated] = env.step('I pass. \\boxed{pass}');
          total += reward;
          ended = [terminated, truncated];
        }
        assert.is(total, 0);
        assert.equal(ended, [false, true], 'out of turns: truncated');
      }
    });
  }
}

test('there are at least 8 families, 3 of them multi-turn with horizons of 32 or more, 3 of them tool-use games', () => {
  assert.ok(FAMILIES.length >= 8);
  assert.ok(FAMILIES.filter((f) => f.toolUse).length >= 3);
  const long = FAMILIES.filter((f) => f.multiTurn && f.horizon(10) >= 32);
  assert.ok(long.length >= 3, long.map((f) => f.name).join(', '));
  assert.is(new Set(FAMILIES.map((f) => f.title)).size, FAMILIES.length, 'titles tell families apart');
});

/** [right place, right digit in the wrong place] of a guess against a code, counted plainly. */
function feedback(code: string, guess: string): [number, number] {
  let exact = 0;
  const left = new Map<string, number>();
  for (let i = 0; i < code.length; i++) {
    if (code[i] === guess[i]) exact++;
    left.set(code[i]!, (left.get(code[i]!) ?? 0) + 1);
  }
  let common = 0;
  for (const digit of guess) if ((left.get(digit) ?? 0) > 0) { left.set(digit, left.get(digit)! - 1); common++; }
  return [exact, common - exact];
}

test('lock-clues: the clues leave exactly the answer among all codes (checked by brute force)', () => {
  const family = FAMILIES.find((f) => f.name === 'lock-clues')!;
  for (const difficulty of [1, 4, 7, 10]) {
    const make = loadProgram(family.program(difficulty));
    for (const seed of [0, 11]) {
      const env = make();
      const [observation] = env.reset(seed);
      const [, length, top] = /a (\d)-digit code; each digit is from 0 to (\d)/.exec(observation)!.map(Number);
      const clues = [...observation.matchAll(/^ {2}(\d+): (\d) right place, (\d) wrong place$/gm)].map((m) => [m[1]!, Number(m[2]), Number(m[3])] as const);
      assert.ok(clues.length > 0 && clues.length < 30, `d${difficulty} seed ${seed}: ${clues.length} clues`);
      const left: string[] = [];
      for (let i = 0; i < (top! + 1) ** length!; i++) {
        const code = i.toString(top! + 1).padStart(length!, '0');
        if (clues.every(([guess, exact, near]) => { const [e, n] = feedback(code, guess); return e === exact && n === near; })) left.push(code);
      }
      assert.equal(left, [env.solution!()], `d${difficulty} seed ${seed}`);
    }
  }
});

test('multi-turn families set their horizon exactly when asked', () => {
  for (const family of FAMILIES.filter((f) => f.programForHorizon)) {
    for (const horizon of [8, 16, 64]) {
      const env = loadProgram(family.programForHorizon!(horizon, 5))();
      assert.is(env.reset(1)[1].horizon, horizon, family.name);
    }
  }
});

test.run();
