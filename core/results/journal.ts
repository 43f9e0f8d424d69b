/**
 * The run's append-only journal: every environment verdict, episode and round is written as one
 * JSON line the moment it completes, so nothing finished is lost when a run dies.
 *
 * It is kept in segments. The open one is `journal.jsonl`, plain text, appended and synced as
 * described below. When it passes SEGMENT_BYTES it is closed: synced, hard-linked as
 * `journal/NNNNNN.jsonl`, and `journal.jsonl` replaced (rename) by an empty file; then, in the
 * background, the closed segment is gzipped to a temporary file, synced and renamed to
 * `journal/NNNNNN.jsonl.gz`, and its plain copy removed. Every step leaves a readable journal: a
 * killed run loses at most the open segment's unsynced tail, as with one file, and the next
 * Journal opened on the folder finishes what a killed close left undone. Readers go through
 * journalRecords(), which streams the segments in order, one segment in memory at a time; a
 * run that never closed a segment has `journal.jsonl` only.
 * The lines of one turn of the event loop go out together (one write() per 64 KiB of whole
 * lines, flushed to the OS) as soon as that turn ends, rather than one write() each: thousands of small writes
 * cost more than the work they record (a run killed mid-turn redoes at most that turn's work
 * on --resume). At checkpoints (end of a round or suite) the pending lines are written at once
 * and synced to disk by a thread of the pool while the run goes on (the next round or suite,
 * the results files), not on the main thread: a suite's journal is megabytes, and the sync waits
 * for the disk. Closing syncs on the spot, so a closed journal is on disk.
 */
import { closeSync, createReadStream, createWriteStream, existsSync, fstatSync, fsync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { constants as zlibConstants, createGzip, gunzipSync } from 'node:zlib';
import path from 'node:path';
import { EncodedWrites, makeFolder } from './fs.js';
import { DataError } from '../errors.js';
import type { EnvironmentSummary, GateVerdict, ReviewRecord, RoundSummary, SlotError, UsageMetrics } from './results.js';
import type { PlayTallyJson } from '../metrics/plays.js';

/** An environment line of the journal: no checks, task or sample (see results-file.ts's journaledEnvironments). */
export type JournaledEnvironment = Omit<EnvironmentSummary, 'source' | 'checks' | 'task' | 'sample'> & {
  source?: string;
  code?: string;
  data?: unknown[];
};

/** The hint the designer model wrote for a program without hint() (`by`: its provider id), or why there is none. */
export interface HintRecord {
  hint?: string;
  error?: string;
  by: string;
}
import type { EnvironmentProgram, EpisodeResult } from '../types.js';

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
  /** An environment's plays folded (core/metrics/plays.ts), journaled with its environment line: merge reads these, not the episodes. */
  | { type: 'plays'; suite: string; id: string; plays: PlayTallyJson }
  /** A self-play slot whose repair, review or hint call failed (a design call's failure is in its `designed` record). */
  | { type: 'errored'; suite: string; error: SlotError }
  /**
   * The model calls of a suite made outside episodes (design, hints, reviews) in this invocation so
   * far (cumulative): a resumed run adds the last of each invocation, and the `spent` of the
   * episodes it keeps, to its own. (The calls of an agent that declares no capacity, which are not
   * metered per episode, count here too.)
   */
  | { type: 'usage'; suite: string; usage: UsageMetrics }
  | { type: 'round'; suite: string; summary: RoundSummary }
  /**
   * The wall time this invocation has spent on a suite so far (cumulative), journaled with each
   * environment it evaluates, and at the suite's end (`suite-end`): a resumed run adds the last of
   * each invocation before to its own, so a suite's rates are over the time every invocation
   * spent on it.
   */
  | { type: 'clock'; suite: string; wallSec: number }
  | { type: 'suite-end'; suite: string; wallSec: number }
  | { type: 'end'; finishedAt: string; complete: boolean };

export const JOURNAL_FILE = 'journal.jsonl';
/** The folder of the closed segments, beside the open one. */
export const SEGMENTS_DIR = 'journal';
/**
 * The size past which the open segment is closed and a new one begun: 32 MiB, or
 * SPADE_BENCH_JOURNAL_SEGMENT_BYTES (tests make it small, to close segments often).
 */
export const SEGMENT_BYTES = Number(process.env.SPADE_BENCH_JOURNAL_SEGMENT_BYTES) > 0 ? Number(process.env.SPADE_BENCH_JOURNAL_SEGMENT_BYTES) : 32 * 2 ** 20;

const segmentName = (index: number): string => `${String(index).padStart(6, '0')}.jsonl`;

/** The closed segments of a journal folder, by index: whether each is gzipped, plain, or both (a close cut short). */
function closedSegments(segmentsDir: string): { index: number; gz: boolean; plain: boolean }[] {
  if (!existsSync(segmentsDir)) return [];
  const found = new Map<number, { index: number; gz: boolean; plain: boolean }>();
  for (const name of readdirSync(segmentsDir)) {
    const m = /^(\d{6})\.jsonl(\.gz)?$/.exec(name);
    if (!m) continue;
    const index = Number(m[1]);
    const entry = found.get(index) ?? { index, gz: false, plain: false };
    if (m[2]) entry.gz = true;
    else entry.plain = true;
    found.set(index, entry);
  }
  return [...found.values()].sort((a, b) => a.index - b.index);
}

/** True when `a` and `b` are one file under two names (a close killed between its link and its rename). */
function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.ino === y.ino && x.dev === y.dev;
  } catch {
    return false;
  }
}

