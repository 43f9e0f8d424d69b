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

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const fixtures = path.join(root, 'tests/fixtures/python');
const warm = await coldAndWarm('cpython', (limits) => createCpythonSandbox({ limits }), {
  start: 'sandbox start: bwrap + interpreter (numpy, networkx, sympy) + first load',
  load: 'load (a fresh interpreter state in the running interpreter) + dispose',
});
const pair = latency(warm, 'reset + step');
// The mean carries this machine's rare stalls (a virtual CPU descheduled for milliseconds); the median does not.
console.log(`warm reset + step: median ${pair.p50.toFixed(3)} ms, mean ${pair.mean.toFixed(3)} ms, p99 ${pair.p99.toFixed(3)} ms (target <= 0.1 ms)`);

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
console.log('keeping environments apart, per environment (load + reset + step), inside the jail');
console.table([
  { way: 'fresh process (fork from a warm server, exit, reap)', 'ms per environment': costs.processMs.toFixed(3) },
  { way: 'fresh interpreter state (same process)', 'ms per environment': costs.stateMs.toFixed(3) },
]);
console.log(`server start-up (numpy, networkx, sympy, loader): ${costs.startMs.toFixed(0)} ms, ${costs.residentMb.toFixed(0)} MiB resident`);

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
console.log(trips.name);
console.table(trips.table());
direct.close();
relayed.close();
