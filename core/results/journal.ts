/**
 * The run's append-only journal (`journal.jsonl`): every environment verdict, episode and
 * round is written as one JSON line the moment it completes, so nothing finished is lost
 * when a run dies. The lines of one turn of the event loop go out in one write() (flushed to
 * the OS) as soon as that turn ends, rather than one write() each: thousands of small writes
 * cost more than the work they record (a run killed mid-turn redoes at most that turn's work
 * on --resume). At checkpoints (end of a round or suite) the pending lines are written at once
 * and synced to disk by a thread of the pool while the run goes on (the next round or suite,
 * the results files), not on the main thread: a suite's journal is megabytes, and the sync waits
 * for the disk. Closing syncs on the spot, so a closed journal is on disk.
 */
import { closeSync, existsSync, fsync, fsyncSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { GateVerdict, ReviewRecord, RoundSummary, SlotError, UsageMetrics } from './results.js';
import type { JournaledEnvironment } from './results-file.js';

/** The hint the designer model wrote for a program without hint() (`by`: its provider id), or why there is none. */
export interface HintRecord {
  hint?: string;
  error?: string;
  by: string;
}
import type { EnvironmentProgram, EpisodeResult, SandboxFailureKind } from '../types.js';

export type JournalRecord =
  | { type: 'start'; runId: string; startedAt: string; config: Record<string, unknown> }
  /** A later invocation continues the run; with `retryErrored`, errored work journaled before is done again. */
  | { type: 'resume'; at: string; journaled: number; retryErrored?: boolean }
  | { type: 'designed'; suite: string; round: number; programs: EnvironmentProgram[] }
  | { type: 'verdict'; suite: string; id: string; verdict: GateVerdict }
  | { type: 'review'; suite: string; id: string; review: ReviewRecord }
  | { type: 'hint'; suite: string; id: string; hint: HintRecord }
  | { type: 'code'; suite: string; key: string; code: string }
  | { type: 'environment'; suite: string; round?: number; environment: JournaledEnvironment }
  | { type: 'episode'; episode: EpisodeResult }
  /** A self-play slot whose repair, review or hint call failed (a design call's failure is in its `designed` record). */
  | { type: 'errored'; suite: string; error: SlotError }
  /** The model usage of a suite in this invocation so far (cumulative): a resumed run adds it to its own. */
  | { type: 'usage'; suite: string; usage: UsageMetrics }
  | { type: 'round'; suite: string; summary: RoundSummary }
  | { type: 'suite-end'; suite: string; wallSec: number }
  | { type: 'end'; finishedAt: string; complete: boolean };

export const JOURNAL_FILE = 'journal.jsonl';

/**
 * The last verdict given JSON and its text: the verdict cache stores a fresh verdict, and the
 * journal writes it, one after the other (a verdict is not changed once given). One is kept, not
 * all of a run's (their text would stay in memory as long as the verdicts do).
 */
let lastVerdict: { verdict: GateVerdict; text: string } | undefined;

/** JSON.stringify(verdict), made once when the verdict cache and the journal write it in turn. */
export function verdictJson(verdict: GateVerdict): string {
  if (lastVerdict?.verdict !== verdict) lastVerdict = { verdict, text: JSON.stringify(verdict) };
  return lastVerdict.text;
}

export class Journal {
  private fd: number | undefined;
  readonly file: string;
  /** The first write that failed (ENOSPC, EIO...): later records are not written. */
  failure: NodeJS.ErrnoException | undefined;
  /** Lines appended in this turn of the event loop, not yet written. */
  private pending: string[] = [];
  private scheduled = false;
  /** Checkpoint syncs still running on the pool: the descriptor is closed only after them. */
  private syncing = 0;
  private closeWhenSynced = false;
  private whenSynced: (() => void)[] = [];

  /** `onFailure` is told once when a write fails; appending then does nothing, so a run can stop cleanly. */
  constructor(dir: string, private readonly onFailure?: (error: NodeJS.ErrnoException) => void) {
    this.file = path.join(dir, JOURNAL_FILE);
    dropTornLine(this.file);
    this.fd = openSync(this.file, 'a');
  }

  append(record: JournalRecord): void {
    this.appendLine(JSON.stringify(record));
  }

  /**
   * A verdict, as append({ type: 'verdict', suite, id, verdict }) writes it, the verdict's JSON
   * made once with the verdict cache's line (verdictJson).
   */
  appendVerdict(suite: string, id: string, verdict: GateVerdict): void {
    this.appendLine(`{"type":"verdict","suite":${JSON.stringify(suite)},"id":${JSON.stringify(id)},"verdict":${verdictJson(verdict)}}`);
  }

  private appendLine(line: string): void {
    if (this.fd === undefined) throw new Error('journal is closed');
    if (this.failure) return;
    this.pending.push(`${line}\n`);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Write the lines appended so far. */
  flush(): void {
    this.scheduled = false;
    if (this.fd === undefined || this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    if (!this.failure) this.guard(() => writeSync(this.fd!, text));
  }

  /** Write what is pending and sync it to disk in the background. */
  checkpoint(): void {
    this.flush();
    if (this.fd === undefined || this.failure) return;
    const fd = this.fd;
    this.syncing++;
    fsync(fd, (error) => {
      this.syncing--;
      if (error && !this.failure) {
        this.failure = error;
        this.onFailure?.(error);
      }
      if (this.syncing > 0) return;
      if (this.closeWhenSynced) {
        try {
          closeSync(fd);
        } catch {
          // close() synced every line already: nothing is lost
        }
      }
      for (const resolve of this.whenSynced.splice(0)) resolve();
    });
  }

  /** Resolves when the checkpoints' background syncs are done (their failure, if any, then told). */
  settled(): Promise<void> {
    return this.syncing === 0 ? Promise.resolve() : new Promise((resolve) => this.whenSynced.push(resolve));
  }

  /** Write what is pending, sync it on the spot, and close (the descriptor once the background syncs are done). */
  close(): void {
    if (this.fd === undefined) return;
    this.flush();
    if (!this.failure) this.guard(() => fsyncSync(this.fd!));
    if (this.syncing > 0) this.closeWhenSynced = true;
    else closeSync(this.fd);
    this.fd = undefined;
  }

  private guard(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.failure = error as NodeJS.ErrnoException;
      this.onFailure?.(this.failure);
    }
  }
}

/** A process killed mid-write can leave a last line without its newline: cut it before appending. */
function dropTornLine(file: string): void {
  if (!existsSync(file)) return;
  const text = readFileSync(file);
  if (text.length === 0 || text[text.length - 1] === 0x0a) return;
  truncateSync(file, text.lastIndexOf(0x0a) + 1);
}

/** Read a journal; a torn last line (the process died mid-write) is ignored. */
export function readJournal(dir: string): JournalRecord[] {
  const file = path.join(dir, JOURNAL_FILE);
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  const records: JournalRecord[] = [];
  lines.forEach((line, i) => {
    if (!line) return;
    try {
      records.push(upgrade(JSON.parse(line) as JournalRecord));
    } catch (error) {
      if (i < lines.length - 2) throw new Error(`${file}:${i + 1}: corrupt journal line: ${(error as Error).message}`);
    }
  });
  return records;
}

/**
 * A record as this version writes it. Episodes journaled before the failure kind was a field
 * (`errorKind`) carry it only in their message (`sandbox timeout in step(): ...`): it is read
 * from there once, here, so resuming or merging an older run gives the same rewards and the
 * rest of the code tests the field.
 */
function upgrade(record: JournalRecord): JournalRecord {
  if (record.type === 'episode' && record.episode.outcome === 'errored' && record.episode.errorKind === undefined && record.episode.error) {
    const sandbox = /^sandbox ([a-z-]+)(?: in |: )/.exec(record.episode.error);
    record.episode.errorKind = sandbox ? (sandbox[1] as SandboxFailureKind) : 'agent';
  }
  return record;
}
