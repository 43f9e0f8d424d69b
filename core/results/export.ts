/**
 * Export a run for training, from its journal:
 *   jsonl  one line per episode, ready for RL trainers: the environment (id, code hash), the
 *          agent's messages (LLM agents), per-step rewards, how the episode ended, and the
 *          environment's designer reward and solve rates;
 *   pool   the environments the run played, in SPADE's pool layout (games/, each game's hint as
 *          games/<game>_hint.txt, manifest.jsonl, env_memory.json, checksums.sha256: see
 *          core/results/pool-layout.ts), loadable unchanged by SPADE's loader and by the
 *          `spade-pool:DIR` suite.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EnvironmentSummary } from './results.js';
import type { ChatMessage, EpisodeResult } from '../types.js';
import { hasJournal, journalRecords, JOURNAL_FILE, type JournalRecord } from './journal.js';
import { AtomicFile, writeFileAtomic, makeFolder } from './fs.js';
import { UsageError } from '../errors.js';
import { didYouMean } from '../config/suggest.js';
import { SELFPLAY_SUITE } from '../run/run.js';
import { CHECKSUMS_FILE, GAMES_FOLDER, HINT_SUFFIX, MANIFEST_FILE, MEMORY_FILE, MEMORY_MAX_RECORDS, MEMORY_SNIPPET_CHARS, checksumLine, gameFileName, gameFileText, sha256Hex, type MemoryRecord, type PoolManifestLine } from './pool-layout.js';
import { journaledEnvironments } from './results-file.js';

export type { PoolManifestLine } from './pool-layout.js';

/** `sha256:<hex>` of a program's source. */
export function codeHash(source: string): string {
  return `sha256:${createHash('sha256').update(source).digest('hex')}`;
}

export interface EpisodeLine {
  run_id: string | null;
  suite: string;
  round: number | null;
  environment_id: string;
  code_hash: string | null;
  language: string | null;
  /** single-turn, multi-turn or tool-use. */
  game_type: string | null;
  attempt: number;
  with_hint: boolean;
  seed: number;
  horizon: number;
  /** The agent's conversation (system, observations, replies); empty for agents that keep none. */
  messages: ChatMessage[];
  rewards: number[];
  total_reward: number;
  terminated: boolean;
  truncated: boolean;
  outcome: EpisodeResult['outcome'];
  turns: number;
  /** Tool-use games: the turns that were well-formed tool calls. */
  tool_calls: number | null;
  error: string | null;
  designer_reward: number | null;
  solve_rate: number | null;
  hint_solve_rate: number | null;
  input_tokens: number;
  output_tokens: number;
}

const key = (suite: string, id: string): string => `${suite}\u0000${id}`;

interface RunRecords {
  runId: string | null;
  environments: Map<string, { suite: string; summary: EnvironmentSummary }>;
  /** The hints the designer model wrote, by suite and id. */
  hints: Map<string, string>;
}

const episodeKey = (e: EpisodeResult): string => `${key(e.suite, e.environmentId)}\u0000${e.attempt}\u0000${e.withHint}`;

/**
 * What the episodes' lines need beside the episodes: the run's id, the environments' summaries,
 * and which record of each play is its last (a play done again with --retry-errored is
 * journaled twice; the last counts). One pass, without the episodes' transcripts.
 */
function scan(records: Iterable<JournalRecord>): RunRecords & { first: Map<string, number>; last: Map<string, number> } {
  let runId: string | null = null;
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  let ordinal = 0;
  const environmentLines: JournalRecord[] = [];
  const hints = new Map<string, string>();
  for (const r of records) {
    ordinal++;
    if (r.type === 'start') runId ??= r.runId;
    else if (r.type === 'hint' && r.hint.hint !== undefined) hints.set(key(r.suite, r.id), r.hint.hint);
    else if (r.type === 'episode') {
      const k = episodeKey(r.episode);
      if (!first.has(k)) first.set(k, ordinal);
      last.set(k, ordinal);
      // Only the sample trajectory of an environment is kept (journaledEnvironments reads it).
      if (r.episode.attempt === 0 && !r.episode.withHint && r.episode.steps) environmentLines.push({ type: 'episode', episode: { ...r.episode, messages: undefined } });
    } else if (r.type === 'code' || r.type === 'verdict' || r.type === 'environment') environmentLines.push(r);
  }
  return { runId, first, last, hints, environments: journaledEnvironments(environmentLines) };
}

