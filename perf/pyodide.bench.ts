/**
 * The pyodide sandbox: interpreter start (cold: a new jailed child process, Pyodide start-up
 * and the first load), loading a program into a running interpreter (warm), a warm step
 * (target <= 1 ms) and a warm reset+step pair. A warm call crosses two hops each way (host ->
 * child process over a pipe, child -> interpreter thread by postMessage).
 * Run: node --no-node-snapshot --import tsx perf/pyodide.bench.ts
 */
import { createPyodideSandbox } from '../plugins/sandboxes/pyodide/sandbox.js';
import { coldAndWarm, latency } from './python-sandbox.js';
import { benchRows, publish } from './publish.js';

const { cold, warm } = await coldAndWarm('pyodide', (limits) => createPyodideSandbox({ limits }), {
  start: 'interpreter start: child process + Pyodide + first load',
  load: 'load (fresh namespace in a running interpreter) + dispose',
});
publish(import.meta.url, {
  about: 'The pyodide sandbox: interpreter start (a jailed child process, Pyodide start-up, the first load), then warm: a load into the running interpreter, a step (target <= 1 ms) and a reset + step pair.',
  tables: [{ caption: cold.name, rows: benchRows(cold) }, { caption: warm.name, rows: benchRows(warm) }],
  notes: [`warm step: median ${latency(warm, 'step').p50.toFixed(3)} ms (target <= 1 ms)`],
});
