/**
 * Connections to Redis for BullMQ. BullMQ takes its Redis client from the `ioredis` package,
 * which is loaded only when a distributed run or a worker starts, like a provider's SDK.
 */
import { UsageError } from '../errors.js';

/** The queue every `spade-bench worker` takes environment evaluations from. */
export const EVALUATION_QUEUE = 'spade-bench-evaluations';

/** How long a run or worker waits for its first connection to Redis before it says it cannot reach it. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** The part of an ioredis client this module relies on; BullMQ receives the whole client. */
export interface RedisClient {
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
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

/**
 * `url` without its user name, password or query: what logs and errors may show of it. A text
 * that is no redis:// URL with a host (`user:pw@host:port`, `redis:/:pw@host`) shows only what
 * follows its last '@', since what comes before may be credentials.
 */
export function shownRedisUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed && /^rediss?:$/.test(parsed.protocol) && parsed.host) {
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  }
  const at = url.lastIndexOf('@');
  if (at >= 0) return `…@${url.slice(at + 1)}`;
  return /^(rediss?:\/\/)?[\w.-]+(:\d+)?(\/\d*)?$/.test(url) ? url : 'the --redis URL';
}

/**
 * A new connection to `url` (redis://host:port[/db]), as BullMQ wants it (commands wait for
 * reconnects), once it is ready. A server not reached within `timeoutMs` is a UsageError naming
 * it (without its password) and the last connection error: the client would retry for ever, and
 * BullMQ would wait on it in silence. Once connected, a dropped connection is retried.
 */
export async function connectRedis(url: string, timeoutMs = CONNECT_TIMEOUT_MS): Promise<RedisClient> {
  if (!/^rediss?:\/\//.test(url)) throw new UsageError(`--redis: expected a URL such as redis://127.0.0.1:6379, got ${JSON.stringify(shownRedisUrl(url))}`);
  const Redis = await (loaded ??= loadRedis());
  const client = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
  // Connection errors are retried by the client (after the first connection, BullMQ reports
  // its own); the last one says why the first connection did not come.
  let lastError: unknown;
  client.on('error', (error) => {
    lastError = error;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const why = lastError instanceof Error && lastError.message ? ` (${lastError.message.replace(/[.\s]+$/, '')})` : '';
        reject(new UsageError(`cannot reach Redis at ${shownRedisUrl(url)} within ${timeoutMs / 1000} s${why}: start redis-server there, or correct the address or its credentials in --redis`));
      }, timeoutMs);
      client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}
