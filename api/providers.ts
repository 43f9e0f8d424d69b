/**
 * `spade-bench/providers`: what a provider plugin is written with. Write the raw call (one
 * request, one attempt) and hand it to withProviderLayer, which adds retries, the timeout, the
 * limit of requests in flight, the response cache, usage and redaction.
 */

/** Wrap a provider's raw call with the shared layer; a provider's stats. */
export { withProviderLayer, statsOf } from '../core/providers/layer.js';
/** A provider's raw call (what a plugin writes), its result, and the provider the layer makes of it. */
export type { RawProvider, RawChatResult, ManagedProvider } from '../core/providers/layer.js';
/** Read the shared layer's options from a provider's config entry; the layer's defaults. */
export { layerOptionsFrom, DEFAULT_TIMEOUT_MS, DEFAULT_REQUESTS_IN_FLIGHT } from '../core/providers/layer-options.js';
/** The shared layer's options: requests in flight, timeout, retries, rate limits, cache, prices. */
export type { ProviderLayerOptions } from '../core/providers/layer-options.js';
/** A failed provider call, classified (rate limit, server, timeout...). */
export { ProviderError } from '../core/providers/provider-error.js';
/** A reply with no usable text (empty, refused, cut off): retried by the layer, then an errored call. */
export { UnusableReplyError } from '../core/providers/failures.js';
/** A provider's API key from its options or the first environment variable set. */
export { resolveApiKey } from '../core/providers/keys.js';
/** Remove API keys from a text (log lines, errors). */
export { redact } from '../core/providers/redact.js';
