/**
 * Connections to Redis for BullMQ. BullMQ takes its Redis client from the `ioredis` package,
 * which is loaded only when a distributed run or a worker starts, like a provider's SDK.
 */
import { UsageError } from '../errors.js';

/** The queue every `spade-bench worker` takes environment evaluations from. */
export const EVALUATION_QUEUE = 'spade-bench-evaluations';

/** The part of an ioredis client this module relies on; BullMQ receives the whole client. */
export interface RedisClient {
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

type RedisConstructor = new (url: string, options: Record<string, unknown>) => RedisClient;

let loaded: Promise<RedisConstructor> | undefined;

async function loadRedis(): Promise<RedisConstructor> {
  // A computed specifier: ioredis is optional, needed only by distributed runs.
  const name = 'ioredis';
  try {
    const mod = (await import(name)) as { Redis?: RedisConstructor; default?: RedisConstructor };
    return (mod.Redis ?? mod.default)!;
  } catch {
    throw new UsageError('distributed runs (--redis) need the ioredis package: npm install ioredis');
  }
}

/** A new connection to `url` (redis://host:port[/db]), as BullMQ wants it (commands wait for reconnects). */
export async function connectRedis(url: string): Promise<RedisClient> {
  if (!/^rediss?:\/\//.test(url)) throw new UsageError(`--redis: expected a URL such as redis://127.0.0.1:6379, got ${JSON.stringify(url)}`);
  const Redis = await (loaded ??= loadRedis());
  const client = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
  // Connection errors are retried by the client and surface in BullMQ's own 'error' events.
  client.on('error', () => {});
  return client;
}