function readRun(runDir: string): RunRecords {
  if (!hasJournal(runDir)) throw new UsageError(`${runDir} holds no run: ${JOURNAL_FILE} not found`);
  return scan(journalRecords(runDir));
}

/** The line of one episode. */
function episodeLine(run: RunRecords, e: EpisodeResult): EpisodeLine {
  const s = run.environments.get(key(e.suite, e.environmentId))?.summary;
  return {
    run_id: run.runId,
    suite: e.suite,
    round: e.round ?? null,
    environment_id: e.environmentId,
    code_hash: s ? codeHash(s.source) : null,
    language: s?.language ?? null,
    game_type: s?.gameType ?? null,
    attempt: e.attempt,
    with_hint: e.withHint,
    seed: e.seed,
    horizon: e.horizon,
    messages: e.messages ?? [],
    rewards: e.rewards ?? [],
    total_reward: e.totalReward,
    terminated: e.terminated ?? e.outcome === 'won',
    truncated: e.truncated ?? false,
    outcome: e.outcome,
    turns: e.turns,
    tool_calls: e.toolCalls ?? null,
    error: e.error ?? null,
    designer_reward: s?.designerReward ?? null,
    solve_rate: s?.solveRate ?? null,
    hint_solve_rate: s?.hintSolveRate ?? null,
    input_tokens: e.usage?.inputTokens ?? 0,
    output_tokens: e.usage?.outputTokens ?? 0,
  };
}

/**
 * The line of every play, in the order of their first records, each from its last record (a
 * play done again with --retry-errored is journaled twice; the last counts). `records` is read
 * two or three times (a journal's stream, or an array): for the summaries and where each play's
 * records are, for the last records of the plays journaled twice (only those are kept), and for
 * the lines. Of the transcripts, one episode at a time is in memory.
 */
function* linesOf(records: () => Iterable<JournalRecord>): Generator<EpisodeLine> {
  const run = scan(records());
  const again = new Map<string, EpisodeResult>();
  if ([...run.first].some(([k, at]) => run.last.get(k) !== at)) {
    let ordinal = 0;
    for (const r of records()) {
      ordinal++;
      if (r.type !== 'episode') continue;
      const k = episodeKey(r.episode);
      if (run.last.get(k) === ordinal && run.first.get(k) !== ordinal) again.set(k, r.episode);
    }
  }
  let ordinal = 0;
  for (const r of records()) {
    ordinal++;
    if (r.type !== 'episode') continue;
    const k = episodeKey(r.episode);
    if (run.first.get(k) === ordinal) yield episodeLine(run, again.get(k) ?? r.episode);
  }
}

/** One line per journaled episode. */
export function episodeLines(records: readonly JournalRecord[]): EpisodeLine[] {
  return [...linesOf(() => records)];
}

/**
 * Write the episodes of the run in `runDir` as JSON Lines to `file` (atomically, streamed from
 * the journal's segments), or to standard output when `file` is `-`; returns how many.
 */
export function exportEpisodes(runDir: string, file: string): number {
  if (!hasJournal(runDir)) throw new UsageError(`${runDir} holds no run: ${JOURNAL_FILE} not found`);
  // Standard output has nothing to put in place or take back.
  const out = file === '-' ? { write: (text: string) => void process.stdout.write(text), abort() {}, commit() {} } : new AtomicFile(file);
  let count = 0;
  try {
    for (const line of linesOf(() => journalRecords(runDir))) {
      out.write(`${JSON.stringify(line)}\n`);
      count++;
    }
  } catch (error) {
    out.abort();
    throw error;
  }
  out.commit();
  return count;
}

/** A file name from an environment id: letters, digits, `-`, `_` and `.` kept, the rest `_`. */
export const programFileName = (id: string, language: string): string =>
  `${id.replace(/[^\w.-]/g, '_').replace(/^\.+/, '_')}.${language === 'python' ? 'py' : 'js'}`;

/** The round and slot of a self-play environment from its id (`r2-e5`, or a repair `r2-e5-fix1`). */
const slotOf = (id: string): { round: number; index: number } | undefined => {
  const m = /^r(\d+)-e(\d+)(?:-fix\d+)?$/.exec(id);
  return m ? { round: Number(m[1]), index: Number(m[2]) } : undefined;
};

