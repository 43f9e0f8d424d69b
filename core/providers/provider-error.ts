/**
 * The one error a provider call ends with once the shared layer gives up. Its message names
 * the provider, the HTTP status and the number of attempts, and never contains a key.
 */
import { redact } from './redact.js';

export type FailureKind =
  | 'rate-limit' // HTTP 429
  | 'server' // HTTP 5xx (and 408, 409)
  | 'timeout' // no reply within the request timeout
  | 'connection' // refused, reset or dropped connection
  | 'bad-response' // the server answered, but not with a usable reply (malformed JSON, no text)
  | 'auth' // HTTP 401 / 403
  | 'client' // any other 4xx: the request itself is wrong
  | 'aborted' // the caller aborted
  | 'unknown';

export class ProviderError extends Error {
  constructor(
    readonly providerId: string,
    readonly kind: FailureKind,
    message: string,
    readonly status: number | undefined,
    /** Requests made: the first and its retries. */
    readonly tries: number,
  ) {
    super(redact(message));
    this.name = 'ProviderError';
  }
}
