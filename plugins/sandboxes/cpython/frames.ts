/**
 * The wire format between the host and the cpython sandbox, over pipes. Requests to the zygote:
 * frames of a 4-byte little-endian length followed by that many bytes of UTF-8 JSON (requests on
 * an environment's channel also carry a 4-byte number after the length: channel.ts). Replies: a
 * 4-byte length, a 4-byte request id, then the body (an environment's reply as its process wrote
 * it).
 *
 * Everything read from the sandbox is untrusted: a frame longer than the reader's limit is a
 * protocol violation, and the caller checks each body.
 */

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message));
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32LE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

/** Reads reply frames: (request id, body) each; the body is left to the caller to check. */
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
