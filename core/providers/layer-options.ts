/**
 * The options of the shared provider layer, and how they are read from a provider's config
 * entry (`providers["openai:gpt-4.1-mini"]: { requestsInFlight: 16, timeoutMs: 60000, ... }`).
 */
import { UsageError } from '../errors.js';
import { PROVIDER_DEFAULTS } from '../config/options.js';
import type { ProviderOptions } from '../config/plugin.js';
import type { RetryPolicy } from './backoff.js';
import type { FailureKind } from './provider-error.js';
import type { ModelPrice, PriceTable } from './prices.js';

export interface RetryEvent {
  providerId: string;
  /** The attempt that failed (1 for the first request). */
  attempt: number;
  kind: FailureKind;
  status?: number;
  /** How long the layer waits before the next attempt. */
  delayMs: number;
  /** True when the delay is the server's retry-after. */
  fromRetryAfter: boolean;
}

export interface ProviderLayerOptions {
  /** Model requests in flight at once for this provider. Default 10. */
  requestsInFlight?: number;
  /** Time allowed for one request, in ms; a request past it is aborted and retried. Default 180000. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Optional requests-per-minute limit. */
  requestsPerMinute?: number;
  /** Optional tokens-per-minute limit (input + output; estimated before a call, corrected after). */
  tokensPerMinute?: number;
  /** Folder of the response cache. No folder, no cache. */
  cacheDir?: string;
  /** False bypasses the cache (the CLI's --no-cache). Default true. */
  cache?: boolean;
  /** Prices merged over the built-in table, by model name. */
  prices?: PriceTable;
  /** This provider's price, whatever its model name. */
  price?: ModelPrice;
  /**
   * False: the provider does not carry tools, even if it could, so agents use SPADE's text
   * protocol (`<tool_call>` in the reply) with it. Default: what the provider supports.
   */
  tools?: boolean;
  /** Receives one line per retry and failure, already redacted. */
  log?: (line: string) => void;
  /** Called before each retry. */
  onRetry?: (event: RetryEvent) => void;
}

/** Model requests in flight at once, per provider, when its options set none. */
export const DEFAULT_REQUESTS_IN_FLIGHT = PROVIDER_DEFAULTS.requestsInFlight;
/** Time allowed for one request, in ms, when the provider's options set none. */
export const DEFAULT_TIMEOUT_MS = PROVIDER_DEFAULTS.timeoutMs;

function fail(where: string, key: string, expected: string, value: unknown): never {
  throw new UsageError(`${where}: "${key}" must be ${expected}, got ${JSON.stringify(value)}`);
}

function positive(where: string, key: string, value: unknown, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0) || (integer && !Number.isInteger(value))) {
    fail(where, key, integer ? 'a positive integer' : 'a positive number', value);
  }
  return value;
}

/** A price as `{ input, output }` (the config file's shape) or `{ inputPerMTok, outputPerMTok }`, USD per million tokens. */
function price(where: string, key: string, value: unknown): ModelPrice {
  const p = (value ?? {}) as { input?: unknown; output?: unknown; inputPerMTok?: unknown; outputPerMTok?: unknown };
  const input = p.inputPerMTok ?? p.input;
  const output = p.outputPerMTok ?? p.output;
  if (typeof input !== 'number' || typeof output !== 'number' || input < 0 || output < 0) {
    fail(where, key, '{ input: number, output: number } (USD per million tokens)', value);
  }
  return { inputPerMTok: input, outputPerMTok: output };
}

/** Read and check the layer's options from a provider's options. `where` names the config entry. */
export function layerOptionsFrom(options: ProviderOptions, where = `providers["${options.model}"]`): ProviderLayerOptions {
  const out: ProviderLayerOptions = {};
  if (options.concurrency !== undefined) throw new UsageError(`${where}.concurrency was renamed: use requestsInFlight`);
  out.requestsInFlight = positive(where, 'requestsInFlight', options.requestsInFlight, true);
  out.timeoutMs = positive(where, 'timeoutMs', options.timeoutMs, false);
  out.requestsPerMinute = positive(where, 'requestsPerMinute', options.requestsPerMinute, false);
  out.tokensPerMinute = positive(where, 'tokensPerMinute', options.tokensPerMinute, false);
  const retry = options.retry as Record<string, unknown> | undefined;
  if (retry !== undefined && (typeof retry !== 'object' || retry === null)) fail(where, 'retry', 'an object', retry);
  if (retry || options.maxRetries !== undefined) {
    const maxRetries = options.maxRetries ?? retry?.maxRetries;
    if (maxRetries !== undefined && (typeof maxRetries !== 'number' || !Number.isInteger(maxRetries) || maxRetries < 0)) {
      fail(where, 'maxRetries', 'a non-negative integer', maxRetries);
    }
    out.retry = {
      maxRetries: maxRetries as number | undefined,
      baseDelayMs: positive(where, 'retry.baseDelayMs', retry?.baseDelayMs, false),
      maxDelayMs: positive(where, 'retry.maxDelayMs', retry?.maxDelayMs, false),
      maxRetryAfterMs: positive(where, 'retry.maxRetryAfterMs', retry?.maxRetryAfterMs, false),
    };
  }
  if (options.cacheDir !== undefined) {
    if (typeof options.cacheDir !== 'string' || !options.cacheDir) fail(where, 'cacheDir', 'a folder path', options.cacheDir);
    out.cacheDir = options.cacheDir;
  }
  if (options.cache !== undefined) {
    if (typeof options.cache !== 'boolean') fail(where, 'cache', 'true or false', options.cache);
    out.cache = options.cache;
  }
  if (options.tools !== undefined) {
    if (typeof options.tools !== 'boolean') fail(where, 'tools', 'true or false', options.tools);
    out.tools = options.tools;
  }
  if (options.price !== undefined) out.price = price(where, 'price', options.price);
  if (options.prices !== undefined) {
    if (typeof options.prices !== 'object' || options.prices === null) fail(where, 'prices', 'an object of model prices', options.prices);
    out.prices = Object.fromEntries(Object.entries(options.prices).map(([model, p]) => [model, price(where, `prices.${model}`, p)]));
  }
  if (options.log !== undefined) {
    if (typeof options.log !== 'function') fail(where, 'log', 'a function', typeof options.log);
    out.log = options.log as (line: string) => void;
  }
  if (options.onRetry !== undefined) {
    if (typeof options.onRetry !== 'function') fail(where, 'onRetry', 'a function', typeof options.onRetry);
    out.onRetry = options.onRetry as (event: RetryEvent) => void;
  }
  return out;
}
