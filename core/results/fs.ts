/**
 * File-system helpers for outputs that must never be half-written.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Write `data` to `file` atomically: a temporary file in the same folder, fsync, rename. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    // A string is handed over as it is (Node encodes it for the call): no Buffer of it is made.
    if (typeof data === 'string') writeSync(fd, data);
    else writeSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(tmp, file);
}

/**
 * A file written in pieces, atomically: the pieces go to a temporary file in the same folder
 * (encoded into one buffer, so that small pieces cost one write per 64 KiB and no string of
 * them is made), which commit() syncs and renames onto the file. Nothing of a file being
 * written is ever seen under its name. Each piece is encoded on its own: a piece does not end
 * inside a surrogate pair.
 */
export class AtomicFile {
  private readonly tmp: string;
  private fd: number | undefined;
  private readonly buffer = Buffer.allocUnsafeSlow(65536);
  private used = 0;

  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
    this.fd = openSync(this.tmp, 'w');
  }

  write(text: string): void {
    if (this.fd === undefined) return;
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    if (this.used + text.length * 3 > this.buffer.length) this.flush();
    if (text.length * 3 > this.buffer.length) writeSync(this.fd, text);
    else this.used += this.buffer.write(text, this.used);
  }

  private flush(): void {
    if (this.fd === undefined || this.used === 0) return;
    writeSync(this.fd, this.buffer, 0, this.used);
    this.used = 0;
  }

  /** Write what is pending, sync, and put the file in place. */
  commit(): void {
    this.flush();
    fsyncSync(this.fd!);
    closeSync(this.fd!);
    this.fd = undefined;
    renameSync(this.tmp, this.file);
  }

  /** Drop the temporary file (after a failure). */
  abort(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.tmp, { force: true });
  }
}

/** Line logs with lines not yet written, written out when the process exits. */
const unwritten = new Set<CacheLog>();
let exitHooked = false;

/** Write every cache log's pending lines now: before this process reads a cache folder again, and when a provider closes. */
export function flushCacheLogs(): void {
  for (const log of unwritten) log.flush();
}

/**
 * An append-only log of whole lines for a cache: the lines added in one turn of the event loop
 * go out in one write() as that turn ends (and at the process's exit), rather than one write()
 * each: a run adds one per task, thousands of writes that cost more than the lines. The file is
 * opened on the first line, by `open` (which may create its folder). A log that cannot be
 * opened or written drops its lines: for a cache, a lost line is only a miss later.
 */
export class CacheLog {
  private fd: number | undefined;
  private failed = false;
  private pending: string[] = [];

  constructor(private readonly open: () => number) {}

  /** Append `line` (without its newline). */
  add(line: string): void {
    if (this.failed) return;
    this.pending.push(`${line}\n`);
    if (this.pending.length > 1) return;
    unwritten.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', flushCacheLogs);
    }
    setImmediate(() => this.flush());
  }

  /** Write the lines added so far. */
  flush(): void {
    unwritten.delete(this);
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    try {
      this.fd ??= this.open();
      // One write of whole lines: a reader sees each line whole, or not yet.
      writeSync(this.fd, text);
    } catch {
      this.failed = true;
    }
  }
}
