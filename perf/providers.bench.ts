/**
 * Provider throughput: a local OpenAI-protocol server (in another process) answers every
 * request after 50 ms; the real openai SDK behind the shared layer sends batches of requests
 * with 8, 32 and 128 requests in flight. Achieved requests/s over the ideal (in flight / 0.05 s)
 * measures what the SDK, the HTTP client and the layer cost. Target: >= 0.8 at 32. Client CPU
 * per request is printed too: unlike the ratio, it barely depends on what else the machine runs.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Bench } from 'tinybench';
import openai from '../plugins/providers/openai.js';
import { figure, publish } from './publish.js';

const SERVER_DELAY_MS = 50;
const IN_FLIGHT = [8, 32, 128];
/** Requests per measured batch, per request in flight. */
const WAVES = 8;

const server = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'tests/helpers/wire-servers.ts', 'openai', String(SERVER_DELAY_MS)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [firstChunk] = (await once(server.stdout!, 'data')) as [Buffer];
const baseURL = firstChunk.toString().trim().split('\n')[0]!;

const bench = new Bench({ name: 'providers', iterations: 5, time: 0, warmupIterations: 2, warmupTime: 0 });
const batchSize = new Map<string, { inFlight: number; requests: number; cpuMicros: number; sent: number }>();
for (const inFlight of IN_FLIGHT) {
  const provider = await openai.create({ model: 'bench-model', apiKey: 'sk-bench-local-0123456789', baseURL, requestsInFlight: inFlight, maxRetries: 0 });
  const requests = inFlight * WAVES;
  const name = `${inFlight} in flight (${requests} requests)`;
  const entry = { inFlight, requests, cpuMicros: 0, sent: 0 };
  batchSize.set(name, entry);
  bench.add(name, async () => {
    const cpu = process.cpuUsage();
    await Promise.all(Array.from({ length: requests }, (_, i) => provider.chat({ messages: [{ role: 'user', content: `request ${i}` }], maxTokens: 16 })));
    const used = process.cpuUsage(cpu);
    entry.cpuMicros += used.user + used.system;
    entry.sent += requests;
  });
}

try {
  await bench.run();
  const rows = bench.tasks.map((task) => {
    const { inFlight, requests, cpuMicros, sent } = batchSize.get(task.name)!;
    const result = task.result as { latency?: { mean: number; min: number } };
    const meanMs = result.latency?.mean ?? NaN;
    const achieved = requests / (meanMs / 1000);
    const ideal = inFlight / (SERVER_DELAY_MS / 1000);
    return {
      task: task.name,
      'batch ms (mean)': figure(meanMs),
      'achieved req/s': Math.round(achieved),
      'ideal req/s': Math.round(ideal),
      'achieved / ideal': figure(achieved / ideal),
      'client CPU ms / request': figure(cpuMicros / 1000 / sent),
    };
  });
  publish(import.meta.url, {
    about: `The real openai SDK behind the shared layer against a local server (another process) answering after ${SERVER_DELAY_MS} ms, batches of requests at ${IN_FLIGHT.join(', ')} in flight: achieved requests/s over the ideal (in flight / ${SERVER_DELAY_MS} ms) is what the SDK, Node's fetch and the layer cost. Target: >= 0.8 at 32.`,
    tables: [{ rows }],
  });
} finally {
  server.kill('SIGTERM');
}
