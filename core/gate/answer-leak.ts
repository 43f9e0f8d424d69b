/**
 * Whether a task's observation gives its answer away. A number of the instructions can equal
 * the answer by coincidence at one seed ("you have 10 attempts" when the answer is 10), so the
 * answer counts as leaked only when the observation reveals it at most of the seeds tried: at a
 * seed, the observation holds that seed's answer (boxed, or as a whole token of two or more
 * characters) and not the different answers of the other seeds (an observation that lists every
 * possible answer, "answer yes or no", reveals none of them). Nor does a number that every seed's
 * text shows whatever the task is: when the tasks differ from seed to seed, the times the answer
 * shows in every one of them are part of the fixed instructions ("you have 10 attempts" with an
 * answer of 10 at every seed), and only a showing beyond those reveals it.
 */

/** True when the answer shows in the text: boxed, or as a whole token of two or more characters. */
export function leaksAnswer(text: string, solution: string): boolean {
  const answer = solution.trim();
  if (!answer) return false;
  if (text.includes(`\\boxed{${answer}}`)) return true;
  if (answer.length < 2 || !text.includes(answer)) return false;
  const escaped = answer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'u').test(text);
}

/** How many times the answer shows in the text: boxed, or as a whole token of two or more characters. */
export function answerShowings(text: string, solution: string): number {
  const answer = solution.trim();
  if (!answer) return 0;
  const escaped = answer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const boxedCount = text.split(`\\boxed{${answer}}`).length - 1;
  if (answer.length < 2) return boxedCount;
  return Math.max(boxedCount, (text.match(new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'gu')) ?? []).length);
}

/** One seed's task: its first observation and its answer. */
export interface SeededTask {
  seed: number;
  observation: string;
  answer: string;
}

/** The seeds at which the observation reveals the answer (see the module's comment). */
export function revealingSeeds(tasks: readonly SeededTask[]): number[] {
  // Tasks that differ from seed to seed: what every one of them shows is fixed text.
  const varied = new Set(tasks.map((t) => t.observation)).size > 1;
  const fixed = (answer: string): number => (varied ? Math.min(...tasks.map((t) => answerShowings(t.observation, answer))) : 0);
  return tasks
    .filter((task) => {
      if (!leaksAnswer(task.observation, task.answer)) return false;
      if (answerShowings(task.observation, task.answer) <= fixed(task.answer)) return false;
      const others = tasks.map((t) => t.answer.trim()).filter((a) => a !== task.answer.trim());
      return !others.some((other) => leaksAnswer(task.observation, other));
    })
    .map((task) => task.seed);
}

/** Leaked: revealed at more than half of the seeds tried. */
export function answerLeaked(tasks: readonly SeededTask[]): boolean {
  return revealingSeeds(tasks).length * 2 > tasks.length;
}