/**
 * Write the environments of `suites` (default: the self-play pool) that the run played (valid or
 * unproven under the reading that decided) into `dir` in SPADE's pool layout (core/results/pool-layout.ts):
 * `games/game_{round}_{index}_{skill}.py` (SPADE's loader reads them unchanged; JavaScript ones
 * as `.js`), the hint the designer model wrote for a game as `games/<game>_hint.txt`,
 * `manifest.jsonl`, `env_memory.json` (SPADE's environment memory over the played games: each
 * one's path, skill, first 2,000 characters, win rate without the hint, regret and round, the last
 * 200) and `checksums.sha256` (every file written). An environment the LLM reviewer rejected is
 * left out. Returns the manifest.
 */
export function exportPool(runDir: string, dir: string, suites: readonly string[] = [SELFPLAY_SUITE]): PoolManifestLine[] {
  const run = readRun(runDir);
  const known = [...new Set([...run.environments.values()].map((e) => e.suite))];
  const unknown = suites.filter((suite) => !known.includes(suite));
  if (unknown.length) {
    throw new UsageError(`${runDir} has no environments of ${unknown.map((s) => `"${s}"`).join(', ')} (its suites: ${known.join(', ') || 'none'}): name those to export with --suites.${didYouMean(unknown[0]!, known)}`);
  }
  // Into a new or empty folder: games already there would be read back with the pool.
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`${dir} is a file: a pool is exported into a new or empty folder`);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new UsageError(`${dir} is not empty: a pool is exported into a new or empty folder (its games/ would mix with what is there)`);
  makeFolder(path.join(dir, GAMES_FOLDER));
  const manifest: PoolManifestLine[] = [];
  const memory: MemoryRecord[] = [];
  const written: { file: string; sha256: string }[] = [];
  const taken = new Set<string>();
  const perRound = new Map<number, number>();
  for (const { suite, summary: s } of run.environments.values()) {
    if (!suites.includes(suite) || s.verdict === 'invalid' || s.review?.accepted === false) continue;
    const slot = slotOf(s.id);
    const round = slot?.round ?? s.round ?? 0;
    let index = slot?.index ?? perRound.get(round) ?? 0;
    perRound.set(round, Math.max(perRound.get(round) ?? 0, index + 1));
    let name = gameFileName(round, index, s.skill, s.language);
    while (taken.has(name)) name = gameFileName(round, ++index, s.skill, s.language);
    taken.add(name);
    const text = gameFileText(s.source, s.language);
    const file = `${GAMES_FOLDER}/${name}`;
    writeFileSync(path.join(dir, file), text);
    written.push({ file, sha256: sha256Hex(text) });
    const hint = s.designerHint ?? run.hints.get(key(suite, s.id));
    let hintFile: string | null = null;
    if (hint !== undefined) {
      hintFile = `${file.replace(/\.(py|js)$/, '')}${HINT_SUFFIX}`;
      writeFileSync(path.join(dir, hintFile), hint);
      written.push({ file: hintFile, sha256: sha256Hex(hint) });
    }
    if (s.solveRate !== undefined) {
      memory.push({
        game_file: file,
        skill: s.skill ?? '',
        code_snippet: text.slice(0, MEMORY_SNIPPET_CHARS),
        actor_win_rate: s.solveRate,
        regret: s.hintMeanReward !== undefined && s.meanReward !== undefined ? s.hintMeanReward - s.meanReward : 0,
        rollout_id: s.round ?? 0,
        metadata: { id: s.id, suite },
      });
    }
    manifest.push({
      game_id: name.replace(/\.(py|js)$/, ''),
      file_name: file,
      skill: s.skill ?? null,
      sha256: sha256Hex(text),
      id: s.id,
      suite,
      round: s.round ?? null,
      index,
      language: s.language,
      game_type: s.gameType,
      spade_verdict: s.readings?.spade.verdict ?? null,
      strict_verdict: s.readings?.strict.verdict ?? null,
      task: s.task ?? null,
      solve_rate: s.solveRate ?? null,
      hint_solve_rate: s.hintSolveRate ?? null,
      designer_reward: s.designerReward ?? null,
      hint_file: hintFile,
    });
  }
  writeFileAtomic(path.join(dir, MANIFEST_FILE), manifest.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const memoryText = `${JSON.stringify(memory.slice(-MEMORY_MAX_RECORDS), null, 2)}\n`;
  writeFileAtomic(path.join(dir, MEMORY_FILE), memoryText);
  written.push({ file: MEMORY_FILE, sha256: sha256Hex(memoryText) });
  writeFileAtomic(path.join(dir, CHECKSUMS_FILE), written.map((w) => `${checksumLine(w.sha256, w.file)}\n`).join(''));
  return manifest;
}
