/**
 * API keys: where a provider finds its key, and the message a user sees when it is missing.
 */
import { UsageError } from '../errors.js';

/** `missing API key: set OPENAI_API_KEY (or providers["openai:gpt-4.1-mini"].apiKey)` */
export function missingKeyMessage(providerId: string, envVars: readonly string[]): string {
  return `missing API key: set ${envVars.join(' or ')} (or providers["${providerId}"].apiKey)`;
}

/**
 * The key from the `apiKey` option, else from the first of `envVars` that is set. Throws a
 * UsageError (exit 2) naming the variable when there is none.
 */
export function resolveApiKey(
  providerId: string,
  apiKey: string | undefined,
  envVars: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (typeof apiKey === 'string' && apiKey) return apiKey;
  for (const name of envVars) {
    const value = env[name];
    if (value) return value;
  }
  throw new UsageError(missingKeyMessage(providerId, envVars));
}
