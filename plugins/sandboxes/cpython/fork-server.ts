/**
 * Host side of one jailed sandbox process of the cpython sandbox: a fork server (server.py in
 * bubblewrap) that holds up to `slots` environment processes, each with its own pair of pipes
 * to the host. It starts the jail, checks from the server's own report that the protections
 * claimed are in force, and sends requests one at a time (so a failure is always the running
 * call's; environments of other servers run in parallel).
 *
 * The wall-time limit is enforced here, from outside: when a call runs past it, the whole
 * sandbox (its PID namespace) is killed, whatever the program is doing. Every environment it
 * held is then gone: `generation` counts sandboxes started, and an environment whose handle is
 * of an older generation, or whose process ended, is no longer `alive` and must be loaded again.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { reviveFloats, type LoaderFailureKind } from '../python/replies.js';
import { encodeFrame, FrameReader } from './frames.js';
import { makePipes, type Direction } from './pipes.js';
import { childrenOf, parentOf, peakGrowth } from './process-tree.js';
import type { JailPlan } from './jail.js';

/** What the server reports once it is ready: facts checked from inside the jail. */
export interface ReadyFacts {
  event: 'ready';
  environmentVariables: string[];
  networkInterfaces: string[];
  uid: number;
  capabilities: string;
  noNewPrivileges: boolean;
  serverFolderWritable: boolean;
  packages: string[];
  python: string;
  startMs: number;
}

export type Reply =
  | { ok: true; value: unknown }
  | {
      ok: false;
      kind: LoaderFailureKind;
      message: string;
      /** The environment's process is gone: killed for its wall time, or it (or its sandbox) died. */
      lost?: 'timeout' | 'died';
    };

/** An environment's place in a server: valid while the server's generation and the slot's epoch match. */
export interface Handle {
  generation: number;
  slot: number;
  epoch: number;
}

export interface EnvironmentLimits {
  memoryMb: number;
  maxOutputBytes: number;
}

const START_TIMEOUT_MS = 30_000;
const MAX_CONTROL_FRAME = 1024 * 1024;
const MIB = 1024 * 1024;
/** Growth within this much of the memory allowance counts as having reached it. */
const MEMORY_MARGIN = 8 * MIB;

interface Slot {
  epoch: number;
  state: 'free' | 'loading' | 'live' | 'closing';
  /** Pid of its environment process inside the sandbox's PID namespace. */
  pid?: number;
  requests: Socket;
  reader: FrameReader;
}

interface Incarnation {
  child: ChildProcess;
  /** Host pid of the first process of the sandbox's PID namespace (bwrap's init): killing it ends them all. */
  initPid?: number;
  control: Socket;
  /** Every host end of its pipes. */
  streams: Socket[];
  slots: Slot[];
  ready: Promise<ReadyFacts>;
  dead: boolean;
  stderr: string;
}

interface InFlight {
  incarnation: Incarnation;
  slot: number;
  id: number;
  memoryMb?: number;
  timer?: NodeJS.Timeout;
  settle(reply: Reply): void;
}

interface Task {
  run(): Promise<void>;
  reject(error: Error): void;
}

export class ForkServer {
  /** Sandboxes started so far; environments of an earlier one are gone. */
  generation = 0;
  /** Environments attached to this server and not disposed (each needs a slot while it lives). */
  environments = 0;
  private incarnation: Incarnation | undefined;
  private readonly queue: Task[] = [];
  private busy = false;
  private inFlight: InFlight | undefined;
  private nextId = 1;
  private closed = false;
  private slotWaiters: (() => void)[] = [];

  constructor(
    private readonly plan: JailPlan,
    readonly slots: number,
    private readonly verify: (facts: ReadyFacts) => string | undefined,
    /** The longest reply frame accepted from an environment process. */
    private readonly maxReplyBytes: number,
  ) {}

  alive(handle: Handle): boolean {
    const slot = this.incarnation?.slots[handle.slot];
    return handle.generation === this.generation && slot !== undefined && slot.epoch === handle.epoch && slot.state === 'live';
  }

  /** Start the sandbox now (it starts on first use otherwise); resolves with its facts. */
  async start(): Promise<ReadyFacts> {
    return this.started().then((incarnation) => incarnation.ready);
  }

