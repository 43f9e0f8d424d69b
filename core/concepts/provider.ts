/**
 * Providers: chat models, messages in, text and token usage out. Types only; retries, limits
 * and the cache are the shared layer in core/providers/.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  /** Nucleus sampling: keep the most likely tokens whose probabilities sum to this. */
  topP?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatResponse {
  text: string;
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
  chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
  close?(): Promise<void>;
}
