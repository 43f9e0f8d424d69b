/**
 * Redaction of API keys, and of passwords written into URLs (a proxy's base URL, a Redis
 * address). Every provider registers the keys it uses; every log line, cache entry and error
 * message passes through `redact()` before it leaves the process.
 */

/** Secrets shorter than this are not registered: they would mangle ordinary text. */
const MIN_SECRET_LENGTH = 8;

/** Shapes of well-known vendor keys, redacted even when no provider registered them. */
const KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{10,}/g, // Anthropic
  /\bsk-[A-Za-z0-9_-]{16,}/g, // OpenAI and compatibles
  /\b(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi,
];

/** The password of a URL's user info (scheme://user:password@host), with what precedes it. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/?#@]+@/gi;

export const REDACTED = '[redacted]';

/**
 * Shared through globalThis: a plugin loaded from a .ts file gets its own copy of this module,
 * and its keys must still be redacted by the host's `redact()`.
 */
const secrets: Set<string> = ((globalThis as Record<symbol, unknown>)[Symbol.for('spade-bench.secrets')] ??= new Set<string>()) as Set<string>;

/** Remember a key so that `redact()` removes it. Short or empty values are ignored. */
export function registerSecret(secret: string | undefined | null): void {
  if (typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH) secrets.add(secret);
}

/** The number of registered keys (for tests and `spade-bench list`). */
export function registeredSecretCount(): number {
  return secrets.size;
}

/** Replace every registered key, anything shaped like a vendor key, and the password in a URL, with `[redacted]`. */
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of KEY_PATTERNS) {
    out = out.replace(pattern, (match, bearer?: string) => (typeof bearer === 'string' && /^Bearer/i.test(match) ? `${bearer}${REDACTED}` : REDACTED));
  }
  return out.replace(URL_PASSWORD, `$1${REDACTED}@`);
}

/** Field names whose values are always secret, whatever they contain. */
const SECRET_FIELDS = /^(api[-_]?key|authorization|x-api-key|auth[-_]?token|password|secret)$/i;

/**
 * A copy of `value` (config, results) with secret fields replaced and every string redacted.
 * Plain data only: functions are dropped, cycles are cut.
 */
export function redactDeep<T>(value: T): T {
  const seen = new WeakSet<object>();
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') return key !== undefined && SECRET_FIELDS.test(key) && v ? REDACTED : redact(v);
    if (typeof v === 'function') return undefined;
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) return undefined;
    seen.add(v);
    if (Array.isArray(v)) return v.map((item) => walk(item));
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) out[k] = walk(item, k);
    return out;
  };
  return walk(value) as T;
}