  /** Fork an environment process and load `source` in it. Rejects only if the sandbox cannot start. */
  load(source: string, limits: EnvironmentLimits, timeoutMs: number): Promise<{ reply: Reply; handle?: Handle }> {
    return this.enqueue(async () => {
      const incarnation = await this.started();
      let index = incarnation.slots.findIndex((s) => s.state === 'free');
      while (index < 0) {
        await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
        if (incarnation.dead) return { reply: { ok: false, kind: 'crash', message: 'the sandbox ended while the load waited', lost: 'died' } };
        index = incarnation.slots.findIndex((s) => s.state === 'free');
      }
      const slot = incarnation.slots[index]!;
      slot.epoch++;
      slot.state = 'loading';
      slot.pid = undefined;
      const nonce = randomBytes(12).toString('hex');
      slot.reader.expectSync(nonce);
      const id = this.nextId++;
      const reply = await this.exchange(incarnation, index, id, timeoutMs, limits.memoryMb, () =>
        incarnation.control.write(encodeFrame({ op: 'load', id, slot: index, nonce, source, limits })),
      );
      if (!reply.ok) return { reply };
      slot.state = 'live';
      return { reply, handle: { generation: this.generation, slot: index, epoch: slot.epoch } };
    });
  }

  /** Call a method of a loaded environment. */
  call(handle: Handle, method: string, args: unknown[], timeoutMs: number, memoryMb?: number): Promise<Reply> {
    return this.enqueue(async () => {
      if (!this.alive(handle)) return { ok: false, kind: 'crash', message: "the environment's process is gone", lost: 'died' };
      const incarnation = this.incarnation!;
      const id = this.nextId++;
      const frame = encodeFrame({ id, method, args });
      return this.exchange(incarnation, handle.slot, id, timeoutMs, memoryMb, () => incarnation.slots[handle.slot]!.requests.write(frame));
    });
  }

