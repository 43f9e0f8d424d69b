/**
 * The shared provider layer. Every provider is a raw `chat` function wrapped here with:
 * the response cache, requests/tokens-per-minute limits, a limit of requests in flight, a timeout per
 * request, retries with backoff (honouring retry-after) on 429, 5xx, timeouts and dropped
 * connections, usage and cost per call, per-provider stats, and redaction of keys.
 */
import type { ChatChoice, ChatRequest, ChatResponse, Provider, TokenUsage, ToolCall } from '../types.js';
import { flushCacheLogs } from '../results/fs.js';
import { DEFAULT_RETRY, backoffDelay, sleep, type RetryPolicy } from './backoff.js';
import { InFlightLimit } from './in-flight-limit.js';
import { UnusableReplyError, classifyFailure, type Failure } from './failures.js';
import { DEFAULT_REQUESTS_IN_FLIGHT, DEFAULT_TIMEOUT_MS, type ProviderLayerOptions } from './layer-options.js';
import { DEFAULT_PRICES, costOf, priceOf, type ModelPrice } from './prices.js';
import { ProviderError } from './provider-error.js';
import { RateWindow } from './rate-window.js';
import { redact, registerSecret } from './redact.js';
import { ResponseCache, cacheKey } from './response-cache.js';
import { ProviderStats, shares } from './stats.js';

/** What a raw chat function returns: the reply text, the tools it called, and the tokens the server counted. */
export interface RawChatResult {
  text: string;
  /** The model's tool calls, in order (providers with `tools: true`). */
  toolCalls?: ToolCall[];
  usage: TokenUsage;
  /** Why the (first) sample stopped, as the server says (`stop`, `length`...). */
  finishReason?: string;
  /** Every sample, in order, when the request asked for n > 1 and the provider takes n (`samples: true`). */
  choices?: { text: string; finishReason: string }[];
}

/** A provider before the layer: one request, one attempt, no retries of its own. */
export interface RawProvider {
  /** Full id, e.g. `openai:gpt-4.1-mini`. */
  id: string;
  model: string;
  /** Base URL requests go to: part of the cache key, named when the server cannot be reached. */
  endpoint?: string;
  /** Keys this provider sends: redacted everywhere. */
  secrets?: readonly (string | undefined)[];
  /** Model parameters sent with every request (part of the cache key). */
  params?: Record<string, unknown>;
  /**
   * True when `chat` sends `request.tools` as native function calling and reads the calls
   * back into `toolCalls` (tool messages included). The layer refuses requests with tools otherwise.
   */
  tools?: boolean;
  /**
   * True when `chat` sends `request.n` in one request and returns every sample in `choices`
   * (OpenAI, vLLM). Otherwise the layer sends n requests of one sample each.
   */
  samples?: boolean;
  /** Send one request. Must stop when `signal` aborts. */
  chat(request: ChatRequest, signal: AbortSignal): Promise<RawChatResult>;
  close?(): Promise<void>;
}

/** A provider wrapped by the layer: a Provider with stats. */
export interface ManagedProvider extends Provider {
  readonly model: string;
  readonly stats: ProviderStats;
}

/**
 * The stats of a provider made by `withProviderLayer` (undefined for any other provider).
 * Read from the provider itself, so it also works for plugins loaded with their own copy of core.
 */
export function statsOf(provider: Provider): ProviderStats | undefined {
  const stats = (provider as Partial<ManagedProvider>).stats;
  return stats && typeof stats.usage === 'function' && typeof stats.latency === 'function' ? stats : undefined;
}

/** A rough token count before a call (about four characters a token), tools and tool calls included. */
export function estimateTokens(request: ChatRequest): number {
  let chars = 0;
  for (const m of request.messages) {
    chars += m.content.length + 8;
    if (m.role === 'assistant' && m.toolCalls) for (const call of m.toolCalls) chars += call.name.length + JSON.stringify(call.arguments).length + 16;
  }
  if (request.tools) chars += JSON.stringify(request.tools).length;
  return Math.ceil(chars / 4) + (request.maxTokens ?? 0);
}

