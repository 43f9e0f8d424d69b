/**
 * The host's side of one environment's process in the cpython sandbox: its channel, two FIFOs
 * the zygote made for it in the jail's channel folder (the zygote's /tmp, which no environment's
 * process sees: each mounts its own /tmp over it). The host opens them and unlinks them at once,
 * which leaves two anonymous pipes between the host and that process alone; requests and
 * replies then go straight between the two, without the zygote.
 *
 * Requests are numbered; a reply must carry the number of the request it answers, come in turn
 * and fit MAX_REPLY_BYTES, or that environment's process is ended (a program can read and write
 * its own channel: it reaches nothing else). One call at a time: a request waits for the reply
 * to the one before it.
 *
 * A call's time limit is enforced here, from outside the program, on the CPU time the call
 * takes (the scheduler's account of the process, /proc/PID/schedstat), not on wall time: on a
 * busy machine an honest call may wait for a CPU much longer than it runs. When the limit has
 * passed in wall time, the call goes on for as long as it has not used its limit in CPU time,
 * up to wallCeilingMs; past that the process is killed (`kill`) and the call fails.
 */
import { closeSync, constants, openSync, readSync, unlinkSync } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import { wallCeilingMs } from '../python/environment.js';
import { reviveFloats, type LoaderFailureKind } from '../python/replies.js';
import { ReplyFrameReader } from './frames.js';
import { addressSpace } from './process-tree.js';

export type Reply =
  | { ok: true; value: unknown }
  | {
      ok: false;
      kind: LoaderFailureKind;
      message: string;
      /** The sandbox ended during the call: killed for its wall time (`timeout`), or it died (`died`). */
      lost?: 'timeout' | 'died';
      /** The environment's process ended with this call (killed, or it died): its next call needs a new one. */
      ended?: boolean;
    };

/** The longest reply accepted from an environment's process. */
export const MAX_REPLY_BYTES = 32 * 1024 * 1024;
/** A call whose process grew within this much of its memory allowance ran out of memory. */
const MEMORY_MARGIN = 8 * 1024 * 1024;
const MIB = 1024 * 1024;
const schedstatBuffer = Buffer.alloc(64);

export interface ChannelOptions {
  /** The jail's channel folder on the host, and this channel's name in it (the zygote's). */
  folder: string;
  name: string;
  /** The process's pid on the host (undefined where /proc does not show it: the wall time then stands for CPU time). */
  hostPid?: number;
  /** The address space of the zygote the process was forked from: a call's memoryMb is on top of it. */
  baselineBytes?: number;
  /** Kill the process at once (the call ran past its limit). */
  kill(): void;
  /** Its channel reached end of file: the process ended. `fail` settles the call in flight, if any. */
  closed(fail: (reply: Reply) => void): void;
}

interface Flight {
  sequence: number;
  settle(reply: Reply): void;
}

export class Channel {
  /** Undefined when the process had already ended as the host opened its channel (its reply, if any, is still read). */
  private readonly requests?: Socket;
  private readonly replies: Socket;
  /** An open /proc/PID/schedstat of the process (undefined once closed). */
  private schedstat?: number;
  private sequence = 0;
  private flight?: Flight;
  /** The last request's settled reply: the next one is written after it. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Why the channel is no longer usable, once it is not. */
  private done?: Reply;

