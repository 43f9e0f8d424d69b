/**
 * The wire format between the host and the cpython sandbox's processes: frames of a 4-byte
 * little-endian length followed by that many bytes of UTF-8 JSON, over pipes.
 *
 * Everything read from the sandbox is untrusted: a frame longer than the reader's limit is a
 * protocol violation (the caller kills the sandbox), and a slot's reader can be told to skip
 * everything until a sync marker carrying a fresh nonce, so bytes an earlier process left in a
 * reused pipe can never be read as a reply.
 */

/** What an environment process writes before its first reply: SYNC + nonce + NUL. */
const SYNC = Buffer.from('\0SPADE-SYNC:');

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message));
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32LE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  /** The marker to wait for before any frame counts, when set. */
  private marker: Buffer | undefined;

  constructor(
    /** The longest frame accepted. */
    private readonly maxBytes: number,
    private readonly onFrame: (frame: unknown) => void,
    private readonly onViolation: (why: string) => void,
    /** A JSON.parse reviver for the frames' bodies. */
    private readonly reviver?: (key: string, value: unknown) => unknown,
  ) {}

  /** Drop whatever is buffered and ignore everything until SYNC + nonce + NUL. */
  expectSync(nonce: string): void {
    this.buffer = Buffer.alloc(0);
    this.marker = Buffer.concat([SYNC, Buffer.from(nonce), Buffer.from([0])]);
  }

  /** Drop whatever is buffered and ignore everything from now on (a slot no process owns). */
  ignore(): void {
    this.buffer = Buffer.alloc(0);
    this.marker = Buffer.from('\0never\0');
  }

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    if (this.marker) {
      const at = this.buffer.indexOf(this.marker);
      if (at < 0) {
        // Keep only what could still be the start of the marker.
        if (this.buffer.length > this.marker.length) this.buffer = this.buffer.subarray(this.buffer.length - this.marker.length);
        return;
      }
      this.buffer = this.buffer.subarray(at + this.marker.length);
      this.marker = undefined;
    }
    while (this.buffer.length >= 4) {
      const size = this.buffer.readUInt32LE(0);
      if (size > this.maxBytes) {
        this.buffer = Buffer.alloc(0);
        this.onViolation(`a frame of ${size} bytes, more than ${this.maxBytes}`);
        return;
      }
      if (this.buffer.length < 4 + size) return;
      const body = this.buffer.subarray(4, 4 + size);
      this.buffer = this.buffer.subarray(4 + size);
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'), this.reviver);
      } catch {
        this.onViolation('a frame that is not JSON');
        return;
      }
      this.onFrame(message);
      if (this.marker) return; // the handler re-armed the reader
    }
  }
}
