/**
 * Presets for local servers that speak the OpenAI protocol, at their usual addresses. None
 * needs a key (a placeholder is sent unless one is set); `baseURL` or the named variable
 * points a preset elsewhere.
 *   vllm:<model>       vLLM's `vllm serve`               http://127.0.0.1:8000/v1
 *   ollama:<model>     Ollama                            http://127.0.0.1:11434/v1
 *   llamacpp:<model>   llama.cpp's `llama-server`        http://127.0.0.1:8080/v1
 *   freetoken:<model>  FreeToken's `ft serve` (OpenAI protocol of the two it speaks)  http://127.0.0.1:1919/v1
 */
import { definePlugin, type ProviderOptions, type ProviderPlugin } from '../../core/config/plugin.js';
import { createOpenAIProtocolProvider, type OpenAIProtocolSettings } from './openai.js';

function preset(settings: OpenAIProtocolSettings, server: string): ProviderPlugin {
  return definePlugin({
    kind: 'provider',
    id: settings.prefix,
    description: `${server} (OpenAI protocol) at ${settings.defaultBaseURL}; no key needed. Override with baseURL or ${settings.baseURLEnv}.`,
    requiredEnv: () => [],
    create: (options: ProviderOptions) => createOpenAIProtocolProvider(options, settings),
  });
}

const local = (prefix: string, defaultBaseURL: string): OpenAIProtocolSettings => ({
  prefix,
  defaultBaseURL,
  baseURLEnv: `${prefix.toUpperCase()}_BASE_URL`,
  keyEnv: [`${prefix.toUpperCase()}_API_KEY`],
  keyRequired: false,
  maxTokensField: 'max_tokens',
});

export const vllm = preset(local('vllm', 'http://127.0.0.1:8000/v1'), 'vLLM server');
export const ollama = preset(local('ollama', 'http://127.0.0.1:11434/v1'), 'Ollama');
export const llamacpp = preset(local('llamacpp', 'http://127.0.0.1:8080/v1'), "llama.cpp's llama-server");
export const freetoken = preset(local('freetoken', 'http://127.0.0.1:1919/v1'), "FreeToken's ft serve");

/** Every preset, for the built-in plugin list. */
export const PRESETS: readonly ProviderPlugin[] = [vllm, ollama, llamacpp, freetoken];
