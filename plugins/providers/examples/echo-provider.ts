/**
 * A worked example of a provider plugin of your own. Load it with
 *   npx spade-bench run --agent ./plugins/providers/examples/echo-provider.ts
 * or list it under `plugins` in spade.config.ts and use `echo:<anything>` as an id.
 *
 * A provider plugin is a module whose default export is `definePlugin({ kind: 'provider', ... })`.
 * `create(options)` gets the provider's config entry (`model`, `baseURL`, `apiKey`, `params`...)
 * and returns a Provider. Write only the raw `chat` call (one request, one attempt) and hand it to
 * `withProviderLayer`: the shared layer adds retries, the timeout, the concurrency limit, the
 * response cache, usage stats and key redaction. Outside this repository, import definePlugin
 * from 'spade-bench' and the layer's helpers from 'spade-bench/providers'.
 *
 * This one answers without a network: it repeats the last line of the last user message inside
 * \boxed{...}, and counts words as tokens.
 */
import { definePlugin, type ProviderOptions } from '../../../core/config/plugin.js';
import { layerOptionsFrom } from '../../../core/providers/layer-options.js';
import { withProviderLayer } from '../../../core/providers/layer.js';

const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

export default definePlugin({
  kind: 'provider',
  id: 'echo',
  description: 'Example plugin: repeats the last line of the observation inside \\boxed{} (no network, no key).',
  // Hosted providers list the variables their key comes from; this one needs none.
  requiredEnv: () => [],
  create(options: ProviderOptions) {
    const model = options.model || 'echo';
    return withProviderLayer(
      {
        id: `echo:${model}`,
        model,
        params: options.params,
        async chat(request, signal) {
          signal.throwIfAborted();
          const last = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
          const line = last.trim().split('\n').at(-1) ?? '';
          const text = `\\boxed{${line}}`;
          const prompt = request.messages.map((m) => m.content).join('\n');
          return { text, usage: { inputTokens: countWords(prompt), outputTokens: countWords(text) } };
        },
      },
      layerOptionsFrom(options, `providers["echo:${model}"]`),
    );
  },
});