/** Sync a folder, so that a rename or link in it survives a crash. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // a file system that cannot sync folders: the files themselves are synced
  }
}

/** Gzip a closed plain segment: temporary file, sync, rename, then the plain copy removed. */
async function compressSegment(segmentsDir: string, index: number): Promise<void> {
  const plain = path.join(segmentsDir, segmentName(index));
  const gz = `${plain}.gz`;
  const tmp = `${gz}.tmp`;
  // Chunks of 1 MiB: each is one job of libuv's pool and one turn of the event loop, which a busy
  // run gives rarely (chunks of 16 KiB, the default, left segments queued for minutes). zlib's
  // fastest level: on transcripts it compresses several times faster than the default level,
  // for files about a quarter larger, so the gzipping keeps up with a run that writes its
  // journal fast, rather than taking a core from it and making its user wait for the backlog
  // after the last episode.
  await pipeline(
    createReadStream(plain, { highWaterMark: 2 ** 20 }),
    createGzip({ chunkSize: 2 ** 20, level: zlibConstants.Z_BEST_SPEED }),
    createWriteStream(tmp, { highWaterMark: 2 ** 20 }),
  );
  const fd = openSync(tmp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, gz);
  syncDir(segmentsDir);
  rmSync(plain, { force: true });
}

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
  /** The open segment (`journal.jsonl` in the run folder). */
  readonly file: string;
  private readonly segmentsDir: string;
  private readonly segmentBytes: number;
  /** Bytes in the open segment. */
  private size: number;
  /** The index the open segment takes when it is closed. */
  private nextIndex: number;
  /** The first write that failed (ENOSPC, EIO...): later records are not written. */
  failure: NodeJS.ErrnoException | undefined;
  /** Lines appended in this turn of the event loop, not yet written (without their newlines). */
  private pending: string[] = [];
  /** What writes them: one write() per 64 KiB of whole lines, through a buffer it keeps. */
  private readonly out = new EncodedWrites();
  private scheduled = false;
  /** Checkpoint syncs still running on the pool: descriptors are closed only after them. */
  private syncing = 0;
  private closeAfterSyncs: number[] = [];
  private whenSynced: (() => void)[] = [];
  /** Closed segments being gzipped, one after another. */
  private compressing: Promise<void> = Promise.resolve();

  /**
   * `onFailure` is told once when a write fails; appending then does nothing, so a run can stop
   * cleanly. `segmentBytes` (tests) sets the size past which the open segment is closed.
   */
  constructor(dir: string, private readonly onFailure?: (error: NodeJS.ErrnoException) => void, options: { segmentBytes?: number } = {}) {
    this.file = path.join(dir, JOURNAL_FILE);
    this.segmentsDir = path.join(dir, SEGMENTS_DIR);
    this.segmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
    const closed = closedSegments(this.segmentsDir);
    const last = closed.at(-1);
    // A close killed between its link and its rename: the open segment is already the last closed one.
    if (last?.plain && sameFile(this.file, path.join(this.segmentsDir, segmentName(last.index)))) this.replaceOpenSegment();
    this.nextIndex = last ? last.index + 1 : 0;
    dropTornLine(this.file);
    this.fd = openSync(this.file, 'a');
    this.size = fstatSync(this.fd).size;
    // Closes a killed run left half done: temporary files dropped, plain copies of gzipped segments removed, the rest gzipped.
    for (const name of existsSync(this.segmentsDir) ? readdirSync(this.segmentsDir) : []) if (name.endsWith('.tmp')) rmSync(path.join(this.segmentsDir, name), { force: true });
    for (const segment of closed) {
      if (segment.gz && segment.plain) rmSync(path.join(this.segmentsDir, segmentName(segment.index)), { force: true });
      else if (segment.plain) this.compressLater(segment.index);
    }
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
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Write the lines appended so far (and close the open segment once it has grown past its size). */
  flush(): void {
    this.scheduled = false;
    if (this.fd === undefined || this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    if (this.failure) return;
    this.guard(() => {
      for (const line of lines) this.size += this.out.write(this.fd!, line, true);
      this.out.flush(this.fd!);
    });
    if (this.size >= this.segmentBytes && !this.failure) this.guard(() => this.closeSegment());
  }

  /**
   * Close the open segment: sync it, link it into the segments folder under its index, put an
   * empty open segment in its place, and gzip the closed one in the background.
   */
  private closeSegment(): void {
    const fd = this.fd!;
    fsyncSync(fd);
    makeFolder(this.segmentsDir);
    const index = this.nextIndex++;
    linkSync(this.file, path.join(this.segmentsDir, segmentName(index)));
    syncDir(this.segmentsDir);
    this.replaceOpenSegment();
    this.fd = openSync(this.file, 'a');
    this.size = 0;
    // A background sync may still hold the old descriptor.
    if (this.syncing > 0) this.closeAfterSyncs.push(fd);
    else closeSync(fd);
    this.compressLater(index);
  }

  /** An empty `journal.jsonl` put in place at once (temporary file, rename). */
  private replaceOpenSegment(): void {
    const tmp = `${this.file}.tmp`;
    closeSync(openSync(tmp, 'w'));
    renameSync(tmp, this.file);
    syncDir(path.dirname(this.file));
  }

  private compressLater(index: number): void {
    this.compressing = this.compressing.then(() =>
      compressSegment(this.segmentsDir, index).catch((error: NodeJS.ErrnoException) => {
        // The plain segment stays and reads as well: the next journal opened here gzips it again.
        if (!this.failure && error.code === 'ENOSPC') {
          this.failure = error;
          this.onFailure?.(error);
        }
      }),
    );
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
      for (const old of this.closeAfterSyncs.splice(0)) {
        try {
          closeSync(old);
        } catch {
          // synced already: nothing is lost
        }
      }
      for (const resolve of this.whenSynced.splice(0)) resolve();
    });
  }

  /** Resolves when the checkpoints' background syncs and the closed segments' compression are done (a failure, if any, then told). */
  async settled(): Promise<void> {
    if (this.syncing > 0) await new Promise<void>((resolve) => this.whenSynced.push(resolve));
    await this.compressing;
  }

  /** Write what is pending, sync it on the spot, and close (the descriptor once the background syncs are done). */
  close(): void {
    if (this.fd === undefined) return;
    this.flush();
    if (!this.failure) this.guard(() => fsyncSync(this.fd!));
    if (this.syncing > 0) this.closeAfterSyncs.push(this.fd);
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

/** How much of an episode's conversation the journal keeps (`--transcripts`). */
export type TranscriptKeep = 'full' | 'last' | 'none';

/**
 * An episode's journal record under `--transcripts`: its whole conversation (`full`), its last
 * exchange (`last`: from the last user or tool message to the end, the final prompt and reply),
 * or none. The episode itself is not changed.
 */
export function episodeRecord(episode: EpisodeResult, keep: TranscriptKeep = 'full'): JournalRecord {
  const messages = episode.messages;
  if (keep === 'full' || !messages) return { type: 'episode', episode };
  const { messages: _all, ...rest } = episode;
  void _all;
  if (keep === 'none') return { type: 'episode', episode: rest };
  let from = messages.length - 1;
  while (from > 0 && messages[from]!.role !== 'user' && messages[from]!.role !== 'tool') from--;
  return { type: 'episode', episode: { ...rest, messages: messages.slice(Math.max(0, from)) } };
}

/** A process killed mid-write can leave a last line without its newline: cut it before appending. */
function dropTornLine(file: string): void {
  if (!existsSync(file)) return;
  const text = readFileSync(file);
  if (text.length === 0 || text[text.length - 1] === 0x0a) return;
  truncateSync(file, text.lastIndexOf(0x0a) + 1);
}

/** True when `dir` holds a journal (an open segment, or closed ones). */
export function hasJournal(dir: string): boolean {
  return existsSync(path.join(dir, JOURNAL_FILE)) || closedSegments(path.join(dir, SEGMENTS_DIR)).length > 0;
}

/**
 * The journal's records in order, streamed: the closed segments (gzipped or plain), then the open
 * one, one segment in memory at a time. A torn last line of the open segment (the process died
 * mid-write) is ignored; a corrupt line anywhere else is an error naming its file and line.
 */
export function* journalRecords(dir: string): Generator<JournalRecord> {
  const segmentsDir = path.join(dir, SEGMENTS_DIR);
  const open = path.join(dir, JOURNAL_FILE);
  const closed = closedSegments(segmentsDir);
  const files = closed.map((s) => path.join(segmentsDir, segmentName(s.index) + (s.gz ? '.gz' : '')));
  // A close killed between its link and its rename: the open segment is that closed one.
  const openIsClosed = closed.length > 0 && !closed.at(-1)!.gz && sameFile(open, files.at(-1)!);
  if (existsSync(open) && !openIsClosed) files.push(open);
  for (const [n, file] of files.entries()) {
    const raw = readFileSync(file);
    const text = file.endsWith('.gz') ? gunzipSync(raw) : raw;
    const last = n === files.length - 1;
    let start = 0;
    let line = 0;
    while (start < text.length) {
      const end = text.indexOf(0x0a, start);
      line++;
      const body = text.toString('utf8', start, end < 0 ? text.length : end);
      start = end < 0 ? text.length : end + 1;
      if (!body) continue;
      let record: JournalRecord;
      try {
        record = JSON.parse(body) as JournalRecord;
      } catch (error) {
        // The last line of the open segment may be torn (the process died mid-write).
        if (last && start >= text.length) return;
        throw new DataError(file, line, `corrupt journal line (${(error as Error).message}): the journal is damaged here, so the run cannot be read past this line; keep a copy of the folder, then delete this line and those after it to resume or export what was journaled before it`);
      }
      yield record;
    }
  }
}

/** The run's `start` record (a journal's first), read without the rest. */
export function journalStart(dir: string): Extract<JournalRecord, { type: 'start' }> | undefined {
  for (const r of journalRecords(dir)) if (r.type === 'start') return r;
  return undefined;
}

/** Read a whole journal into memory (small journals; large ones are read with journalRecords()). */
export function readJournal(dir: string): JournalRecord[] {
  return [...journalRecords(dir)];
}