function describe(failure: Failure, endpoint: string | undefined): string {
  switch (failure.kind) {
    case 'rate-limit':
      return `rate limited (HTTP ${failure.status})`;
    case 'server':
      return `server error (HTTP ${failure.status})`;
    case 'auth':
      return `authentication failed (HTTP ${failure.status}): check the API key`;
    case 'client':
      return failure.status === undefined ? `cannot send a request to ${endpoint ?? 'the server'}` : `request rejected (HTTP ${failure.status})`;
    case 'timeout':
      return 'no reply within the request timeout';
    case 'connection':
      // A connection that was made and then broke (reset, closed mid-reply) reached the server.
      return /ECONNRESET|EPIPE|terminated|other side closed|socket hang up/i.test(failure.detail) && !/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|UNREACH/.test(failure.detail)
        ? `the connection to ${endpoint ?? 'the server'} broke`
        : `could not reach ${endpoint ?? 'the server'}`;
    case 'bad-response':
      return 'unusable reply from the server';
    default:
      return failure.status ? `HTTP ${failure.status}` : 'request failed';
  }
}

function checkToolCalls(calls: unknown): ToolCall[] | undefined {
  if (calls === undefined || calls === null) return undefined;
  if (!Array.isArray(calls)) throw new UnusableReplyError('the reply\'s tool calls are not a list');
  const checked = calls.map((call: Partial<ToolCall> | null): ToolCall => {
    const args = call?.arguments;
    if (typeof call?.id !== 'string' || typeof call.name !== 'string' || args === null || typeof args !== 'object' || Array.isArray(args)) {
      throw new UnusableReplyError('a tool call of the reply has no id, name or arguments object');
    }
    const out: ToolCall = { id: call.id, name: call.name, arguments: args };
    if (typeof call.invalidArguments === 'string') out.invalidArguments = call.invalidArguments;
    return out;
  });
  return checked.length > 0 ? checked : undefined;
}

function checkResult(result: unknown): RawChatResult {
  const r = result as Partial<RawChatResult> | undefined;
  const input = Number(r?.usage?.inputTokens ?? 0);
  const output = Number(r?.usage?.outputTokens ?? 0);
  if (typeof r?.text !== 'string') throw new UnusableReplyError('the reply has no text');
  const toolCalls = checkToolCalls(r.toolCalls);
  const choices = r.choices;
  if (choices !== undefined && !(Array.isArray(choices) && choices.every((c) => typeof c?.text === 'string'))) throw new UnusableReplyError('a sample of the reply has no text');
  return {
    text: r.text,
    ...(toolCalls && { toolCalls }),
    usage: { inputTokens: Number.isFinite(input) ? input : 0, outputTokens: Number.isFinite(output) ? output : 0 },
    ...(typeof r.finishReason === 'string' && { finishReason: r.finishReason }),
    ...(choices && { choices: choices.map((c) => ({ text: c.text, finishReason: typeof c.finishReason === 'string' ? c.finishReason : '' })) }),
  };
}

/**
 * The samples of one request that returned several: each with an even share of the request's
 * tokens (servers count a request's tokens, not each sample's), marked as such.
 */
function sharedChoices(choices: readonly { text: string; finishReason: string }[], usage: TokenUsage): ChatChoice[] {
  const input = shares(usage.inputTokens, choices.length);
  const output = shares(usage.outputTokens, choices.length);
  return choices.map((c, i) => ({ text: c.text, finishReason: c.finishReason, usage: { inputTokens: input[i]!, outputTokens: output[i]! }, sharedUsage: true }));
}

/** One sample's reply as a choice: its own text, finish reason and tokens. */
const ownChoice = (response: ChatResponse): ChatChoice => ({ text: response.text, finishReason: response.finishReason ?? '', usage: response.usage });

/** Replies of several requests, as one response with every sample in `choices`. */
function gathered(responses: readonly ChatResponse[]): ChatResponse {
  const choices = responses.flatMap((r) => r.choices ?? [ownChoice(r)]);
  const first = responses[0]!;
  const cost = responses.some((r) => r.costUsd !== undefined) ? responses.reduce((sum, r) => sum + (r.costUsd ?? 0), 0) : undefined;
  return {
    text: first.text,
    ...(first.toolCalls && { toolCalls: first.toolCalls }),
    ...(first.finishReason !== undefined && { finishReason: first.finishReason }),
    choices,
    usage: { inputTokens: responses.reduce((sum, r) => sum + r.usage.inputTokens, 0), outputTokens: responses.reduce((sum, r) => sum + r.usage.outputTokens, 0) },
    ...(cost !== undefined && { costUsd: cost }),
    ...(responses.every((r) => r.cached) && { cached: true }),
    latencyMs: Math.max(...responses.map((r) => r.latencyMs)),
  };
}

