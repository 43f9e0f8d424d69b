/**
 * Suites whose task text may not be published (Suite.privateText: GPQA's authors ask that its
 * questions not appear in plain text): what a run writes of them (journal, results, exports,
 * reports) carries each text as a hash, `sha256:<first 16 hex digits>`, never the text. The
 * model still reads the task; the suite's scores are computed as for any suite. The run's
 * --show-task-text writes the texts as they are.
 */
import { createHash } from 'node:crypto';
import type { EnvironmentProgram, EpisodeResult } from '../types.js';
import type { GateVerdict } from '../results/results.js';
import type { Evaluation } from './evaluate.js';

const STAND_IN = /^sha256:[0-9a-f]{16}$/;

/**
 * A text's stand-in where task text is private. A stand-in is its own: a resumed run reads the
 * verdicts and episodes it journaled already hashed, and hashing them again would change them.
 */
export function textHash(text: string): string {
  if (STAND_IN.test(text)) return text;
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}

/** The program as results keep it: its source replaced by a line naming the source's hash. */
function privateProgram(program: EnvironmentProgram): EnvironmentProgram {
  const hidden = `# private task text (${textHash(program.source)}); run with --show-task-text to keep it\n`;
  return { ...program, source: hidden, ...(program.meta && { meta: { ...program.meta, params: undefined } }) };
}

/** The verdict with its task text and check details hashed (a check's detail may quote the task). */
export function privateVerdict(verdict: GateVerdict): GateVerdict {
  return {
    ...verdict,
    ...(verdict.firstObservation !== undefined && { firstObservation: textHash(verdict.firstObservation) }),
    checks: verdict.checks.map((c) => (c.detail === undefined ? c : { ...c, detail: textHash(c.detail) })),
  };
}

/** A copy of the episode without the conversation, and with its steps' actions and observations hashed. */
export function privateEpisode(episode: EpisodeResult): EpisodeResult {
  const copy: EpisodeResult = { ...episode };
  delete copy.messages;
  if (copy.firstObservation !== undefined) copy.firstObservation = textHash(copy.firstObservation);
  if (copy.steps) copy.steps = copy.steps.map((s) => ({ ...s, action: textHash(s.action), observation: textHash(s.observation) }));
  return copy;
}

/** The evaluation as results keep it: program, task, checks, sample and episodes without task text. */
export function privateEvaluation(e: Evaluation): Evaluation {
  const summary = { ...e.summary, checks: privateVerdict(e.verdict).checks };
  if (summary.task !== undefined) summary.task = textHash(summary.task);
  if (summary.sample) summary.sample = { ...summary.sample, steps: summary.sample.steps.map((s) => ({ ...s, action: textHash(s.action), observation: textHash(s.observation) })) };
  const program = privateProgram(e.program);
  summary.source = program.source;
  return { ...e, program, verdict: privateVerdict(e.verdict), summary, episodes: e.episodes.map(privateEpisode) };
}
