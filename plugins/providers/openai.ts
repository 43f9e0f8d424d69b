/**
 * `openai:<model>`: OpenAI's Chat Completions API through the official `openai` SDK. Also the
 * client behind every OpenAI-compatible preset (vllm:, ollama:, llamacpp:, freetoken:).
 * Tools go out as `tools` of type `function`; the model's calls come back in
 * `choices[0].message.tool_calls` and each result goes back as a `tool` message.
 * Retries, timeouts, limits and the cache belong to the shared layer, so the SDK's own
 * retries are off.
 */
import { definePlugin, type ProviderOptions } from '../../core/config/plugin.js';
import { DEFAULT_TIMEOUT_MS, layerOptionsFrom } from '../../core/providers/layer-options.js';
import { withProviderLayer, type ManagedProvider } from '../../core/providers/layer.js';
import { resolveApiKey } from '../../core/providers/keys.js';
import { UnusableReplyError } from '../../core/providers/failures.js';
import type { ChatMessage, ChatRequest } from '../../core/concepts/provider.js';
import type { ToolCall } from '../../core/concepts/tools.js';

/** How one OpenAI-protocol provider finds its server and key. */
export interface OpenAIProtocolSettings {
  /** The id prefix: `openai`, `vllm`... */
  prefix: string;
  /** Base URL when neither the `baseURL` option nor `baseURLEnv` is set. */
  defaultBaseURL: string;
  baseURLEnv?: string;
  /** Variables the key is read from, in order. */
  keyEnv: readonly string[];
  /** Hosted APIs need a key; local servers get a placeholder when none is set. */
  keyRequired: boolean;
  /** `max_completion_tokens` (OpenAI's current models) or `max_tokens` (most local servers). */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
}

/** Local servers accept any key; the SDK insists on sending one. */
export const PLACEHOLDER_KEY = 'no-key-required';

/**
 * A message in the Chat Completions format: an assistant's tool calls as `tool_calls` (type
 * `function`, arguments as JSON text), a tool result as a `tool` message with its `tool_call_id`.
 */
export function chatCompletionMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // The API takes null content beside tool calls; an empty string is not content.
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.invalidArguments ?? JSON.stringify(call.arguments) },
        })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/** The model's function calls in a reply's `tool_calls`, arguments parsed from their JSON text. */
export function readToolCalls(toolCalls: unknown): ToolCall[] | undefined {
  if (!Array.isArray(toolCalls) || toolCalls.length === 0) return undefined;
  const calls: ToolCall[] = [];
  for (const raw of toolCalls as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } }[]) {
    // Only function tools are ever offered; a call of another type is not ours to run.
    if (raw?.type !== 'function' || typeof raw.function?.name !== 'string') continue;
    const text = typeof raw.function.arguments === 'string' ? raw.function.arguments : '';
    const call: ToolCall = { id: typeof raw.id === 'string' ? raw.id : '', name: raw.function.name, arguments: {} };
    let parsed: unknown;
    try {
      parsed = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) call.arguments = parsed as Record<string, unknown>;
    else call.invalidArguments = text;
    calls.push(call);
  }
  return calls.length > 0 ? calls : undefined;
}

/** The body of a Chat Completions request: config params, then the request's own fields. */
export function chatCompletionBody(model: string, request: ChatRequest, params: Record<string, unknown>, maxTokensField: string): Record<string, unknown> {
  const body: Record<string, unknown> = { ...params, model, messages: request.messages.map(chatCompletionMessage) };
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.maxTokens !== undefined) body[maxTokensField] = request.maxTokens;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.stop !== undefined && request.stop.length > 0) body.stop = request.stop;
  if (request.n !== undefined && request.n > 1) body.n = request.n;
  // Not in OpenAI's own API: OpenAI-protocol servers (vLLM, SGLang, llama.cpp) read them from the body,
  // and the SDK sends fields it does not know as they are.
  if (request.topK !== undefined) body.top_k = request.topK;
  if (request.chatTemplateKwargs !== undefined) body.chat_template_kwargs = request.chatTemplateKwargs;
  body.stream = false;
  return body;
}

/** An OpenAI-protocol provider wrapped by the shared layer. */
export async function createOpenAIProtocolProvider(options: ProviderOptions, settings: OpenAIProtocolSettings): Promise<ManagedProvider> {
  const id = `${settings.prefix}:${options.model}`;
  const apiKey = settings.keyRequired
    ? resolveApiKey(id, options.apiKey, settings.keyEnv)
    : (options.apiKey || settings.keyEnv.map((name) => process.env[name]).find(Boolean) || PLACEHOLDER_KEY);
  const baseURL = options.baseURL || (settings.baseURLEnv && process.env[settings.baseURLEnv]) || settings.defaultBaseURL;
  const layer = layerOptionsFrom(options, `providers["${id}"]`);
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({
    apiKey,
    baseURL,
    defaultHeaders: options.headers,
    maxRetries: 0,
    // The layer aborts a request at its own timeout; the SDK's is only a backstop.
    timeout: (layer.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 60_000,
  });
  const params = options.params ?? {};
  return withProviderLayer(
    {
      id,
      model: options.model,
      endpoint: baseURL,
      secrets: [apiKey === PLACEHOLDER_KEY ? undefined : apiKey],
      params,
      tools: true,
      // `n` samples in one request; a server that sends fewer gets the rest asked one by one.
      samples: true,
      async chat(request, signal) {
        const body = chatCompletionBody(options.model, request, params, settings.maxTokensField);
        const completion = await client.chat.completions.create(body as never, { signal });
        // Choices in their `index` order (servers may send them in the order they finished).
        const choices = [...(completion.choices ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
        const choice = choices[0];
        if (!choice) throw new UnusableReplyError('the reply has no choices');
        // A choice without a message is no reply (not an empty answer to score as a loss).
        if (!choice.message) throw new UnusableReplyError('the reply\'s choice has no message');
        const toolCalls = readToolCalls(choice.message?.tool_calls);
        return {
          text: choice.message?.content ?? '',
          ...(toolCalls && { toolCalls }),
          finishReason: choice.finish_reason ?? '',
          ...(choices.length > 1 && { choices: choices.map((c) => ({ text: c.message?.content ?? '', finishReason: c.finish_reason ?? '' })) }),
          usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
        };
      },
    },
    layer,
  );
}

export const OPENAI_SETTINGS: OpenAIProtocolSettings = {
  prefix: 'openai',
  defaultBaseURL: 'https://api.openai.com/v1',
  baseURLEnv: 'OPENAI_BASE_URL',
  keyEnv: ['OPENAI_API_KEY'],
  keyRequired: true,
  maxTokensField: 'max_completion_tokens',
};

export default definePlugin({
  kind: 'provider',
  id: 'openai',
  description: 'OpenAI Chat Completions (official openai SDK). Key: OPENAI_API_KEY; base URL: OPENAI_BASE_URL or baseURL.',
  requiredEnv: (options: ProviderOptions) => (options.apiKey ? [] : [...OPENAI_SETTINGS.keyEnv]),
  create: (options: ProviderOptions) => createOpenAIProtocolProvider(options, OPENAI_SETTINGS),
});
