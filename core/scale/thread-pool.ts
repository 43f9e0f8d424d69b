/**
 * All cores of one machine: an Evaluator that spreads environment evaluations over worker
 * threads (one per core by default), each with its own sandboxes and its own agent built from
 * the run's config. The journal, the designer and self-play's rounds stay on the main thread:
 * each verdict and episode comes back as it is done and goes through the context's callbacks
 * there, so results, journal and resume are those of the in-thread evaluator.
 *
 * Only agents that declare it (`Agent.workerThreads`: the offline reference policy) go to
 * threads. A model-driven agent spends its time waiting on the provider, whose request and
 * rate limits live in one shared layer on the main thread, so its environments are evaluated
 * there (`--environments-in-flight` sets how many at once) and the pool is not used.
 *
 * Worker threads inherit the process's execArgv, so `--no-node-snapshot` (which isolated-vm
 * needs) reaches them. Python environments get a Pyodide sandbox per thread, with the thread's
 * share of the cores as interpreter processes (one each for two threads on two cores).
 */
import type { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { SpadeConfig } from '../config/config.js';
import { evaluateEnvironment, type Evaluation, type EvaluationContext, type Evaluator } from '../run/evaluate.js';
import type { EnvironmentProgram } from '../types.js';
import { deliverFreshWork, toEvaluationJob, unpackEvaluation } from './evaluation-job.js';
import type { FromThread, ThreadData, ToThread } from './thread-entry.js';

export interface ThreadPoolOptions {
  config: SpadeConfig;
  /** Worker threads (default: one per core). */
  workers?: number;
  /** Evaluations handed to one thread at a time (default 2, so a thread never waits for the next). */
  perThread?: number;
  /** Folder plugin paths in the config are relative to (default: the current folder). */
  cwd?: string;
  /**
   * Start every thread now, so they load their modules and sandboxes while the run sets up:
   * pass the run's `agent.workerThreads` (threads for an agent that stays on the main thread
   * would idle). Default false: threads start with the first evaluation.
   */
  start?: boolean;
}

export interface ThreadPool {
  /** Pass as `RunSetup.evaluator`. */
  readonly evaluate: Evaluator;
  readonly workers: number;
  /** Resolves when every thread has started and built its sandboxes and agent (benchmarks wait for it). */
  ready(): Promise<void>;
  /** Stop the threads (after their sandboxes are closed). */
  close(): Promise<void>;
}

interface Pending {
  id: number;
  program: EnvironmentProgram;
  taskSeed: number;
  ctx: EvaluationContext;
  resolve: (evaluation: Evaluation) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  inFlight: Map<number, Pending>;
  /** Settles when the thread has built its parts, or is lost. */
  ready: Promise<void>;
}

/** node:worker_threads, loaded with the first thread: a run that plays on the main thread never starts one (~5 ms of start-up). */
let workerThreads: typeof import('node:worker_threads') | undefined;

/**
 * Options of every thread. Node's fd tracking is off: it lists each fd a thread opens with
 * fs.open and closes every listed fd when the thread exits. The cpython sandbox opens its
 * channels' FIFOs with fs.open and hands them to net.Socket, which closes them without telling
 * that list; so the list kept numbers the process had since given to other files, warned when a
 * number came back ("opened in unmanaged mode twice"), and the thread's exit closed whatever
 * held those numbers then: the main thread's journal or another thread's channels. Each
 * thread's sandboxes close their own files, and a thread's sockets close with it when it is
 * stopped.
 */
const THREAD_OPTIONS = { trackUnmanagedFds: false };

/** Start the thread entry: compiled JavaScript as is, TypeScript sources (tsx) through tsx's loader. */
function startThread(data: ThreadData): Worker {
  const { Worker } = (workerThreads ??= createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads'));
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const entry = new URL('./thread-entry.ts', here).href;
    // tsx is resolved here, from this module: the eval'd code would look for it from the current folder.
    const api = import.meta.resolve('tsx/esm/api');
    const code = `import(${JSON.stringify(api)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
    return new Worker(code, { ...THREAD_OPTIONS, eval: true, workerData: data });
  }
  return new Worker(new URL('./thread-entry.js', here), { ...THREAD_OPTIONS, workerData: data });
}

export function createThreadPool(options: ThreadPoolOptions): ThreadPool {
  const workers = Math.max(1, Math.floor(options.workers ?? availableParallelism()));
  const perThread = Math.max(1, Math.floor(options.perThread ?? 2));
  // Each thread's Python sandbox gets its share of the cores (2 threads on 2 cores: one interpreter each).
  const sandboxWorkers = Math.max(1, Math.floor(availableParallelism() / workers));
  const data: ThreadData = { config: options.config, cwd: options.cwd ?? process.cwd(), sandboxWorkers };
  const threads: Thread[] = [];
  const queue: Pending[] = [];
  let nextId = 0;
  let closed = false;

  const send = (thread: Thread, message: ToThread): void => thread.worker.postMessage(message);

  function lose(thread: Thread, error: Error): void {
    const index = threads.indexOf(thread);
    if (index >= 0) threads.splice(index, 1);
    for (const pending of thread.inFlight.values()) pending.reject(error);
    thread.inFlight.clear();
    dispatch();
  }

  function spawn(): Thread {
    const worker = startThread(data);
    const ready = new Promise<void>((resolve) => {
      worker.on('message', (message: FromThread) => message.type === 'ready' && resolve());
      worker.once('exit', () => resolve());
    });
    const thread: Thread = { worker, inFlight: new Map(), ready };
    thread.worker.on('message', (message: FromThread) => {
      if (message.type === 'closed' || message.type === 'ready') return;
      const pending = thread.inFlight.get(message.id);
      if (!pending) return;
      if (message.type === 'fresh') {
        for (const work of message.work) deliverFreshWork(work, pending.program, pending.ctx);
        return;
      }
      thread.inFlight.delete(message.id);
      if (message.type === 'done') {
        for (const work of message.fresh) deliverFreshWork(work, pending.program, pending.ctx);
        pending.resolve(unpackEvaluation(message.evaluation, pending.program));
      } else pending.reject(new Error(`worker thread: ${message.message}`));
      dispatch();
    });
    thread.worker.on('error', (error) => lose(thread, error));
    thread.worker.on('exit', (code) => lose(thread, new Error(`worker thread exited with code ${code}`)));
    threads.push(thread);
    return thread;
  }

  /** One listener per run signal: on abort, every evaluation of that run in a thread stops. */
  const watched = new WeakSet<AbortSignal>();
  function watch(signal: AbortSignal | undefined): void {
    if (!signal || watched.has(signal)) return;
    watched.add(signal);
    signal.addEventListener('abort', () => {
      for (const thread of threads) for (const p of thread.inFlight.values()) if (p.ctx.signal === signal) send(thread, { type: 'abort', id: p.id });
    }, { once: true });
  }

  function dispatch(): void {
    while (queue.length && !closed) {
      let thread = threads.reduce<Thread | undefined>((best, t) => (t.inFlight.size < perThread && (!best || t.inFlight.size < best.inFlight.size) ? t : best), undefined);
      // A new thread while some thread is busy and there is room for one.
      if ((!thread || thread.inFlight.size > 0) && threads.length < workers) thread = spawn();
      if (!thread) return;
      const pending = queue.shift()!;
      thread.inFlight.set(pending.id, pending);
      send(thread, { type: 'job', id: pending.id, job: toEvaluationJob(pending.program, pending.taskSeed, pending.ctx) });
      watch(pending.ctx.signal);
      if (pending.ctx.signal?.aborted) send(thread, { type: 'abort', id: pending.id });
    }
  }

  if (options.start) while (threads.length < workers) spawn();

  const evaluate: Evaluator = (program, taskSeed, ctx) => {
    if (!ctx.agent.workerThreads) return evaluateEnvironment(program, taskSeed, ctx);
    if (closed) return Promise.reject(new Error('the thread pool is closed'));
    return new Promise<Evaluation>((resolve, reject) => {
      queue.push({ id: nextId++, program, taskSeed, ctx, resolve, reject });
      dispatch();
    });
  };

  return {
    evaluate,
    workers,
    async ready() {
      while (threads.length < workers && !closed) spawn();
      await Promise.all(threads.map((t) => t.ready));
    },
    async close() {
      closed = true;
      for (const pending of queue.splice(0)) pending.reject(new Error('the thread pool is closed'));
      await Promise.all(
        threads.splice(0).map(async (thread) => {
          thread.worker.removeAllListeners('exit');
          thread.worker.removeAllListeners('error');
          thread.worker.on('error', () => {});
          const closedReply = new Promise<void>((resolve) => {
            thread.worker.on('message', (m: FromThread) => m.type === 'closed' && resolve());
            thread.worker.once('exit', () => resolve());
          });
          send(thread, { type: 'close' });
          // Sandboxes close in a moment; a thread stuck in a call is stopped anyway.
          await Promise.race([closedReply, new Promise((r) => setTimeout(r, 5000).unref())]);
          await thread.worker.terminate();
        }),
      );
    },
  };
}