/** The messages as the cache key reads them: every field that changes what the model sees. */
function keyedMessages(request: ChatRequest): unknown[] {
  return request.messages.map((m) =>
    m.role === 'assistant' ? { role: m.role, content: m.content, toolCalls: m.toolCalls }
    : m.role === 'tool' ? { role: m.role, content: m.content, toolCallId: m.toolCallId, name: m.name }
    : { role: m.role, content: m.content });
}

export function withProviderLayer(raw: RawProvider, options: ProviderLayerOptions = {}): ManagedProvider {
  for (const secret of raw.secrets ?? []) registerSecret(secret);
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...Object.fromEntries(Object.entries(options.retry ?? {}).filter(([, v]) => v !== undefined)) };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const limit = new InFlightLimit(options.requestsInFlight ?? DEFAULT_REQUESTS_IN_FLIGHT);
  const rpm = options.requestsPerMinute ? new RateWindow(options.requestsPerMinute) : undefined;
  const tpm = options.tokensPerMinute ? new RateWindow(options.tokensPerMinute) : undefined;
  const cache = options.cacheDir && options.cache !== false ? new ResponseCache(options.cacheDir) : undefined;
  const price: ModelPrice | undefined = options.price ?? priceOf(raw.model, { ...DEFAULT_PRICES, ...options.prices });
  const stats = new ProviderStats(raw.id);
  const log = (line: string) => options.log?.(redact(line));
  // `tools: false` in the provider's options: agents use SPADE's text protocol even where the provider carries tools.
  const tools = raw.tools === true && options.tools !== false;

  /** A raw (or cached) result as the response's fields; several samples each get a share of the tokens. */
  const response = (result: RawChatResult): Omit<ChatResponse, 'latencyMs'> => ({
    text: result.text,
    ...(result.toolCalls && { toolCalls: result.toolCalls }),
    usage: result.usage,
    ...(result.finishReason !== undefined && { finishReason: result.finishReason }),
    ...(result.choices && result.choices.length > 1 && { choices: sharedChoices(result.choices, result.usage) }),
  });

  // Calls sleeping before their next attempt.
  let waiting = 0;

  const aborted = (attempts: number, reason: unknown) =>
    new ProviderError(raw.id, 'aborted', `${raw.id}: aborted${reason instanceof Error ? `: ${reason.message}` : ''}`, undefined, attempts);

  async function attempt(request: ChatRequest, signal: AbortSignal | undefined): Promise<{ result: RawChatResult; latencyMs: number }> {
    const booking = tpm ? await tpm.take(estimateTokens(request), signal) : undefined;
    if (rpm) await rpm.take(1, signal);
    const release = await limit.acquire(signal);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`request timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const started = performance.now();
    try {
      const result = checkResult(await raw.chat(request, controller.signal));
      booking?.settle(result.usage.inputTokens + result.usage.outputTokens);
      return { result, latencyMs: performance.now() - started };
    } catch (error) {
      if (timedOut && !signal?.aborted) throw Object.assign(new Error(`no reply within ${timeoutMs} ms`), { timedOut: true, cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      release();
    }
  }

  /**
   * n samples of a prompt: one request where the provider takes n (and the rest, one by one, if
   * the server sent fewer), else n requests of one sample each, seeded seed, seed + 1, ...
   */
  async function chat(request: ChatRequest, callOptions: { signal?: AbortSignal } = {}): Promise<ChatResponse> {
    const n = Math.max(1, Math.floor(request.n ?? 1));
    if (n === 1) return send({ ...request, n: undefined }, callOptions);
    const single = (i: number): ChatRequest => ({ ...request, n: undefined, ...(request.seed !== undefined && { seed: request.seed + i }) });
    if (!raw.samples) return gathered(await Promise.all(Array.from({ length: n }, (_, i) => send(single(i), callOptions))));
    const first = await send({ ...request, n }, callOptions);
    const got = first.choices?.length ?? 1;
    if (got >= n) return { ...first, choices: (first.choices ?? [ownChoice(first)]).slice(0, n) };
    const rest = await Promise.all(Array.from({ length: n - got }, (_, i) => send(single(got + i), callOptions)));
    return gathered([first, ...rest]);
  }

  async function send(request: ChatRequest, callOptions: { signal?: AbortSignal } = {}): Promise<ChatResponse> {
    const { signal } = callOptions;
    const started = performance.now();
    const hasTools = (request.tools?.length ?? 0) > 0 || request.messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0));
    if (hasTools && !tools) {
      const why = raw.tools ? 'its tools are turned off (providers[id].tools: false)' : 'this provider does not take tools (native function calling)';
      throw new ProviderError(raw.id, 'client', `${raw.id}: ${why}; use SPADE's <tool_call> text protocol instead`, undefined, 0);
    }
    const key = cache
      ? cacheKey({
          providerId: raw.id,
          model: raw.model,
          endpoint: raw.endpoint,
          messages: keyedMessages(request),
          tools: request.tools,
          params: {
            ...raw.params,
            temperature: request.temperature,
            topP: request.topP,
            maxTokens: request.maxTokens,
            seed: request.seed,
            stop: request.stop,
            n: request.n,
            topK: request.topK,
            chatTemplateKwargs: request.chatTemplateKwargs,
          },
        })
      : undefined;
    if (cache && key) {
      const hit = await cache.get(key);
      if (hit) {
        const latencyMs = performance.now() - started;
        stats.recordCall(hit.usage, 0, latencyMs, true);
        return { ...response(hit), costUsd: 0, cached: true, latencyMs };
      }
    }
    for (let attemptNo = 1; ; attemptNo++) {
      if (signal?.aborted) throw aborted(attemptNo - 1, signal.reason);
      let failure: Failure;
      try {
        const { result, latencyMs } = await attempt(request, signal);
        const costUsd = costOf(result.usage, price);
        stats.recordCall(result.usage, costUsd, latencyMs, false);
        if (cache && key) cache.set(key, result, { providerId: raw.id, model: raw.model });
        return { ...response(result), costUsd, latencyMs };
      } catch (error) {
        if (signal?.aborted) throw aborted(attemptNo, signal.reason);
        const e = error as { timedOut?: boolean; message?: string };
        failure = e?.timedOut ? { kind: 'timeout', retryable: true, detail: e.message ?? 'timed out' } : classifyFailure(error);
      }
      const what = describe(failure, raw.endpoint);
      const tooLong = failure.retryAfterMs !== undefined && failure.retryAfterMs > retry.maxRetryAfterMs;
      if (!failure.retryable || attemptNo > retry.maxRetries || tooLong) {
        stats.recordFailure();
        const attempts = `after ${attemptNo} attempt${attemptNo === 1 ? '' : 's'}`;
        const extra = tooLong ? ` (the server asked to wait ${Math.round(failure.retryAfterMs! / 1000)} s, more than retry.maxRetryAfterMs)` : '';
        const message = `${raw.id}: ${what} ${attempts}${extra}: ${failure.detail}`;
        log(message);
        throw new ProviderError(raw.id, failure.kind, message, failure.status, attemptNo);
      }
      const fromRetryAfter = failure.retryAfterMs !== undefined;
      const delayMs = fromRetryAfter ? failure.retryAfterMs! : backoffDelay(attemptNo, retry);
      stats.recordRetry();
      options.onRetry?.({ providerId: raw.id, attempt: attemptNo, kind: failure.kind, status: failure.status, delayMs, fromRetryAfter });
      log(`${raw.id}: ${what}, retrying in ${(delayMs / 1000).toFixed(1)} s (attempt ${attemptNo + 1} of ${retry.maxRetries + 1})`);
      waiting++;
      try {
        await sleep(delayMs, signal);
      } catch (reason) {
        throw aborted(attemptNo, reason);
      } finally {
        waiting--;
      }
    }
  }

  const provider: ManagedProvider = {
    id: raw.id,
    model: raw.model,
    tools,
    ...(raw.samples && { samples: true }),
    stats,
    requestsInFlight: limit.limit,
    inFlight: () => limit.inFlight,
    retrying: () => waiting,
    chat,
    close: async () => {
      // The replies it cached this turn are on disk once it is closed.
      flushCacheLogs();
      await raw.close?.();
    },
  };
  return provider;
}
