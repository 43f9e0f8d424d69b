/**
 * The cpython sandbox: sandbox start (cold: bwrap, the zygote, the first load),
 * a warm load (a new environment: its own process, forked from the zygote) + dispose, a warm
 * step and a warm reset + step pair (target <= 0.1 ms).
 *
 * And what an environment costs the machine: the CPU time of the sandbox's processes per load +
 * dispose, read from /proc (the processes' own time and that of the children they reaped), and
 * the host process's own, with the wall time of the same loads.
 * Run: node --no-node-snapshot --import tsx perf/cpython.bench.ts
 */
import { readFileSync } from 'node:fs';
import { createCpythonSandbox } from '../plugins/sandboxes/cpython/sandbox.js';
import { coldAndWarm, latency } from './python-sandbox.js';
import { benchRows, publish } from './publish.js';
import { descendantsCpuMs } from './process-tree.js';

const { cold, warm } = await coldAndWarm('cpython', (limits) => createCpythonSandbox({ limits }), {
  start: 'sandbox start: bwrap + zygote + first load',
  load: 'load (a new environment) + dispose',
});
const pair = latency(warm, 'reset + step');

const source = readFileSync(new URL('../tests/fixtures/python/guess_number.py', import.meta.url), 'utf8');
const program = { id: 'bench/guess-number', language: 'python' as const, source };
const sandbox = createCpythonSandbox({ limits: { maxCalls: Number.POSITIVE_INFINITY } });
await (await sandbox.load(program)).dispose();
const LOADS = 300;
const cpuBefore = descendantsCpuMs();
const hostBefore = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < LOADS; i++) await (await sandbox.load(program)).dispose();
const wallMs = (performance.now() - started) / LOADS;
const cpuMs = (descendantsCpuMs() - cpuBefore) / LOADS;
const host = process.cpuUsage(hostBefore);
const hostMs = (host.user + host.system) / 1000 / LOADS;
await sandbox.close();
publish(import.meta.url, {
  about: "The cpython sandbox: sandbox start (bwrap, the zygote, the first load), then warm: a load (a new environment: its own process, forked from the zygote) + dispose, a step, a reset + step pair (target <= 0.1 ms); and the CPU time of the sandbox's processes and of the host's per environment.",
  tables: [
    { caption: cold.name, rows: benchRows(cold) },
    { caption: warm.name, rows: benchRows(warm) },
  ],
  notes: [
    // The mean carries this machine's rare stalls (a virtual CPU descheduled for milliseconds); the median does not.
    `warm reset + step: median ${pair.p50.toFixed(3)} ms, mean ${pair.mean.toFixed(3)} ms, p99 ${pair.p99.toFixed(3)} ms (target <= 0.1 ms)`,
    `per environment (load + dispose, ${LOADS} in a row): ${wallMs.toFixed(2)} ms wall, ${cpuMs.toFixed(2)} ms CPU of the sandbox's processes, ${hostMs.toFixed(2)} ms CPU of this (the host's) process`,
  ],
});
