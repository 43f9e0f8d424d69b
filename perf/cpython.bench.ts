/**
 * The cpython sandbox: sandbox start (cold: bwrap, the interpreter importing numpy, networkx and
 * sympy, the first load), a warm load (a fresh interpreter state in the running interpreter), a
 * warm step and a warm reset + step pair (target <= 0.1 ms).
 *
 * And the measurement behind how it keeps environments apart (README, "Sandboxes"), all inside
 * the same jail: per environment, a fresh process forked from a warm server against a fresh
 * interpreter state in a long-lived process; and a round trip from the host straight to the
 * process that runs the environment against one relayed by a server in between (what a fork
 * server with a single pipe to the host would pay on every call).
 * Run: node --no-node-snapshot --import tsx perf/cpython.bench.ts
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { createCpythonSandbox } from '../plugins/sandboxes/cpython/sandbox.js';
import { coldAndWarm, latency } from './python-sandbox.js';
import { PYTHON, planJail } from '../plugins/sandboxes/cpython/jail.js';
import { makePipes } from '../plugins/sandboxes/cpython/pipes.js';
import { encodeFrame, FrameReader } from '../plugins/sandboxes/cpython/frames.js';
import { benchRows, figure, publish } from './publish.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const fixtures = path.join(root, 'tests/fixtures/python');
const { cold, warm } = await coldAndWarm('cpython', (limits) => createCpythonSandbox({ limits }), {
  start: 'sandbox start: bwrap + interpreter (numpy, networkx, sympy) + first load',
  load: 'load (a fresh interpreter state in the running interpreter) + dispose',
});
const pair = latency(warm, 'reset + step');

// ---------------------------------------------------------------------------------------------
// How to keep environments apart, measured in the jail (perf/python/isolation.py).
// ---------------------------------------------------------------------------------------------
const plan = planJail({ hardMemoryMb: 1024, pythonPath: [path.join(root, 'perf/python'), fixtures] });
const jailed = (args: string[]): string[] => [...plan.args.slice(0, plan.args.indexOf('--') + 1), PYTHON, '-s', '/python-path/0/isolation.py', ...args];

const costs = await new Promise<{ startMs: number; processMs: number; stateMs: number; residentMb: number }>((resolve, reject) => {
  const child = spawn(plan.command, jailed(['costs', '/spade', '/python-path/1/guess_number.py', '300']), { env: {}, uid: plan.uid, gid: plan.gid });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`isolation.py exited ${code}`))));
});

/** A jailed echo (`echo`: the process answers itself; `relay`: a server relays to a forked child). */
async function roundTrip(mode: 'echo' | 'relay'): Promise<{ call(): Promise<void>; close(): void }> {
  const pipes = makePipes(['to-child', 'from-child']);
  const child = spawn(plan.command, jailed([mode]), { env: {}, stdio: [...pipes.childFds, 'inherit'], uid: plan.uid, gid: plan.gid });
  pipes.closeChildEnds();
  const [requests, replies] = pipes.streams as [import('node:net').Socket, import('node:net').Socket];
  let waiting: (() => void) | undefined;
  const reader = new FrameReader(1 << 20, () => waiting?.(), (why) => console.error(why));
  replies.on('data', (chunk: Buffer) => reader.push(chunk));
  let id = 0;
  const call = (): Promise<void> =>
    new Promise((resolve) => {
      waiting = resolve;
      requests.write(encodeFrame({ id: ++id, method: 'step', args: ['\\boxed{50}'] }));
    });
  await call();
  return {
    call,
    close: () => {
      child.kill('SIGKILL');
      for (const stream of pipes.streams) stream.destroy();
    },
  };
}

const direct = await roundTrip('echo');
const relayed = await roundTrip('relay');
const trips = new Bench({ name: 'round trip host <-> jailed process (a canned step reply)', time: 2000, warmupTime: 300 });
trips.add('straight to the process that runs the environment', () => direct.call());
trips.add('relayed by a server in between', () => relayed.call());
await trips.run();
direct.close();
relayed.close();
publish(import.meta.url, {
  about: 'The cpython sandbox: sandbox start (bwrap, the interpreter importing numpy, networkx and sympy, the first load), then warm: a load (a fresh interpreter state), a step, a reset + step pair (target <= 0.1 ms); and, inside the same jail, what keeping environments apart costs and a round trip straight to the process against one relayed by a server.',
  tables: [
    { caption: cold.name, rows: benchRows(cold) },
    { caption: warm.name, rows: benchRows(warm) },
    {
      caption: 'keeping environments apart, per environment (load + reset + step), inside the jail',
      rows: [
        { way: 'fresh process (fork from a warm server, exit, reap)', 'ms per environment': figure(costs.processMs) },
        { way: 'fresh interpreter state (same process)', 'ms per environment': figure(costs.stateMs) },
      ],
    },
    { caption: trips.name, rows: benchRows(trips) },
  ],
  notes: [
    // The mean carries this machine's rare stalls (a virtual CPU descheduled for milliseconds); the median does not.
    `warm reset + step: median ${pair.p50.toFixed(3)} ms, mean ${pair.mean.toFixed(3)} ms, p99 ${pair.p99.toFixed(3)} ms (target <= 0.1 ms)`,
    `server start-up (numpy, networkx, sympy, loader): ${costs.startMs.toFixed(0)} ms, ${costs.residentMb.toFixed(0)} MiB resident`,
  ],
});
