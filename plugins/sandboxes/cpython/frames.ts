/**
 * The wire format between the host and the cpython sandbox's zygote, over pipes. Requests: frames
 * of a 4-byte little-endian length followed by that many bytes of UTF-8 JSON. Replies: a 4-byte
 * length, a 4-byte request id, then the body (an environment's reply as its process wrote it).
 *
 * Everything read from the sandbox is untrusted: a frame longer than the reader's limit, or one
 * that is not JSON, is a protocol violation (the caller kills the sandbox).
 */

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message));
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32LE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private broken = false;

  constructor(
    /** The longest frame accepted. */
    private readonly maxBytes: number,
    private readonly onFrame: (frame: unknown) => void,
    private readonly onViolation: (why: string) => void,
    /** A JSON.parse reviver for the frames' bodies. */
    private readonly reviver?: (key: string, value: unknown) => unknown,
  ) {}

  push(chunk: Buffer): void {
    if (this.broken) return;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (this.buffer.length >= 4) {
      const size = this.buffer.readUInt32LE(0);
      if (size > this.maxBytes) return this.violation(`a frame of ${size} bytes, more than ${this.maxBytes}`);
      if (this.buffer.length < 4 + size) return;
      const body = this.buffer.subarray(4, 4 + size);
      this.buffer = this.buffer.subarray(4 + size);
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'), this.reviver);
      } catch {
        return this.violation('a frame that is not JSON');
      }
      this.onFrame(message);
    }
  }

  /** After a violation the stream is out of step for good: nothing more is read from it. */
  private violation(why: string): void {
    this.broken = true;
    this.buffer = Buffer.alloc(0);
    this.onViolation(why);
  }
}

/** Reads the zygote's reply frames: (request id, body) each; the body is left to the caller to check. */
export class ReplyFrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private broken = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onFrame: (id: number, body: Buffer) => void,
    private readonly onViolation: (why: string) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.broken) return;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (this.buffer.length >= 8) {
      const size = this.buffer.readUInt32LE(0);
      if (size > this.maxBytes) {
        this.broken = true;
        this.buffer = Buffer.alloc(0);
        return this.onViolation(`a frame of ${size} bytes, more than ${this.maxBytes}`);
      }
      if (this.buffer.length < 8 + size) return;
      const id = this.buffer.readUInt32LE(4);
      const body = this.buffer.subarray(8, 8 + size);
      this.buffer = this.buffer.subarray(8 + size);
      this.onFrame(id, body);
    }
  }
}
