/**
 * `anthropic:<model>`: Anthropic's Messages API through the official `@anthropic-ai/sdk`.
 * Retries, timeouts, limits and the cache belong to the shared layer, so the SDK's own
 * retries are off.
 */
import {
  definePlugin,
  UnusableReplyError,
  resolveApiKey,
  DEFAULT_TIMEOUT_MS,
  layerOptionsFrom,
  withProviderLayer,
  keepAliveFetch,
  type ProviderOptions,
  type ManagedProvider,
  type ChatRequest,
} from '../../index.js';

/** The Messages API requires an output limit; this one applies when neither request nor params set it. */
export const DEFAULT_MAX_TOKENS = 4096;

const KEY_ENV = ['ANTHROPIC_API_KEY'] as const;

/** The body of a Messages request: system messages joined into `system`, the rest in order. */
export function messagesBody(model: string, request: ChatRequest, params: Record<string, unknown>): Record<string, unknown> {
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const body: Record<string, unknown> = {
    max_tokens: DEFAULT_MAX_TOKENS,
    ...params,
    model,
    messages: request.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })),
  };
  if (system) body.system = system;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;
  // The Messages API has no seed; the seed still keys the response cache.
  return body;
}

interface MessagesReply {
  content?: { type: string; text?: string }[];
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null };
}

export async function createAnthropicProvider(options: ProviderOptions): Promise<ManagedProvider> {
  const id = `anthropic:${options.model}`;
  const apiKey = resolveApiKey(id, options.apiKey, KEY_ENV);
  const baseURL = options.baseURL || process.env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com';
  const layer = layerOptionsFrom(options, `providers["${id}"]`);
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const client = new Anthropic({
    apiKey,
    baseURL,
    defaultHeaders: options.headers,
    maxRetries: 0,
    // Plain-HTTP (local) servers go through a leaner keep-alive client; HTTPS through fetch.
    fetch: keepAliveFetch,
    timeout: (layer.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 60_000,
  });
  const params = options.params ?? {};
  return withProviderLayer(
    {
      id,
      model: options.model,
      endpoint: baseURL,
      secrets: [apiKey],
      params,
      async chat(request, signal) {
        const reply = (await client.messages.create(messagesBody(options.model, request, params) as never, { signal })) as MessagesReply;
        if (!Array.isArray(reply.content)) throw new UnusableReplyError('the reply has no content');
        const usage = reply.usage ?? {};
        return {
          text: reply.content.filter((block) => block.type === 'text').map((block) => block.text ?? '').join(''),
          usage: {
            inputTokens: (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
            outputTokens: usage.output_tokens ?? 0,
          },
        };
      },
    },
    layer,
  );
}

export default definePlugin({
  kind: 'provider',
  id: 'anthropic',
  description: 'Anthropic Messages (official @anthropic-ai/sdk). Key: ANTHROPIC_API_KEY; base URL: ANTHROPIC_BASE_URL or baseURL.',
  requiredEnv: (options: ProviderOptions) => (options.apiKey ? [] : [...KEY_ENV]),
  create: createAnthropicProvider,
});
