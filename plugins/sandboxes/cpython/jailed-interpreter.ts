/**
 * Host side of one cpython sandbox (server.py's zygote in bubblewrap): starts the jail, checks
 * from the zygote's own report that the protections claimed are in force, and sends it requests,
 * which it serves one at a time, each environment in a process of its own. The next request is
 * written before the reply to the running one arrives (at most PIPELINE in the pipe), so the
 * zygote does not wait for the host between calls.
 *
 * The time limit of a call is enforced by the zygote, on the CPU time the call takes up to a
 * wall-time ceiling (wallCeilingMs), which kills that environment's
 * process (its reply then says `ended`: the environment's next call loads it again and replays
 * its episode, see environment.ts). Here is the backstop: when the zygote itself does not answer
 * BACKSTOP_MS after a call's wall-time ceiling, the whole sandbox (its PID namespace) is killed, and when it
 * dies or breaks the protocol. Every environment it held is then gone: `generation` counts
 * sandboxes started, and an environment loaded in an older one must be loaded again.
 *
 * A reply's frame (its length and request id) is the zygote's; its body is what the
 * environment's process wrote, checked here: a body that is not a reply fails that call alone.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { reviveFloats, type LoaderFailureKind } from '../python/replies.js';
import { closeSync } from 'node:fs';
import { encodeFrame, ReplyFrameReader } from './frames.js';
import { makePipes } from './pipes.js';
import { childrenOf, parentOf } from './process-tree.js';
import { jailStdio, type JailPlan } from './jail.js';
import { wallCeilingMs } from '../python/environment.js';

/** What the interpreter reports once it is ready: facts checked from inside the jail. */
export interface ReadyFacts {
  ready: true;
  environmentVariables: string[];
  networkInterfaces: string[];
  uid: number;
  /** The zygote's pid inside the jail (1: bwrap's own init is not there). */
  pid: number;
  capabilities: string;
  noNewPrivileges: boolean;
  /** The seccomp mode of the zygote (2: a filter). */
  seccomp: string;
  serverFolderWritable: boolean;
  /** Hard limits in force on every process of the jail, set before bwrap started (RLIMIT_AS, RLIMIT_NOFILE, RLIMIT_FSIZE, RLIMIT_CORE). */
  limits: Record<string, number>;
  /** The zygote's address space once started: a call's memoryMb is on top of this. */
  baselineBytes: number;
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
      /** The sandbox ended during the call: killed for its wall time (`timeout`), or it died (`died`). */
      lost?: 'timeout' | 'died';
      /** The environment's process ended with this call (the zygote killed it, or it died): its next call needs a new one. */
      ended?: boolean;
    };

export interface CallLimits {
  memoryMb: number;
  maxOutputBytes: number;
}

export type Request =
  | { op: 'load'; env: string; source: string; limits: CallLimits; maxTurns?: number }
  | { op: 'call'; env: string; method: string; args: unknown[]; limits: CallLimits }
  | { op: 'dispose'; env: string }
  | { op: 'spade-validate'; source: string; limits: CallLimits; resetGate?: number }
  | { op: 'repair-braces'; source: string; limits: CallLimits };

const START_TIMEOUT_MS = 30_000;
/** The longest reply accepted (the zygote refuses a longer one from an environment's process). */
const MAX_REPLY_BYTES = 33 * 1024 * 1024;
/** How long past a call's wall-time ceiling the zygote may take to answer before the whole sandbox is killed. */
const BACKSTOP_MS = 5_000;

interface Incarnation {
  child: ChildProcess;
  requests: Socket;
  streams: Socket[];
  ready: Promise<ReadyFacts>;
  facts?: ReadyFacts;
  /** Host pid of the PID namespace's first process: the zygote. */
  initPid?: number;
  dead: boolean;
  stderr: string;
}

interface InFlight {
  incarnation: Incarnation;
  id: number;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
  settle(reply: Reply): void;
}

