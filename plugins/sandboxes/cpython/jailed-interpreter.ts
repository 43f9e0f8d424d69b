/**
 * Host side of one cpython sandbox (server.py's zygote in bubblewrap): starts the jail, checks
 * from the zygote's own report that the protections claimed are in force, asks the zygote for a
 * process per environment (and one per SPADE validation), and then talks to that process
 * directly over its own channel (channel.ts): a call goes from the host to the environment's
 * process and back, and calls of different environments run side by side. The zygote, single-
 * threaded, only forks processes (a spare ahead) and ends them; its requests are written ahead
 * of their turn (at most PIPELINE in its pipe).
 *
 * The time limit of a call is enforced here (channel.ts), on the CPU time the call takes up to
 * a wall-time ceiling (wallCeilingMs): the environment's process is killed (SIGKILL from here,
 * then the zygote disposes of it), and its reply then says `ended`: the environment's next call
 * loads it again and replays its episode (environment.ts). When the zygote does not answer one
 * of its own requests BACKSTOP_MS after that request's wall-time ceiling, or dies, or breaks the
 * protocol, the whole sandbox (its PID namespace) is killed. Every environment it held is then
 * gone: `generation` counts sandboxes started, and an environment loaded in an older one must be
 * loaded again.
 *
 * A reply's frame is checked here; its body is what the environment's process wrote, checked
 * too: a body that is not a reply fails that call alone.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, chownSync, closeSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeFrame, ReplyFrameReader } from './frames.js';
import { makePipes } from './pipes.js';
import { childInNamespace, childrenOf, parentOf } from './process-tree.js';
import { jailStdio, SANDBOX_ID, type JailPlan } from './jail.js';
import { wallCeilingMs } from '../python/environment.js';
import { Channel, type Reply } from './channel.js';

export type { Reply } from './channel.js';

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

/** What the zygote itself is asked: a process for an environment, handed its first request; or the end of one. */
type ZygoteRequest = { op: 'open'; env: string; request: object } | { op: 'dispose'; env: string };

const START_TIMEOUT_MS = 30_000;
/** The longest reply accepted from the zygote. */
const MAX_ZYGOTE_REPLY_BYTES = 1024 * 1024;
/** How long past a request's wall-time ceiling the zygote may take to answer before the whole sandbox is killed. */
const BACKSTOP_MS = 5_000;
/** Environment ids of the processes made for one request (SPADE's validation, a brace repair); sandbox.ts's are e1, e2, ... */
const ONE_REQUEST = 'once-';

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
  /** Where the zygote makes the channels (its /tmp), and how to remove it once the jail is gone. */
  channels: ChannelFolder;
  /** The environments' processes, by environment id. */
  environments: Map<string, Channel>;
}

interface InFlight {
  incarnation: Incarnation;
  id: number;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
  settle(reply: Reply): void;
}

interface Task {
  body: ZygoteRequest;
  timeoutMs: number;
  /** Only to this sandbox (a request about one of its processes): if it is gone, the request is lost with it. */
  incarnation?: Incarnation;
  resolve(result: { reply: Reply; incarnation?: Incarnation; generation: number }): void;
  reject(error: Error): void;
}

/** Requests written to the zygote ahead of their turn: the running one and the next. */
const PIPELINE = 2;

const lostWith = (incarnation: Incarnation, why: string): Reply => ({ ok: false, kind: 'crash', message: `${why}${incarnation.stderr ? `: ${incarnation.stderr.slice(-300)}` : ''}`, lost: 'died' });