  /** Open the channel `name` and unlink its FIFOs. */
  constructor(private readonly options: ChannelOptions) {
    const base = path.join(options.folder, options.name);
    let replies: number;
    let requests: number | undefined;
    try {
      replies = openSync(`${base}.out`, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        requests = openSync(`${base}.in`, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch (error) {
        // No reader: the process has ended already (what it wrote before, its reply to its first request, is read all the same).
        if ((error as NodeJS.ErrnoException).code !== 'ENXIO') {
          closeSync(replies);
          throw error;
        }
      }
    } finally {
      for (const end of ['in', 'out']) {
        try {
          unlinkSync(`${base}.${end}`);
        } catch {
          // the zygote unlinks them if the host never opened them
        }
      }
    }
    this.replies = new Socket({ fd: replies, readable: true, writable: false });
    this.replies.on('error', () => undefined);
    if (requests !== undefined) {
      this.requests = new Socket({ fd: requests, readable: false, writable: true });
      this.requests.on('error', () => undefined); // a dead process: its reply channel says so
    }
    if (options.hostPid !== undefined) {
      try {
        this.schedstat = openSync(`/proc/${options.hostPid}/schedstat`, 'r');
      } catch {
        // no CPU time to read: the limit is on wall time
      }
    }
    const reader = new ReplyFrameReader(
      MAX_REPLY_BYTES,
      (sequence, body) => {
        const flight = this.flight;
        if (!flight || sequence !== flight.sequence) return this.broken("the environment's process wrote on its reply pipe out of turn");
        flight.settle(readReply(body));
      },
      (why) => this.broken(`the environment's process wrote on its reply pipe ${why}`),
    );
    this.replies.on('data', (chunk: Buffer) => reader.push(chunk));
    const ended = (): void => {
      if (this.done) return;
      this.done = { ok: false, kind: 'crash', message: "the environment's process ended", ended: true };
      this.options.closed((reply) => this.flight?.settle(reply));
    };
    this.replies.once('end', ended);
    this.replies.once('close', ended);
  }

  /** The process's pid on the host, when known. */
  get hostPid(): number | undefined {
    return this.options.hostPid;
  }

  /** Send `request` and wait for its reply (after the replies to the requests before it). */
  exchange(request: object, timeoutMs: number, memoryMb?: number): Promise<Reply> {
    const reply = this.tail.then(() => this.send(request, timeoutMs, memoryMb));
    this.tail = reply;
    return reply;
  }

  /**
   * Wait for the reply to the process's first request, which the zygote wrote on the channel as
   * it handed the process over. Its CPU time is counted from zero: before that request the
   * process only set itself up (a few ms).
   */
  first(timeoutMs: number, memoryMb?: number): Promise<Reply> {
    const reply = this.tail.then(() => this.send(undefined, timeoutMs, memoryMb));
    this.tail = reply;
    return reply;
  }

  /** Settled once every request written so far is answered. */
  idle(): Promise<unknown> {
    return this.tail;
  }

  /** Stop using the channel: a call in flight fails with `reply`. */
  close(reply: Reply = { ok: false, kind: 'crash', message: "the environment's process was ended", ended: true }): void {
    this.done ??= reply;
    this.flight?.settle(reply);
    this.requests?.destroy();
    this.replies.destroy();
    if (this.schedstat !== undefined) closeSync(this.schedstat);
    this.schedstat = undefined;
  }

  /** Write `request` (none: the first, which the zygote wrote) and wait for its reply, timing it. */
  private send(request: object | undefined, timeoutMs: number, memoryMb?: number): Promise<Reply> {
    if (this.done) return Promise.resolve(this.done);
    const sequence = ++this.sequence;
    return new Promise<Reply>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const flight: Flight = {
        sequence,
        settle: (reply) => {
          if (this.flight !== flight) return;
          this.flight = undefined;
          clearTimeout(timer);
          resolve(reply);
        },
      };
      this.flight = flight;
      const cpuAtStart = request === undefined ? 0 : this.cpuMs();
      const started = performance.now();
      const ceiling = started + wallCeilingMs(timeoutMs);
      const check = (): void => {
        const now = performance.now();
        const cpu = this.cpuMs();
        const used = cpu === undefined || cpuAtStart === undefined ? undefined : cpu - cpuAtStart;
        if (used !== undefined && used < timeoutMs && now < ceiling) {
          // It waited for a CPU: the rest of its limit, in CPU time, but no later than the ceiling.
          timer = setTimeout(check, Math.max(1, Math.min(ceiling, now + (timeoutMs - used)) - now));
          return;
        }
        const size = this.options.hostPid === undefined ? undefined : addressSpace(this.options.hostPid);
        this.options.kill();
        const base = this.options.baselineBytes;
        if (size !== undefined && base !== undefined && memoryMb !== undefined && size - base >= memoryMb * MIB - MEMORY_MARGIN) {
          return this.close({ ok: false, kind: 'memory', message: `the environment reached its memory limit of ${memoryMb} MiB and ran on past its time limit of ${timeoutMs} ms`, ended: true });
        }
        if (used !== undefined && used < timeoutMs) {
          return this.close({ ok: false, kind: 'timeout', message: `the call took ${(now - started).toFixed(0)} ms of wall time and little CPU time (waiting on something that never came), past its limit of ${timeoutMs} ms`, ended: true });
        }
        this.close({ ok: false, kind: 'timeout', message: `the call ran past its time limit of ${timeoutMs} ms (CPU time)`, ended: true });
      };
      timer = setTimeout(check, timeoutMs);
      if (request === undefined) return;
      if (!this.requests) return flight.settle({ ok: false, kind: 'crash', message: "the environment's process ended", ended: true });
      const json = JSON.stringify(request);
      const size = Buffer.byteLength(json);
      const frame = Buffer.allocUnsafe(8 + size);
      frame.writeUInt32LE(size, 0);
      frame.writeUInt32LE(sequence, 4);
      frame.write(json, 8);
      this.requests.write(frame);
    });
  }

  /** The CPU time the process has had so far, in ms (the scheduler's account, in ns), or undefined. */
  private cpuMs(): number | undefined {
    if (this.schedstat === undefined) return undefined;
    try {
      const read = readSync(this.schedstat, schedstatBuffer, 0, schedstatBuffer.length, 0);
      const ns = Number(schedstatBuffer.toString('latin1', 0, read).split(' ', 1)[0]);
      return Number.isFinite(ns) ? ns / 1e6 : undefined;
    } catch {
      return undefined;
    }
  }

  /** The process broke the protocol: its call fails and the process is ended. */
  private broken(message: string): void {
    this.options.kill();
    this.close({ ok: false, kind: 'crash', message, ended: true });
  }
}

/** An environment's reply (untrusted: its process wrote it) as a Reply; one that is not fails the call alone. */
function readReply(body: Buffer): Reply {
  let message: { ok?: unknown; value?: unknown; kind?: unknown; message?: unknown };
  try {
    message = JSON.parse(body.toString('utf8'), reviveFloats) as typeof message;
  } catch {
    return { ok: false, kind: 'crash', message: "the environment's process sent a reply that is not JSON" };
  }
  if (message === null || typeof message !== 'object') return { ok: false, kind: 'crash', message: "the environment's process sent a reply of the wrong shape" };
  if (message.ok === true && 'value' in message) return { ok: true, value: message.value };
  if (message.ok === false && typeof message.kind === 'string' && KINDS.has(message.kind)) {
    return { ok: false, kind: message.kind as LoaderFailureKind, message: String(message.message ?? '') };
  }
  return { ok: false, kind: 'crash', message: "the environment's process sent a reply of the wrong shape" };
}

const KINDS = new Set<string>(['syntax', 'load', 'timeout', 'memory', 'output-limit', 'crash', 'escape-attempt', 'missing-method']);
