/**
 * `anthropic:<model>`: Anthropic's Messages API through the official `@anthropic-ai/sdk`.
 * Tools go out with their `input_schema`; the model's calls come back as `tool_use` content
 * blocks, and each result goes back as a `tool_result` block in a user message.
 * Retries, timeouts, limits and the cache belong to the shared layer, so the SDK's own
 * retries are off.
 */
import { definePlugin, type ProviderOptions } from '../../core/config/plugin.js';
import { UnusableReplyError } from '../../core/providers/failures.js';
import { resolveApiKey } from '../../core/providers/keys.js';
import { DEFAULT_TIMEOUT_MS, layerOptionsFrom } from '../../core/providers/layer-options.js';
import { withProviderLayer, type ManagedProvider } from '../../core/providers/layer.js';
import type { ChatMessage, ChatRequest } from '../../core/concepts/provider.js';
import type { ToolCall } from '../../core/concepts/tools.js';

/** The Messages API requires an output limit; this one applies when neither request nor params set it. */
export const DEFAULT_MAX_TOKENS = 4096;

const KEY_ENV = ['ANTHROPIC_API_KEY'] as const;

type Block = Record<string, unknown>;
interface WireMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/**
 * The conversation in the Messages format. An assistant's tool calls are `tool_use` blocks
 * after its text; tool results are `tool_result` blocks (referencing `tool_use_id`) in the
 * user message that follows, first in it, and an observation sent with them joins that same
 * user message as a text block, since a user turn holds both.
 */
export function anthropicMessages(messages: readonly ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  const blocksOf = (message: WireMessage): Block[] =>
    typeof message.content === 'string' ? (message.content === '' ? [] : [{ type: 'text', text: message.content }]) : message.content;
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'assistant') {
      if (!message.toolCalls?.length) {
        out.push({ role: 'assistant', content: message.content });
        continue;
      }
      const blocks: Block[] = message.content === '' ? [] : [{ type: 'text', text: message.content }];
      for (const call of message.toolCalls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
      out.push({ role: 'assistant', content: blocks });
      continue;
    }
    const previous = out.at(-1);
    const block: Block = message.role === 'tool'
      ? { type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }
      : { type: 'text', text: message.content };
    // Tool results open a user turn of blocks; what follows them in the same turn is added to it.
    const joins = previous?.role === 'user' && (message.role === 'tool' || blocksOf(previous).some((b) => b.type === 'tool_result'));
    if (joins) previous!.content = [...blocksOf(previous!), block];
    else if (message.role === 'tool') out.push({ role: 'user', content: [block] });
    else out.push({ role: 'user', content: message.content });
  }
  return out;
}

/** The body of a Messages request: system messages joined into `system`, the rest in order, tools with their `input_schema`. */
export function messagesBody(model: string, request: ChatRequest, params: Record<string, unknown>): Record<string, unknown> {
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const body: Record<string, unknown> = {
    max_tokens: DEFAULT_MAX_TOKENS,
    ...params,
    model,
    messages: anthropicMessages(request.messages),
  };
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
  }
  if (system) body.system = system;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;
  // The Messages API takes top_k; it has no chat template (chatTemplateKwargs is for open models' servers).
  if (request.topK !== undefined) body.top_k = request.topK;
  // The Messages API has no seed; the seed still keys the response cache.
  return body;
}

interface MessagesReply {
  stop_reason?: string | null;
  content?: { type: string; text?: string; id?: string; name?: string; input?: unknown }[];
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
      tools: true,
      async chat(request, signal) {
        const reply = (await client.messages.create(messagesBody(options.model, request, params) as never, { signal })) as MessagesReply;
        if (!Array.isArray(reply.content)) throw new UnusableReplyError('the reply has no content');
        const usage = reply.usage ?? {};
        const toolCalls: ToolCall[] = reply.content
          .filter((block) => block.type === 'tool_use' && typeof block.name === 'string')
          .map((block) => {
            const input = block.input;
            const call: ToolCall = { id: typeof block.id === 'string' ? block.id : '', name: block.name!, arguments: {} };
            if (input !== null && typeof input === 'object' && !Array.isArray(input)) call.arguments = input as Record<string, unknown>;
            else call.invalidArguments = JSON.stringify(input ?? null);
            return call;
          });
        return {
          text: reply.content.filter((block) => block.type === 'text').map((block) => block.text ?? '').join(''),
          ...(toolCalls.length > 0 && { toolCalls }),
          // Anthropic's `max_tokens` is the cut at the token budget that OpenAI calls `length`.
          finishReason: reply.stop_reason === 'max_tokens' ? 'length' : (reply.stop_reason ?? ''),
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
