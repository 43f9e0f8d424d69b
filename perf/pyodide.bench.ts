/**
 * The pyodide sandbox: interpreter start (cold: a new jailed child process, Pyodide start-up
 * and the first load), loading a program into a running interpreter (warm), a warm step
 * (target <= 1 ms) and a warm reset+step pair. A warm call crosses two hops each way (host ->
 * child process over a pipe, child -> interpreter thread by postMessage).
 * Run: node --no-node-snapshot --import tsx perf/pyodide.bench.ts
 */
import { createPyodideSandbox } from '../plugins/sandboxes/pyodide/sandbox.js';
import { coldAndWarm, latency } from './python-sandbox.js';

const warm = await coldAndWarm('pyodide', (limits) => createPyodideSandbox({ limits }), {
  start: 'interpreter start: child process + Pyodide + first load',
  load: 'load (fresh namespace in a running interpreter) + dispose',
});
console.log(`warm step: ${latency(warm, 'step').mean.toFixed(3)} ms (target <= 1 ms)`);
