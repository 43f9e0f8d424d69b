/**
 * The "instant model" of the benchmarks that compare whole runs with promptfoo: a provider
 * plugin, written as a user writes one (imported from the package, through the shared provider
 * layer), that answers every request at once with its prompt, the last user message, as
 * promptfoo's built-in `echo` provider does. Neither side waits on a model, so what is measured
 * is each harness's own work. Used as `--agent ./perf/instant-provider.mjs`.
 */
import { definePlugin } from 'spade-bench';
import { layerOptionsFrom, withProviderLayer } from 'spade-bench/providers';

/**
 * Token usage as a real provider has it: read from the reply, at no cost. promptfoo's echo reports
 * zero tokens; a length estimate (about four characters a token) keeps the report's token
 * figures meaningful without tokenising every prompt, which took ~2% of a GSM8K run here and is
 * no work of either harness.
 */
const estimatedTokens = (text) => Math.ceil(text.length / 4);

export default definePlugin({
  kind: 'provider',
  id: 'instant',
  description: 'Benchmark provider: answers at once with its prompt (like promptfoo\'s echo provider).',
  requiredEnv: () => [],
  create(options) {
    const model = options.model || 'echo';
    return withProviderLayer(
      {
        id: `instant:${model}`,
        model,
        async chat(request, signal) {
          signal.throwIfAborted();
          const text = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
          return { text, usage: { inputTokens: estimatedTokens(text), outputTokens: estimatedTokens(text) } };
        },
      },
      layerOptionsFrom(options, `providers["instant:${model}"]`),
    );
  },
});
