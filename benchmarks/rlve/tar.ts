/**
 * Just enough of the tar format for RLVE's Gym: read a gzipped tarball as a stream (a GitHub
 * archive of the whole repository is large, and only its Gym/ folder and LICENSE are kept), and
 * write the small tarball the cache holds. Reads POSIX ustar with its name prefix, pax extended
 * headers (`path`) and GNU long names; writes ustar.
 */
import { createGunzip, gzipSync } from 'node:zlib';
import { Readable } from 'node:stream';

const BLOCK = 512;

export interface TarEntry {
  /** The entry's path, as written in the archive (folders may end in `/`). */
  path: string;
  type: 'file' | 'directory' | 'other';
  /** Permission bits (0o644, 0o755...). */
  mode: number;
  /** The file's bytes, for files `keep` asked for. */
  data?: Buffer;
}

/** Bytes taken from a stream of chunks, as many as asked for at a time. */
class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private readonly iterator: AsyncIterator<Uint8Array>;
  private ended = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  private async fill(n: number): Promise<void> {
    while (this.buffered < n && !this.ended) {
      const next = await this.iterator.next();
      if (next.done) this.ended = true;
      else {
        const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
        this.chunks.push(chunk);
        this.buffered += chunk.length;
      }
    }
  }

  /** Exactly n bytes, or undefined at the end of the stream (a short read is an error). */
  async take(n: number): Promise<Buffer | undefined> {
    await this.fill(n);
    if (this.buffered === 0 && this.ended) return undefined;
    if (this.buffered < n) throw new Error(`the archive ends in the middle of an entry (${this.buffered} of ${n} bytes)`);
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  /** Drop n bytes without keeping them. */
  async skip(n: number): Promise<void> {
    while (n > 0) {
      const step = Math.min(n, 1 << 20);
      if (!(await this.take(step))) throw new Error('the archive ends in the middle of an entry');
      n -= step;
    }
  }
}

const text = (block: Buffer, start: number, length: number): string => {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('utf8');
};

function octal(block: Buffer, start: number, length: number): number {
  // GNU base-256 for large sizes: the first byte's high bit set.
  if (block[start]! & 0x80) {
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i]!;
    return value;
  }
  const digits = text(block, start, length).trim();
  return digits ? parseInt(digits, 8) : 0;
}

/** The `path` record of a pax extended header, if it has one. */
function paxPath(data: Buffer): string | undefined {
  let at = 0;
  let found: string | undefined;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(data.subarray(at, space).toString('ascii'));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (record.slice(0, equals) === 'path') found = record.slice(equals + 1);
    at += length;
  }
  return found;
}

/**
 * The entries of an (uncompressed) tar stream, in order. File data is read into memory only for
 * the paths `keep` accepts; the rest is skipped as it streams by.
 */
export async function* readTar(source: AsyncIterable<Uint8Array>, keep: (path: string) => boolean): AsyncGenerator<TarEntry> {
  const reader = new ByteReader(source);
  let longName: string | undefined;
  for (;;) {
    const header = await reader.take(BLOCK);
    if (!header || header.every((byte) => byte === 0)) return;
    const size = octal(header, 124, 12);
    const flag = String.fromCharCode(header[156]!);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (flag === 'x' || flag === 'L' || flag === 'g') {
      const body = padded ? (await reader.take(padded))!.subarray(0, size) : Buffer.alloc(0);
      if (flag === 'x') longName = paxPath(body) ?? longName;
      else if (flag === 'L') longName = body.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    const prefix = text(header, 257, 6).startsWith('ustar') ? text(header, 345, 155) : '';
    const name = longName ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    longName = undefined;
    const type = flag === '5' ? 'directory' : flag === '0' || flag === '\0' || flag === '7' ? 'file' : 'other';
    const entry: TarEntry = { path: name, type, mode: octal(header, 100, 8) & 0o7777 };
    if (type === 'file' && keep(name)) {
      entry.data = padded ? (await reader.take(padded))!.subarray(0, size) : Buffer.alloc(0);
    } else if (padded) await reader.skip(padded);
    yield entry;
  }
}

/** The entries of a gzipped tarball, from a stream of its (compressed) bytes. */
export function readTarGz(compressed: AsyncIterable<Uint8Array>, keep: (path: string) => boolean): AsyncGenerator<TarEntry> {
  const source = Readable.from(compressed);
  const gunzip = createGunzip();
  // A failure of the source (a dropped download) reaches the reader through the gunzip stream.
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  return readTar(gunzip, keep);
}

function header(name: string, size: number, mode: number, type: '0' | '5'): Buffer {
  const block = Buffer.alloc(BLOCK);
  let base = name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    // ustar: the path is split at a slash into a prefix (at most 155 bytes) and a name (100).
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (cut < 0 || Buffer.byteLength(base) > 100 || Buffer.byteLength(prefix) > 155) throw new Error(`path too long for a ustar archive: ${name}`);
  }
  block.write(base, 0, 100, 'utf8');
  block.write(`${mode.toString(8).padStart(7, '0')}\0`, 100, 'ascii');
  block.write('0000000\0', 108, 'ascii');
  block.write('0000000\0', 116, 'ascii');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  block.write('00000000000\0', 136, 'ascii');
  block.write(type, 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** A gzipped ustar archive of these files (folders are written before what they hold). */
export function writeTarGz(files: readonly { path: string; data: Buffer; mode?: number }[]): Buffer {
  const parts: Buffer[] = [];
  const folders = new Set<string>();
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const segments = file.path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const folder = `${segments.slice(0, i).join('/')}/`;
      if (folders.has(folder)) continue;
      folders.add(folder);
      parts.push(header(folder, 0, 0o755, '5'));
    }
    parts.push(header(file.path, file.data.length, file.mode ?? 0o644, '0'), file.data);
    const pad = (BLOCK - (file.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts), { level: 9 });
}
