/**
 * Host side of one jailed child process holding one Pyodide interpreter: starts it, checks from
 * the child's own report that the protections claimed are in force, and sends it requests one
 * at a time (the child serves them in order anyway; sending one at a time lets each request's
 * backstop timer measure only its own run).
 *
 * `generation` counts how many times the environments inside were lost (the interpreter was
 * replaced after a timeout or memory breach, or the process died); an environment loaded in an
 * older generation must be reloaded before its next call.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { JailPlan } from './jail.js';
import type { ChildMessage, ReadyMessage, Reply, Request } from './protocol.js';

/** Longest reply line accepted from the child (the interpreter caps replies well below this). */
const MAX_LINE_CHARS = 32 * 1024 * 1024;
/** Time allowed for the interpreter to start (Pyodide takes about 3 s). */
const START_TIMEOUT_MS = 60_000;
/** Slack on top of a call's own limit before the host kills the whole child. */
const BACKSTOP_SLACK_MS = 15_000;

type Body = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;

interface Waiting {
  body: Body;
  backstopMs: number;
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

export class InterpreterProcess {
  generation = 0;
  /** Environments currently loaded here (for spreading the load across processes). */
  environments = 0;
  private child: ChildProcess | undefined;
  private ready: Promise<ReadyMessage> | undefined;
  private readonly queue: Waiting[] = [];
  private busy = false;
  private nextId = 1;
  private closed = false;
  private stderrTail = '';
  private backstopFired = false;

  constructor(
    private readonly plan: JailPlan,
    private readonly verify: (ready: ReadyMessage) => string | undefined,
  ) {}

  /** Start the child now (it starts on first use otherwise). */
  start(): Promise<ReadyMessage> {
    if (this.ready) return this.ready;
    const child = spawn(this.plan.command, this.plan.args, { env: {}, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    let buffer = '';
    let onMessage: (message: ChildMessage) => void = () => undefined;
    this.ready = new Promise<ReadyMessage>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('the Pyodide interpreter did not start in time')), START_TIMEOUT_MS);
      const fail = (error: Error) => {
        clearTimeout(timer);
        this.kill(child);
        reject(error);
      };
      onMessage = (message) => {
        if ('fatal' in message) return fail(new Error(message.fatal));
        if (!('ready' in message)) return this.onReply(message);
        clearTimeout(timer);
        const problem = this.verify(message);
        if (problem) return fail(new Error(`refusing the Python sandbox: ${problem}`));
        resolve(message);
      };
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the interpreter process exited (${signal ?? code}): ${this.stderrTail.slice(-500)}`));
        this.onExit(child);
      });
      child.once('error', fail);
    });
    this.ready.catch(() => undefined);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let message: ChildMessage;
        try {
          message = JSON.parse(line) as ChildMessage;
        } catch {
          continue; // not a protocol line: ignored
        }
        onMessage(message);
      }
      if (buffer.length > MAX_LINE_CHARS) this.kill(child);
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
    });
    child.stdin!.on('error', () => undefined);
    return this.ready;
  }

  /** Send one request; resolves with the child's reply. Rejects only if the child cannot be started. */
  request(body: Body, backstopMs: number): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.queue.push({ body, backstopMs, resolve, reject });
      void this.pump();
    });
  }

  private current: { id: number; waiting: Waiting; timer: NodeJS.Timeout } | undefined;

  private async pump(): Promise<void> {
    if (this.busy || this.closed) return;
    const waiting = this.queue.shift();
    if (!waiting) return;
    this.busy = true;
    try {
      await this.start();
    } catch (error) {
      this.busy = false;
      this.ready = undefined;
      waiting.reject(error as Error);
      void this.pump();
      return;
    }
    const id = this.nextId++;
    const child = this.child!;
    const timer = setTimeout(() => {
      // The child did not answer even after its own limits: kill it; onExit answers the caller.
      this.backstopFired = true;
      this.kill(child);
    }, waiting.backstopMs + BACKSTOP_SLACK_MS);
    this.current = { id, waiting, timer };
    child.stdin!.write(`${JSON.stringify({ ...waiting.body, id })}\n`);
  }

  private onReply(reply: Reply): void {
    const current = this.current;
    if (!current || current.id !== reply.id) return;
    clearTimeout(current.timer);
    this.current = undefined;
    this.busy = false;
    if (reply.replaced) {
      this.generation++;
      this.environments = 0;
    }
    current.waiting.resolve(reply);
    void this.pump();
  }

  private onExit(child: ChildProcess): void {
    if (child !== this.child) return;
    this.child = undefined;
    this.ready = undefined;
    this.generation++;
    this.environments = 0;
    const current = this.current;
    this.current = undefined;
    this.busy = false;
    const backstop = this.backstopFired;
    this.backstopFired = false;
    if (current) {
      clearTimeout(current.timer);
      current.waiting.resolve({
        id: current.id,
        ok: false,
        kind: backstop ? 'timeout' : 'crash',
        message: backstop
          ? 'the interpreter process stopped answering and was killed'
          : `the interpreter process died during the call${this.stderrTail ? `: ${this.stderrTail.slice(-300)}` : ''}`,
        replaced: true,
      });
    }
    void this.pump();
  }

  private kill(child: ChildProcess): void {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.queue.splice(0)) waiting.reject(new Error('the sandbox was closed'));
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin!.end();
    this.kill(child);
    await exited;
  }
}
