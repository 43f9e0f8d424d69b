/**
 * Providers: chat models, messages in, text (and tool calls) and token usage out. Types only;
 * retries, limits and the cache are the shared layer in core/providers/.
 */
import type { ToolCall, ToolDefinition } from './tools.js';

/** A system prompt or a user message (an observation). */
export interface TextMessage {
  role: 'system' | 'user';
  content: string;
}

/** What the model said: its text and, when it called tools, the calls (in the order it made them). */
export interface AssistantMessage {
  role: 'assistant';
  content: string;
  toolCalls?: ToolCall[];
}

/**
 * The result of one tool call, sent back to the model. It answers the call with id
 * `toolCallId` of the assistant message just before it (every call of that message needs one).
 */
export interface ToolResultMessage {
  role: 'tool';
  toolCallId: string;
  content: string;
  /** The called tool's name (Chat Completions and Messages do not need it; some servers log it). */
  name?: string;
}

export type ChatMessage = TextMessage | AssistantMessage | ToolResultMessage;

export interface ChatRequest {
  messages: ChatMessage[];
  /**
   * Tools the model may call (native function calling). Only providers with `tools: true`
   * take them; the shared layer refuses a request with tools to any other provider.
   */
  tools?: ToolDefinition[];
  temperature?: number;
  /** Nucleus sampling: keep the most likely tokens whose probabilities sum to this. */
  topP?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
  /**
   * Samples wanted for this prompt (default 1). A provider that takes `n` in one request
   * (`samples: true`: OpenAI, vLLM) sends it once; for any other the shared layer sends n
   * requests (seeds seed, seed+1, ...) and gathers their replies. Every sample is in `choices`.
   */
  n?: number;
  /** Top-k sampling (vLLM, SGLang and llama.cpp read `top_k` in the OpenAI-protocol body). */
  topK?: number;
  /** Arguments of the server's chat template (vLLM's `chat_template_kwargs`, e.g. `{ enable_thinking: false }`). */
  chatTemplateKwargs?: Record<string, unknown>;
}

/** One sample of a reply: its text, why it stopped, and its tokens where the server counts them per sample. */
export interface ChatChoice {
  text: string;
  /** The server's reason: `stop`, `length` (cut at the token budget), `tool_calls`... ('' when it gave none). */
  finishReason: string;
  /**
   * Tokens this sample used. Exact when the sample was its own request; when n samples came in one
   * request the server reports their sum only, and each sample's usage is that sum split evenly
   * (`sharedUsage` says so).
   */
  usage: TokenUsage;
  /** Set when `usage` is an even share of one request's tokens rather than this sample's own count. */
  sharedUsage?: boolean;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * What model calls spent: answered calls (live or from the response cache), the tokens and cost
 * of the live ones, and how many came from the cache. A suite's `metrics.usage`, and an episode's
 * `spent`.
 */
export interface UsageMetrics {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  cachedCalls: number;
}

export interface ChatResponse {
  /** The reply's text ('' when the model only called tools). */
  text: string;
  /** The tools the model called in this reply, in order (absent when it called none). */
  toolCalls?: ToolCall[];
  /** Why the (first) sample stopped, when the server says: `stop`, `length`... */
  finishReason?: string;
  /** Every sample, in order, when the request asked for n > 1 (the first is also `text`). */
  choices?: ChatChoice[];
  usage: TokenUsage;
  /** Cost of this call in US dollars, when the price is known. */
  costUsd?: number;
  /** Served from the response cache. */
  cached?: boolean;
  latencyMs: number;
}

export interface Provider {
  /** Full id, e.g. `openai:gpt-4.1-mini`. */
  readonly id: string;
  /**
   * True when the provider sends `ChatRequest.tools` to the model as native function calls and
   * reads the calls back (openai:, anthropic:, the OpenAI-protocol presets). Otherwise an agent
   * uses SPADE's text protocol (`<tool_call>{...}</tool_call>` in the reply).
   */
  readonly tools?: boolean;
  /** True when the server takes `n` samples in one request (OpenAI, vLLM); the layer sends n requests otherwise. */
  readonly samples?: boolean;
  chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
  close?(): Promise<void>;
  /**
   * Requests it sends at once (`providers[id].requestsInFlight`; the shared provider layer sets
   * it): the harness keeps that many of its calls busy. Unset: unknown.
   */
  readonly requestsInFlight?: number;
  /** Requests in flight now (the status line shows them). */
  inFlight?(): number;
  /** Calls waiting to be sent again after a failure (a 429's retry-after, a backoff): the status line shows them. */
  retrying?(): number;
}
