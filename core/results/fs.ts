/**
 * File-system helpers for outputs that must never be half-written.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * A folder and the folders above it that are missing (mkdir -p), made one by one. Node's own
 * recursive mkdir loops forever where making a folder fails with ENOENT under one that exists
 * (under /proc, `--out /proc/self/x` spun at 100% CPU); here that is an error naming the folder.
 */
export function makeFolder(dir: string, mode?: number): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  for (; !existsSync(at) && path.dirname(at) !== at; at = path.dirname(at)) missing.unshift(at);
  // A file where a folder of the path goes: named, rather than met later by the file written into it.
  if (existsSync(at) && !statSync(at).isDirectory()) {
    throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', syscall: 'mkdir', path: path.isAbsolute(dir) ? at : path.relative(process.cwd(), at) });
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, mode === undefined ? undefined : { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** Write `data` to `file` atomically: a temporary file in the same folder, fsync, rename. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  makeFolder(path.dirname(file));
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
  putInPlace(tmp, file);
}

/** The temporary file renamed onto its name; when that fails (the name is a folder), it is removed. */
function putInPlace(tmp: string, file: string): void {
  try {
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/**
 * Text written to a file through one buffer that is kept: pieces are encoded into it and go out
 * in one write() per 64 KiB (and at flush()), so no string of them is joined and no buffer is
 * made per write (Node would make one, of the whole text, for a string given to write()). A
 * piece that cannot fit in the buffer is written on its own. Each piece is encoded on its own:
 * a piece does not end inside a surrogate pair.
 */
export class EncodedWrites {
  private readonly buffer = Buffer.allocUnsafeSlow(65536);
  private used = 0;

  /** Add `text` (and a newline after it, in the same write, with `line`); returns its bytes. */
  write(fd: number, text: string, line = false): number {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    const most = text.length * 3 + (line ? 1 : 0);
    if (this.used + most > this.buffer.length) this.flush(fd);
    if (most > this.buffer.length) return writeSync(fd, line ? `${text}\n` : text);
    const bytes = this.buffer.write(text, this.used);
    if (line) this.buffer[this.used + bytes] = 0x0a;
    this.used += bytes + (line ? 1 : 0);
    return bytes + (line ? 1 : 0);
  }

  /** Write what is in the buffer. */
  flush(fd: number): void {
    if (this.used === 0) return;
    const used = this.used;
    // Emptied first: a failed write leaves nothing to write again.
    this.used = 0;
    writeSync(fd, this.buffer, 0, used);
  }
}

/**
 * A file written in pieces, atomically: the pieces go to a temporary file in the same folder
 * (through EncodedWrites), which commit() syncs and renames onto the file. Nothing of a file
 * being written is ever seen under its name.
 */
export class AtomicFile {
  private readonly tmp: string;
  private fd: number | undefined;
  private readonly out = new EncodedWrites();

  constructor(readonly file: string) {
    makeFolder(path.dirname(file));
    this.tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
    this.fd = openSync(this.tmp, 'w');
  }

  write(text: string): void {
    if (this.fd !== undefined) this.out.write(this.fd, text);
  }

  /** Write what is pending, sync, and put the file in place. */
  commit(): void {
    this.out.flush(this.fd!);
    fsyncSync(this.fd!);
    closeSync(this.fd!);
    this.fd = undefined;
    putInPlace(this.tmp, this.file);
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
 * go out together as that turn ends (and at the process's exit), one write() per 64 KiB of
 * them, rather than one write() each: a run adds one per task, thousands of writes that cost
 * more than the lines. The file is
 * opened on the first line, by `open` (which may create its folder). A log that cannot be
 * opened or written drops its lines: for a cache, a lost line is only a miss later.
 */
export class CacheLog {
  private fd: number | undefined;
  private failed = false;
  private pending: { line: string; written?: Written }[] = [];
  private readonly out = new EncodedWrites();
  /** Bytes in the file: where the next line starts (a log this process alone appends to). */
  private size = 0;

  constructor(private readonly open: () => number) {}

  /**
   * Append `line` (without its newline). `written`, for a log no other process appends to, is
   * told where the line is in the file once it is written there.
   */
  add(line: string, written?: Written): void {
    if (this.failed) return;
    this.pending.push(written ? { line, written } : { line });
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
    const lines = this.pending;
    this.pending = [];
    let fd: number;
    const places: [Written, number, number][] = [];
    try {
      if (this.fd === undefined) {
        this.fd = this.open();
        this.size = fstatSync(this.fd).size;
      }
      fd = this.fd;
      // Writes of whole lines (one per 64 KiB): a reader sees each line whole, or not yet.
      for (const { line, written } of lines) {
        const bytes = this.out.write(fd, line, true);
        if (written) places.push([written, this.size, bytes - 1]);
        this.size += bytes;
      }
      this.out.flush(fd);
    } catch {
      this.failed = true;
      return;
    }
    for (const [written, start, length] of places) written(fd, start, length);
  }
}

/** Told where a log's line went: its file's descriptor, the line's first byte and its length (without the newline). */
export type Written = (fd: number, start: number, length: number) => void;