export class JailedInterpreter {
  /** Sandboxes started so far; environments loaded in an earlier one are gone. */
  generation = 0;
  /** Environments attached to this interpreter and not disposed (for spreading the load). */
  environments = 0;
  private incarnation: Incarnation | undefined;
  private readonly queue: Task[] = [];
  private pumping = false;
  /** Requests written to the zygote and not answered yet, in the order it serves them. */
  private flights: InFlight[] = [];
  private nextId = 1;
  private nextOnce = 1;
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
  async request(body: Request, timeoutMs: number): Promise<{ reply: Reply; generation: number }> {
    if (this.closed) throw new Error('the cpython sandbox is closed');
    switch (body.op) {
      case 'load':
        return this.load(body, timeoutMs);
      case 'call':
        return this.call(body, timeoutMs);
      case 'dispose':
        return this.dispose(body.env, timeoutMs);
      default:
        return this.once(body, timeoutMs);
    }
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

  /** A new process for `body.env` (its earlier one, if any, is ended), and the program loaded in it. */
  private async load(body: Extract<Request, { op: 'load' }>, timeoutMs: number): Promise<{ reply: Reply; generation: number }> {
    const earlier = this.incarnation?.environments.get(body.env);
    if (earlier) this.forget(this.incarnation!, body.env, earlier);
    const opened = await this.open(body.env, body, timeoutMs);
    if (!opened.channel) return opened;
    const reply = await opened.channel.first(timeoutMs, body.limits.memoryMb);
    if (!reply.ok) this.end(opened.incarnation!, body.env, opened.channel); // a failed load keeps no process
    return { reply, generation: opened.generation };
  }

  private async call(body: Extract<Request, { op: 'call' }>, timeoutMs: number): Promise<{ reply: Reply; generation: number }> {
    const incarnation = this.incarnation;
    const generation = this.generation;
    const channel = incarnation?.dead === false ? incarnation.environments.get(body.env) : undefined;
    if (!incarnation || !channel) {
      return { reply: { ok: false, kind: 'crash', message: `environment ${body.env} has no process (it ended with an earlier call)`, ended: true }, generation };
    }
    let reply = await channel.exchange(body, timeoutMs, body.limits.memoryMb);
    // A MemoryError can leave an interpreter half-broken: the environment's next call gets a fresh process.
    if (!reply.ok && reply.kind === 'memory' && !reply.ended) reply = { ...reply, ended: true };
    if (!reply.ok && reply.ended) this.end(incarnation, body.env, channel);
    return { reply, generation };
  }

  /** The environment's process is ended, once the calls made before are answered. */
  private async dispose(env: string, timeoutMs: number): Promise<{ reply: Reply; generation: number }> {
    const incarnation = this.incarnation;
    const generation = this.generation;
    const channel = incarnation?.environments.get(env);
    if (!incarnation || incarnation.dead || !channel) return { reply: { ok: true, value: null }, generation };
    await channel.idle();
    if (incarnation.environments.get(env) !== channel) return { reply: { ok: true, value: null }, generation };
    this.forget(incarnation, env, channel);
    const { reply } = await this.zygote({ op: 'dispose', env }, timeoutMs, incarnation);
    return { reply, generation };
  }

  /** A request that gets a process of its own, ended once it is answered (SPADE's validation, a brace repair). */
  private async once(body: Extract<Request, { op: 'spade-validate' | 'repair-braces' }>, timeoutMs: number): Promise<{ reply: Reply; generation: number }> {
    const env = `${ONE_REQUEST}${this.nextOnce++}`;
    const opened = await this.open(env, body, timeoutMs);
    if (!opened.channel) return opened;
    const reply = await opened.channel.first(timeoutMs, body.limits.memoryMb);
    this.end(opened.incarnation!, env, opened.channel);
    return { reply, generation: opened.generation };
  }

  /** Ask the zygote for `env`'s process, handed `request` first, and open its channel. */
  private async open(env: string, request: Request, timeoutMs: number): Promise<{ reply: Reply; generation: number; incarnation?: Incarnation; channel?: Channel }> {
    const { reply, incarnation, generation } = await this.zygote({ op: 'open', env, request }, timeoutMs);
    if (!reply.ok || !incarnation) return { reply, generation };
    if (incarnation.dead) return { reply: lostWith(incarnation, 'the sandbox ended'), generation };
    const value = reply.value as { channel?: unknown; pid?: unknown; baselineBytes?: unknown } | null;
    if (typeof value?.channel !== 'string' || !/^c\d+$/.test(value.channel) || typeof value.pid !== 'number') {
      this.violated(incarnation, 'an answer to open that names no channel');
      return { reply: lostWith(incarnation, 'the sandbox broke its protocol'), generation };
    }
    const known = new Set([...incarnation.environments.values()].map((c) => c.hostPid));
    const hostPid = incarnation.initPid === undefined ? undefined : childInNamespace(incarnation.initPid, value.pid, known);
    let channel: Channel;
    try {
      channel = new Channel({
        folder: incarnation.channels.folder,
        name: value.channel,
        hostPid,
        baselineBytes: typeof value.baselineBytes === 'number' ? value.baselineBytes : incarnation.facts?.baselineBytes,
        kill: () => this.killProcess(incarnation, hostPid),
        closed: (fail) => this.closedChannel(incarnation, env, channel, fail),
      });
    } catch (error) {
      this.disposeLater(env, incarnation);
      return { reply: { ok: false, kind: 'crash', message: `the environment's process could not be reached: ${(error as Error).message}` }, generation };
    }
    incarnation.environments.set(env, channel);
    return { reply, generation, incarnation, channel };
  }

  /** Stop using `env`'s channel (the zygote ends its process when told to, or when `env` gets a new one). */
  private forget(incarnation: Incarnation, env: string, channel: Channel): void {
    if (incarnation.environments.get(env) === channel) incarnation.environments.delete(env);
    channel.close();
  }

  /** `env`'s process is done with: the zygote disposes of it. */
  private end(incarnation: Incarnation, env: string, channel: Channel): void {
    if (incarnation.environments.get(env) !== channel) return;
    this.forget(incarnation, env, channel);
    this.disposeLater(env, incarnation);
  }

  /**
   * Have the zygote end `env`'s process, answered to no one: if the sandbox closes first, the
   * request is dropped (the whole jail is killed), not left as a rejection nobody hears.
   */
  private disposeLater(env: string, incarnation: Incarnation): void {
    this.zygote({ op: 'dispose', env }, 10_000, incarnation).catch(() => undefined);
  }

  /**
   * `env`'s channel reached end of file: its process ended, on its own or because the whole
   * sandbox did. The zygote's answer to its dispose tells which (a dead sandbox answers nothing:
   * the call is then lost with it, and made again in a new one).
   */
  private closedChannel(incarnation: Incarnation, env: string, channel: Channel, fail: (reply: Reply) => void): void {
    if (incarnation.environments.get(env) === channel) incarnation.environments.delete(env);
    this.zygote({ op: 'dispose', env }, 10_000, incarnation).then(
      ({ reply }) => fail(reply.ok ? { ok: false, kind: 'crash', message: "the environment's process ended during the call", ended: true } : reply),
      (error: Error) => fail({ ok: false, kind: 'crash', message: error.message, ended: true }),
    );
  }

  /** Kill an environment's process at once, by its host pid, while it is still the zygote's child (the zygote reaps it only once disposed of). */
  private killProcess(incarnation: Incarnation, hostPid: number | undefined): void {
    if (hostPid === undefined || incarnation.dead || incarnation.initPid === undefined || parentOf(hostPid) !== incarnation.initPid) return;
    try {
      process.kill(hostPid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  /** Send one request to the zygote (of `incarnation` only, when given). */
  private zygote(body: ZygoteRequest, timeoutMs: number, incarnation?: Incarnation): Promise<{ reply: Reply; incarnation?: Incarnation; generation: number }> {
    if (this.closed) return Promise.reject(new Error('the cpython sandbox is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ body, timeoutMs, incarnation, resolve, reject });
      void this.pump();
    });
  }

  /** Write queued requests while the pipeline has room (starting the sandbox first if needed). */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && this.queue.length > 0 && this.flights.length < PIPELINE) {
        const bound = this.queue[0]!.incarnation;
        if (bound && (bound.dead || bound !== this.incarnation)) {
          this.queue.shift()!.resolve({ reply: lostWith(bound, 'the sandbox ended'), generation: this.generation });
          continue;
        }
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
        task.resolve({ reply, incarnation, generation });
        this.armHead();
        void this.pump();
      },
    };
    this.flights.push(flight);
    incarnation.requests.write(encodeFrame({ ...task.body, id: flight.id }));
    this.armHead();
  }

  /** The backstop of the request the zygote is serving now runs from when the one before it was answered. */
  private armHead(): void {
    const head = this.flights[0];
    if (head && head.timer === undefined) head.timer = setTimeout(() => this.timedOut(head), wallCeilingMs(head.timeoutMs) + BACKSTOP_MS);
  }

  /** The zygote did not answer, long past the request's limit: the whole sandbox goes. */
  private timedOut(flight: InFlight): void {
    const { incarnation } = flight;
    flight.settle({ ok: false, kind: 'timeout', message: `the sandbox did not answer ${wallCeilingMs(flight.timeoutMs) + BACKSTOP_MS} ms after the request`, lost: 'timeout' });
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

  /** What follows a sandbox's end: the calls made to it fail (as lost: they are made again elsewhere). */
  private ended(incarnation: Incarnation, why: string): void {
    for (const flight of this.flights.filter((f) => f.incarnation === incarnation)) flight.settle(lostWith(incarnation, why));
    for (const channel of incarnation.environments.values()) channel.close(lostWith(incarnation, why));
    incarnation.environments.clear();
    for (const stream of incarnation.streams) stream.destroy();
  }

  private spawn(): Incarnation {
    const channels = channelFolder(this.plan);
    let pipes: ReturnType<typeof makePipes>;
    let child: ChildProcess;
    let seccompFd: number | undefined;
    try {
      pipes = makePipes(['to-child', 'from-child', 'from-child']);
    } catch (error) {
      channels.remove();
      throw error;
    }
    try {
      const { stdio, fd } = jailStdio(this.plan, pipes.childFds);
      seccompFd = fd;
      child = spawn(this.plan.command, this.plan.channelArgs(channels.folder), { env: {}, stdio, uid: this.plan.uid, gid: this.plan.gid });
    } catch (error) {
      channels.remove();
      throw error;
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
    const incarnation: Incarnation = { child, requests, streams: pipes.streams, ready, dead: false, stderr: '', channels, environments: new Map() };
    const startTimer = setTimeout(() => failReady(new Error('the cpython sandbox did not start in time')), START_TIMEOUT_MS);

    const reader = new ReplyFrameReader(
      MAX_ZYGOTE_REPLY_BYTES,
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
        let reply: Reply;
        try {
          reply = JSON.parse(body.toString('utf8')) as Reply;
        } catch {
          return this.violated(incarnation, 'a reply that is not JSON');
        }
        flight.settle(reply);
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
      channels.remove();
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

  /** The zygote broke the protocol: the calls fail, the sandbox is replaced. */
  private violated(incarnation: Incarnation, why: string): void {
    incarnation.stderr = `the sandbox sent ${why}`;
    this.kill(incarnation);
  }
}

/** Channel folders of sandboxes still running: removed when this process exits, if it exits before they end. */
const liveFolders = new Set<string>();
let removesAtExit = false;

interface ChannelFolder {
  /** The folder bound as the zygote's /tmp, where it makes each environment's FIFOs. */
  folder: string;
  remove(): void;
}

/**
 * A folder of this sandbox's own for the environments' channels, bound read-write as the
 * zygote's /tmp (each environment's process mounts its own /tmp over it, so no environment sees
 * it), in memory where the machine has /dev/shm (a FIFO made and unlinked on a disk's file
 * system costs a journal entry each time). The host's user's own (mode 0700); when the host runs as root, the jail's uid 65534 must
 * make FIFOs there: then it is 65534's (mode 0700) under a random name inside a folder of root's
 * that others can pass through but not list (mode 0711), so that no other process of uid 65534
 * on the host can find it.
 */
function channelFolder(plan: JailPlan): ChannelFolder {
  const made = mkdtempSync(path.join(memoryFolder(), 'spade-bench-channels-'));
  liveFolders.add(made);
  if (liveFolders.size === 1 && !removesAtExit) {
    removesAtExit = true;
    process.once('exit', () => {
      for (const folder of liveFolders) rmSync(folder, { recursive: true, force: true });
    });
  }
  const remove = (): void => {
    liveFolders.delete(made);
    rmSync(made, { recursive: true, force: true });
  };
  if (plan.uid === undefined) return { folder: made, remove };
  try {
    chmodSync(made, 0o711);
    const folder = path.join(made, randomBytes(16).toString('hex'));
    mkdirSync(folder, { mode: 0o700 });
    chownSync(folder, SANDBOX_ID, SANDBOX_ID);
    return { folder, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** /dev/shm where it is a folder this process can write to, else the temporary folder. */
function memoryFolder(): string {
  try {
    accessSync('/dev/shm', constants.W_OK | constants.X_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

