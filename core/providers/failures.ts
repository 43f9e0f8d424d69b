/**
 * What went wrong with one request, read from whatever the SDK threw. The official SDKs
 * (openai, @anthropic-ai/sdk) throw errors with `status` and `headers`; fetch throws
 * TypeErrors for broken connections and SyntaxErrors for malformed JSON. Core never imports
 * an SDK, so this reads those shapes.
 */
import type { FailureKind } from './provider-error.js';

export interface Failure {
  kind: FailureKind;
  status?: number;
  retryable: boolean;
  /** How long the server asked us to wait (retry-after-ms, retry-after), in milliseconds. */
  retryAfterMs?: number;
  /** What happened, in words (may contain server text; redact before showing). */
  detail: string;
}

/** Thrown by a raw provider when the server answered with something it cannot use. */
export class UnusableReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnusableReplyError';
  }
}

const CONNECTION_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
]);

type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined | null;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/** The wait a server asks for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function parseRetryAfter(headers: HeaderSource, now = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = header(headers, 'retry-after');
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The chain of causes of an error (fetch hides the socket error in `cause`). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current && chain.length < 6 && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Classify what a raw chat call threw. */
export function classifyFailure(error: unknown): Failure {
  if (error instanceof UnusableReplyError) return { kind: 'bad-response', retryable: false, detail: error.message };
  const chain = causes(error);
  const e = error as { status?: unknown; headers?: HeaderSource; name?: string };
  const status = typeof e?.status === 'number' ? e.status : undefined;
  if (status !== undefined) {
    const retryAfterMs = parseRetryAfter(e.headers);
    const detail = messageOf(error);
    if (status === 429) return { kind: 'rate-limit', status, retryable: true, retryAfterMs, detail };
    if (status >= 500 || status === 408 || status === 409) return { kind: 'server', status, retryable: true, retryAfterMs, detail };
    if (status === 401 || status === 403) return { kind: 'auth', status, retryable: false, detail };
    return { kind: 'client', status, retryable: false, detail };
  }
  const names = chain.flatMap((c) => [(c as { name?: string })?.name, (c as object | undefined)?.constructor?.name]);
  if (names.some((n) => n === 'APIConnectionTimeoutError')) return { kind: 'timeout', retryable: true, detail: 'request timed out' };
  if (chain.some((c) => c instanceof SyntaxError)) {
    return { kind: 'bad-response', retryable: false, detail: `malformed JSON in the response: ${messageOf(chain.find((c) => c instanceof SyntaxError))}` };
  }
  // fetch would not make the request at all (a URL with a user name or password, a port it
  // blocks): the same request fails the same way every time, so it is not retried.
  const unsendable = chain.find((c) => c instanceof Error && /URL that includes credentials|^bad port$|^Invalid URL/i.test(c.message));
  if (unsendable) return { kind: 'client', retryable: false, detail: `the request cannot be made: ${messageOf(unsendable)}` };
  const codes = chain.map((c) => (c as { code?: unknown })?.code).filter((c): c is string => typeof c === 'string');
  const code = codes.find((c) => CONNECTION_CODES.has(c));
  if (code || names.some((n) => n === 'APIConnectionError') || chain.some((c) => c instanceof TypeError && /fetch failed|terminated|socket|network/i.test(c.message))) {
    return { kind: 'connection', retryable: true, detail: `connection failed${code ? ` (${code})` : ''}: ${messageOf(chain[chain.length - 1])}` };
  }
  if (names.some((n) => n === 'APIUserAbortError' || n === 'AbortError')) return { kind: 'aborted', retryable: false, detail: 'aborted' };
  return { kind: 'unknown', retryable: false, detail: messageOf(error) };
}
