/**
 * Entry of the jailed child process. It reads requests (one JSON object per line) on stdin,
 * passes them one at a time to the interpreter thread, and writes replies on stdout.
 *
 * It owns the wall-time limit: when a call runs past callTimeoutMs it raises KeyboardInterrupt
 * in Python through the shared interrupt buffer; if the call has not ended after a grace period
 * (a program that swallows the interrupt, or a loop in native code), it terminates the thread
 * and starts a new interpreter. Every environment of the old interpreter is then gone; the
 * reply says so (`replaced`) and the host reloads them.
 *
 * argv: [pyodideDir, pythonDir (the shared loader.py and math_verify.py), probeFile]
 */
import { Worker } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import { networkInterfaces } from 'node:os';
import { writeFileSync, rmSync } from 'node:fs';
import type { ReadyMessage, Reply, Request } from './protocol.js';

const [pyodideDir, pythonDir, probeFile] = process.argv.slice(2) as [string, string, string];
/** How long an interrupted call may take to unwind before its interpreter is replaced. */
const GRACE_MS = 300;
/** The interpreter thread's JavaScript heap (Python's memory is the WebAssembly heap, capped per call). */
const THREAD_HEAP_MB = 256;
const MAX_LINE_BYTES = 64 * 1024 * 1024;

interface Pending {
  request: Request;
  timer?: NodeJS.Timeout;
  grace?: NodeJS.Timeout;
  interrupted: boolean;
}

/** The interpreter thread's file has this file's extension (.js when built, .mjs when transpiled from source). */
const extension = import.meta.url.slice(import.meta.url.lastIndexOf('.'));
let interrupt = new SharedArrayBuffer(4);
let worker!: Worker;
let ready!: Promise<number>;
let current: Pending | undefined;
const queue: Request[] = [];
let replacedSinceLastReply = false;

function send(message: Reply | ReadyMessage | { fatal: string }): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function startInterpreter(): void {
  interrupt = new SharedArrayBuffer(4);
  const thread = new Worker(new URL(`./interpreter${extension}`, import.meta.url), {
    workerData: { pyodideDir, pythonDir, interrupt },
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    stdout: true,
    stderr: true,
  });
  thread.stdout.resume();
  thread.stderr.resume();
  worker = thread;
  ready = new Promise((resolve, reject) => {
    thread.once('message', (message: { ready?: boolean; startMs?: number }) => {
      if (message.ready) resolve(message.startMs ?? 0);
    });
    thread.once('error', reject);
  });
  ready.catch(() => undefined);
  thread.on('message', (message: Reply & { fatal?: boolean; ready?: boolean }) => {
    if (message.ready || thread !== worker) return;
    const { fatal, ...reply } = message;
    finish(reply as Reply, fatal === true);
  });
  thread.on('error', (error: Error & { code?: string }) => {
    if (thread !== worker || !current) return;
    const kind = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crash';
    finish({ id: current.request.id, ok: false, kind, message: `the interpreter died: ${error.message}` }, true);
  });
  thread.on('exit', () => {
    if (thread !== worker || !current) return;
    finish({ id: current.request.id, ok: false, kind: 'crash', message: 'the interpreter exited' }, true);
  });
}

function replaceInterpreter(): void {
  const old = worker;
  startInterpreter();
  replacedSinceLastReply = true;
  void old.terminate();
}

function finish(reply: Reply, replace: boolean): void {
  const pending = current;
  if (!pending || pending.request.id !== reply.id) return;
  clearTimeout(pending.timer);
  clearTimeout(pending.grace);
  current = undefined;
  if (pending.interrupted && (reply.ok || reply.kind === 'timeout' || reply.kind === 'crash')) {
    const limit = pending.request.op === 'dispose' ? 0 : pending.request.limits.callTimeoutMs;
    reply = { id: reply.id, ok: false, kind: 'timeout', message: `the call ran past its wall-time limit of ${limit} ms` };
  } else if (!reply.ok && reply.kind === 'timeout') {
    reply = { id: reply.id, ok: false, kind: 'crash', message: 'KeyboardInterrupt raised by the program' };
  }
  if (replace) replaceInterpreter();
  if (replacedSinceLastReply) {
    reply = { ...reply, replaced: true };
    replacedSinceLastReply = false;
  }
  send(reply);
  void next();
}

async function next(): Promise<void> {
  if (current || queue.length === 0) return;
  const request = queue.shift()!;
  const pending: Pending = { request, interrupted: false };
  current = pending;
  try {
    await ready;
  } catch (error) {
    current = undefined;
    send({ fatal: `the interpreter failed to start: ${(error as Error).message}` });
    process.exit(1);
  }
  if (request.op !== 'dispose') {
    pending.timer = setTimeout(() => {
      pending.interrupted = true;
      Atomics.store(new Int32Array(interrupt), 0, 2); // SIGINT: Python raises KeyboardInterrupt
      pending.grace = setTimeout(() => {
        finish({ id: request.id, ok: false, kind: 'timeout', message: 'did not stop when interrupted' }, true);
      }, GRACE_MS);
    }, request.limits.callTimeoutMs);
  }
  worker.postMessage(request);
}

function probeHostFolder(): boolean {
  try {
    writeFileSync(probeFile, 'probe');
    rmSync(probeFile, { force: true });
    return true;
  } catch {
    return false;
  }
}

startInterpreter();
const permission = (process as unknown as { permission?: { has(scope: string): boolean } }).permission;
const startMs = await ready.catch((error: Error) => {
  send({ fatal: `the interpreter failed to start: ${error.message}` });
  process.exit(1);
});
send({
  ready: true,
  environmentVariables: Object.keys(process.env),
  networkInterfaces: Object.keys(networkInterfaces()).filter((name) => name !== 'lo'),
  canWriteFiles: permission?.has('fs.write'),
  canStartProcesses: permission?.has('child'),
  hostFolderWritable: probeHostFolder(),
  startMs,
});

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line.length > MAX_LINE_BYTES) return;
  queue.push(JSON.parse(line) as Request);
  void next();
});
lines.on('close', () => process.exit(0));