  /** End an environment's process (it is not waited for: its slot is free once the server reaped it). */
  dispose(handle: Handle): void {
    if (!this.alive(handle)) return;
    const incarnation = this.incarnation!;
    incarnation.slots[handle.slot]!.state = 'closing';
    incarnation.control.write(encodeFrame({ op: 'dispose', slot: handle.slot }));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the cpython sandbox was closed'));
    const incarnation = this.incarnation;
    if (!incarnation) return;
    const exited = new Promise((resolve) => {
      if (incarnation.child.exitCode !== null || incarnation.child.signalCode !== null) resolve(undefined);
      else incarnation.child.once('exit', resolve);
    });
    this.kill(incarnation);
    await exited;
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the cpython sandbox is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: () => work().then(resolve, reject), reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy || this.closed) return;
    const task = this.queue.shift();
    if (!task) return;
    this.busy = true;
    void task.run().finally(() => {
      this.busy = false;
      this.pump();
    });
  }

  /** Send a request and wait for its reply, its process's end, the sandbox's end, or its wall time. */
  private exchange(incarnation: Incarnation, slot: number, id: number, timeoutMs: number, memoryMb: number | undefined, send: () => void): Promise<Reply> {
    return new Promise<Reply>((resolve) => {
      const flight: InFlight = {
        incarnation,
        slot,
        id,
        memoryMb,
        settle: (reply) => {
          if (this.inFlight !== flight) return;
          clearTimeout(flight.timer);
          this.inFlight = undefined;
          resolve(reply);
        },
      };
      this.inFlight = flight;
      flight.timer = setTimeout(() => this.timedOut(flight, timeoutMs), timeoutMs);
      send();
    });
  }

  private timedOut(flight: InFlight, timeoutMs: number): void {
    const { incarnation, slot } = flight;
    const pid = incarnation.slots[slot]?.pid;
    let reply: Reply = { ok: false, kind: 'timeout', message: `the call ran past its wall-time limit of ${timeoutMs} ms`, lost: 'timeout' };
    if (pid !== undefined && flight.memoryMb !== undefined && incarnation.child.pid !== undefined) {
      const growth = peakGrowth(incarnation.child.pid, pid);
      if (growth !== undefined && growth >= flight.memoryMb * MIB - MEMORY_MARGIN) {
        reply = { ok: false, kind: 'memory', message: `the environment reached its memory limit of ${flight.memoryMb} MiB and ran on past its wall-time limit of ${timeoutMs} ms`, lost: 'timeout' };
      }
    }
    flight.settle(reply);
    this.kill(incarnation);
  }

  private async started(): Promise<Incarnation> {
    if (this.closed) throw new Error('the cpython sandbox is closed');
    if (!this.incarnation || this.incarnation.dead) this.incarnation = this.spawn();
    const incarnation = this.incarnation;
    try {
      await incarnation.ready;
    } catch (error) {
      this.kill(incarnation);
      throw error;
    }
    if (incarnation.dead) throw new Error(`the sandbox ended as it started: ${incarnation.stderr.slice(-300)}`);
    return incarnation;
  }

  /**
   * Kill a sandbox: its PID namespace's first process is killed from outside, which ends every
   * process in the namespace at once, whatever it is doing; bwrap then reaps it and exits (so no
   * zombie is left). bwrap itself is killed too if it has not gone a moment later.
   */
  private kill(incarnation: Incarnation): void {
    if (this.incarnation === incarnation) {
      this.incarnation = undefined;
      this.generation++;
    }
    const wasDead = incarnation.dead;
    incarnation.dead = true;
    const { child } = incarnation;
    const running = (): boolean => child.exitCode === null && child.signalCode === null;
    if (running()) {
      if (incarnation.initPid !== undefined && parentOf(incarnation.initPid) === child.pid) {
        try {
          process.kill(incarnation.initPid, 'SIGKILL');
        } catch {
          // already gone
        }
        setTimeout(() => running() && child.kill('SIGKILL'), 1000).unref();
      } else child.kill('SIGKILL');
    }
    if (!wasDead) this.ended(incarnation, 'the sandbox was killed');
  }

  /** What follows a sandbox's end: the call in flight fails, waiters move on. */
  private ended(incarnation: Incarnation, why: string): void {
    const flight = this.inFlight;
    if (flight?.incarnation === incarnation) {
      flight.settle({ ok: false, kind: 'crash', message: `${why}${incarnation.stderr ? `: ${incarnation.stderr.slice(-300)}` : ''}`, lost: 'died' });
    }
    for (const slot of incarnation.slots) {
      slot.state = 'free';
      slot.reader.ignore();
    }
    for (const stream of incarnation.streams) stream.destroy();
    this.wakeSlotWaiters();
  }

  private wakeSlotWaiters(): void {
    const waiters = this.slotWaiters;
    this.slotWaiters = [];
    for (const wake of waiters) wake();
  }

  private spawn(): Incarnation {
    const directions: Direction[] = ['to-child', 'from-child', 'from-child'];
    for (let i = 0; i < this.slots; i++) directions.push('to-child', 'from-child');
    const pipes = makePipes(directions);
    let child: ChildProcess;
    try {
      child = spawn(this.plan.command, this.plan.args, { env: {}, stdio: pipes.childFds, uid: this.plan.uid, gid: this.plan.gid });
    } finally {
      pipes.closeChildEnds();
    }
    const [control, events, stderr] = pipes.streams as [Socket, Socket, Socket];
    for (const stream of pipes.streams) stream.on('error', () => undefined);
    let markReady!: (facts: ReadyFacts) => void;
    let failReady!: (error: Error) => void;
    const ready = new Promise<ReadyFacts>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    ready.catch(() => undefined);
    const incarnation: Incarnation = { child, control, streams: pipes.streams, slots: [], ready, dead: false, stderr: '' };
    const startTimer = setTimeout(() => failReady(new Error('the cpython sandbox did not start in time')), START_TIMEOUT_MS);

    for (let i = 0; i < this.slots; i++) {
      const requests = pipes.streams[3 + 2 * i]!;
      const replies = pipes.streams[4 + 2 * i]!;
      const slot: Slot = {
        epoch: 0,
        state: 'free',
        requests,
        reader: new FrameReader(
          this.maxReplyBytes,
          (frame) => this.onSlotFrame(incarnation, i, frame as { id?: unknown } & Reply),
          (why) => this.onSlotViolation(incarnation, i, why),
          reviveFloats,
        ),
      };
      slot.reader.ignore();
      replies.on('data', (chunk: Buffer) => slot.reader.push(chunk));
      incarnation.slots.push(slot);
    }

    const controlReader = new FrameReader(
      MAX_CONTROL_FRAME,
      (frame) => {
        const event = frame as Record<string, unknown>;
        if (event.event === 'ready') {
          clearTimeout(startTimer);
          const problem = this.verify(event as unknown as ReadyFacts);
          if (problem) failReady(new Error(`refusing the cpython sandbox: ${problem}`));
          else {
            incarnation.initPid = child.pid === undefined ? undefined : childrenOf(child.pid)[0];
            markReady(event as unknown as ReadyFacts);
          }
        } else this.onEvent(incarnation, event);
      },
      (why) => {
        incarnation.stderr += `\nthe sandbox's server sent ${why}`;
        this.kill(incarnation);
      },
    );
    events.on('data', (chunk: Buffer) => controlReader.push(chunk));
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      incarnation.stderr = (incarnation.stderr + chunk).slice(-4000);
    });
    child.once('error', (error) => {
      clearTimeout(startTimer);
      failReady(error);
      this.kill(incarnation);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(startTimer);
      if (this.incarnation === incarnation) {
        this.incarnation = undefined;
        this.generation++;
      }
      // Its last words on stderr may still be in the pipe: read them (briefly) before reporting.
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        failReady(new Error(`the cpython sandbox exited (${signal ?? code}) as it started: ${incarnation.stderr.slice(-500)}`));
        if (!incarnation.dead) {
          incarnation.dead = true;
          this.ended(incarnation, `the sandbox process ended (${signal ?? `exit ${code}`})`);
        }
      };
      if (incarnation.dead || stderr.readableEnded || stderr.destroyed) finish();
      else {
        stderr.once('end', finish);
        stderr.once('close', finish);
        setTimeout(finish, 200).unref();
      }
    });
    return incarnation;
  }

  private onEvent(incarnation: Incarnation, event: Record<string, unknown>): void {
    const index = typeof event.slot === 'number' ? event.slot : -1;
    const slot = incarnation.slots[index];
    if (!slot) return;
    const flight = this.inFlight?.incarnation === incarnation && this.inFlight.slot === index ? this.inFlight : undefined;
    switch (event.event) {
      case 'forked':
        if (flight && event.id === flight.id && typeof event.pid === 'number') slot.pid = event.pid;
        break;
      case 'fork-failed':
        slot.state = 'free';
        slot.reader.ignore();
        if (flight && event.id === flight.id) flight.settle({ ok: false, kind: 'crash', message: `the environment's process could not start: ${String(event.message)}` });
        this.wakeSlotWaiters();
        break;
      case 'exit':
        slot.state = 'free';
        slot.pid = undefined;
        slot.reader.ignore();
        flight?.settle({ ok: false, kind: 'crash', message: `the environment's process ended during the call (${String(event.status)})`, lost: 'died' });
        this.wakeSlotWaiters();
        break;
    }
  }

  private onSlotFrame(incarnation: Incarnation, index: number, frame: { id?: unknown } & Reply): void {
    const flight = this.inFlight;
    // A frame nobody asked for (a program writing on its pipe between calls) is dropped.
    if (!flight || flight.incarnation !== incarnation || flight.slot !== index || frame.id !== flight.id) return;
    if (frame.ok === true) flight.settle({ ok: true, value: frame.value });
    else if (frame.ok === false && typeof frame.kind === 'string') flight.settle({ ok: false, kind: frame.kind, message: String(frame.message ?? '') });
    else this.onSlotViolation(incarnation, index, 'a reply of the wrong shape');
  }

  /** An environment process broke the protocol: its reply (if awaited) fails and the process is ended. */
  private onSlotViolation(incarnation: Incarnation, index: number, why: string): void {
    const slot = incarnation.slots[index]!;
    slot.reader.ignore();
    const flight = this.inFlight;
    if (flight?.incarnation === incarnation && flight.slot === index) {
      flight.settle({ ok: false, kind: 'crash', message: `the environment's process sent ${why}` });
    }
    if (slot.state === 'live' || slot.state === 'loading') {
      slot.state = 'closing';
      incarnation.control.write(encodeFrame({ op: 'dispose', slot: index }));
    }
  }
}