interface Task {
  body: Request;
  timeoutMs: number;
  resolve(result: { reply: Reply; generation: number }): void;
  reject(error: Error): void;
}

/** Requests written to the interpreter ahead of their turn: the running one and the next. */
const PIPELINE = 2;

export class JailedInterpreter {
  /** Sandboxes started so far; environments loaded in an earlier one are gone. */
  generation = 0;
  /** Environments attached to this interpreter and not disposed (for spreading the load). */
  environments = 0;
  private incarnation: Incarnation | undefined;
  private readonly queue: Task[] = [];
  private pumping = false;
  /** Requests written and not answered yet, in the order the interpreter serves them. */
  private flights: InFlight[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly plan: JailPlan,
    private readonly verify: (facts: ReadyFacts) => string | undefined,
  ) {}

  /** Whether the sandbox of `generation` is still the running one. */
  alive(generation: number): boolean {
    return generation === this.generation && this.incarnation !== undefined && !this.incarnation.dead;
  }

  /** Start the sandbox now (it starts on first use otherwise); resolves with its facts. */
  async start(): Promise<ReadyFacts> {
    return (await this.started()).ready;
  }

  /**
   * Send one request; resolves with its reply and the generation it ran in. Rejects only if the
   * sandbox cannot be started (or is closed).
   */
  request(body: Request, timeoutMs: number): Promise<{ reply: Reply; generation: number }> {
    if (this.closed) return Promise.reject(new Error('the cpython sandbox is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ body, timeoutMs, resolve, reject });
      void this.pump();
    });
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

  /** Write queued requests while the pipeline has room (starting the sandbox first if needed). */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && this.queue.length > 0 && this.flights.length < PIPELINE) {
        let incarnation: Incarnation;
        try {
          incarnation = await this.started();
        } catch (error) {
          this.queue.shift()?.reject(error as Error);
          continue;
        }
        // Requests written to an earlier sandbox must be settled (they are, when it ends) first.
        if (this.flights.length > 0 && this.flights[0]!.incarnation !== incarnation) break;
        const task = this.queue.shift();
        if (task) this.send(incarnation, task);
      }
    } finally {
      this.pumping = false;
    }
  }

  private send(incarnation: Incarnation, task: Task): void {
    const generation = this.generation;
    const flight: InFlight = {
      incarnation,
      id: this.nextId++,
      timeoutMs: task.timeoutMs,
      settle: (reply) => {
        const at = this.flights.indexOf(flight);
        if (at < 0) return;
        this.flights.splice(at, 1);
        clearTimeout(flight.timer);
        task.resolve({ reply, generation });
        this.armHead();
        void this.pump();
      },
    };
    this.flights.push(flight);
    incarnation.requests.write(encodeFrame({ ...task.body, id: flight.id, timeoutMs: task.timeoutMs }));
    this.armHead();
  }

  /** The backstop of the request the zygote is serving now runs from when the one before it was answered. */
  private armHead(): void {
    const head = this.flights[0];
    if (head && head.timer === undefined) head.timer = setTimeout(() => this.timedOut(head), wallCeilingMs(head.timeoutMs) + BACKSTOP_MS);
  }

  /** The zygote did not answer, long past the call's limit: the whole sandbox goes. */
  private timedOut(flight: InFlight): void {
    const { incarnation } = flight;
    flight.settle({ ok: false, kind: 'timeout', message: `the call ran past its time limit of ${flight.timeoutMs} ms (and the sandbox did not answer ${wallCeilingMs(flight.timeoutMs) + BACKSTOP_MS} ms after it started)`, lost: 'timeout' });
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

  /** What follows a sandbox's end: the calls written to it fail (as lost: they are made again elsewhere). */
  private ended(incarnation: Incarnation, why: string): void {
    for (const flight of this.flights.filter((f) => f.incarnation === incarnation)) {
      flight.settle({ ok: false, kind: 'crash', message: `${why}${incarnation.stderr ? `: ${incarnation.stderr.slice(-300)}` : ''}`, lost: 'died' });
    }
    for (const stream of incarnation.streams) stream.destroy();
  }

  private spawn(): Incarnation {
    const pipes = makePipes(['to-child', 'from-child', 'from-child']);
    let child: ChildProcess;
    let seccompFd: number | undefined;
    try {
      const { stdio, fd } = jailStdio(this.plan, pipes.childFds);
      seccompFd = fd;
      child = spawn(this.plan.command, this.plan.args, { env: {}, stdio, uid: this.plan.uid, gid: this.plan.gid });
    } finally {
      pipes.closeChildEnds();
      if (seccompFd !== undefined) closeSync(seccompFd);
    }
    const [requests, replies, stderr] = pipes.streams as [Socket, Socket, Socket];
    for (const stream of pipes.streams) stream.on('error', () => undefined);
    let markReady!: (facts: ReadyFacts) => void;
    let failReady!: (error: Error) => void;
    const ready = new Promise<ReadyFacts>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    ready.catch(() => undefined);
    const incarnation: Incarnation = { child, requests, streams: pipes.streams, ready, dead: false, stderr: '' };
    const startTimer = setTimeout(() => failReady(new Error('the cpython sandbox did not start in time')), START_TIMEOUT_MS);

    const reader = new ReplyFrameReader(
      MAX_REPLY_BYTES,
      (id, body) => {
        if (id === 0 && !incarnation.facts) {
          clearTimeout(startTimer);
          let facts: ReadyFacts;
          try {
            facts = JSON.parse(body.toString('utf8')) as ReadyFacts;
          } catch {
            return this.violated(incarnation, 'a start-up report that is not JSON');
          }
          const problem = facts.ready === true ? this.verify(facts) : 'no start-up report';
          if (problem) return failReady(new Error(`refusing the cpython sandbox: ${problem}`));
          incarnation.facts = facts;
          incarnation.initPid = child.pid === undefined ? undefined : childrenOf(child.pid)[0];
          return markReady(facts);
        }
        const flight = this.flights[0];
        // The zygote answers requests in order: anything else is a broken zygote.
        if (!flight || flight.incarnation !== incarnation || id !== flight.id) return this.violated(incarnation, 'a reply to no request');
        flight.settle(readReply(body));
      },
      (why) => this.violated(incarnation, why),
    );
    replies.on('data', (chunk: Buffer) => reader.push(chunk));
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

  /** The interpreter broke the protocol (a program wrote on its pipe): the calls fail, the sandbox is replaced. */
  private violated(incarnation: Incarnation, why: string): void {
    incarnation.stderr = `the sandbox sent ${why}`;
    this.kill(incarnation);
  }
}

/** An environment's reply (untrusted: its process wrote it) as a Reply; one that is not fails the call alone. */
function readReply(body: Buffer): Reply {
  let message: { ok?: unknown; value?: unknown; kind?: unknown; message?: unknown; ended?: unknown; lost?: unknown };
  try {
    message = JSON.parse(body.toString('utf8'), reviveFloats) as typeof message;
  } catch {
    return { ok: false, kind: 'crash', message: "the environment's process sent a reply that is not JSON" };
  }
  if (message === null || typeof message !== 'object') return { ok: false, kind: 'crash', message: "the environment's process sent a reply of the wrong shape" };
  if (message.ok === true && 'value' in message) return { ok: true, value: message.value };
  if (message.ok === false && typeof message.kind === 'string' && KINDS.has(message.kind)) {
    return { ok: false, kind: message.kind as LoaderFailureKind, message: String(message.message ?? ''), ...(message.ended === true ? { ended: true } : {}) };
  }
  return { ok: false, kind: 'crash', message: "the environment's process sent a reply of the wrong shape" };
}

const KINDS = new Set<string>(['syntax', 'load', 'timeout', 'memory', 'output-limit', 'crash', 'escape-attempt', 'missing-method']);
