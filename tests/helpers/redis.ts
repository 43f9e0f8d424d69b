/**
 * A real `redis-server` for a test: started on 127.0.0.1 on a free port, with no persistence,
 * and stopped after. Where redis-server (or the ioredis client BullMQ needs) is not installed,
 * `redisMissing()` says why, and the tests are skipped with that reason printed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoRoot, tempDir } from './cli.js';

export interface RedisServer {
  url: string;
  port: number;
  /** The redis-server process (benchmarks read its CPU time). */
  pid: number;
  stop(): Promise<void>;
}

/** Why distributed tests cannot run here, or undefined when they can. */
export function redisMissing(): string | undefined {
  if (spawnSync('redis-server', ['--version']).error) return 'redis-server not installed';
  try {
    createRequire(import.meta.url).resolve('ioredis');
  } catch {
    return 'ioredis not installed';
  }
  return undefined;
}

/** A port on 127.0.0.1 that was free a moment ago: nothing listens on it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tempDir('spade-redis-')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${port}:\n${output}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      output += d;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with code ${code}:\n${output}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A `spade-bench worker` process on `url` (the worker command's own code), resolved once it
 * says it is taking jobs. Lock and stall-check times shorter than BullMQ's defaults, so a killed
 * worker's job comes back within seconds, yet long enough that a job whose worker's event loop is
 * held by synchronous sandbox calls on a busy machine is not taken for stalled.
 */
export async function startWorkerProcess(url: string, name: string, options: { lockDuration?: number; stalledInterval?: number } = {}): Promise<ChildProcess> {
  const entry = path.join(repoRoot, 'core/cli/worker-command.ts');
  const code = `import(${JSON.stringify(entry)}).then((m) => m.workerCommand(JSON.parse(process.argv[1]))).then((c) => process.exit(c))`;
  const args = { redis: url, name, lockDuration: options.lockDuration ?? 10_000, stalledInterval: options.stalledInterval ?? 1000 };
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', '-e', code, JSON.stringify(args)], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      if (stderr.includes('taking jobs')) resolve();
    });
    child.once('exit', (c) => reject(new Error(`worker ${name} exited (${c}): ${stderr}`)));
  });
  return child;
}

/** Stop worker processes (SIGTERM: they finish the job in hand) and wait for them. */
export function stopProcesses(children: Iterable<ChildProcess>): Promise<void> {
  return Promise.all(
    [...children].map((child) => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    })),
  ).then(() => {});
}
