/**
 * The replies of the shared Python loader (loader.py), as both Python sandboxes read them:
 * {"ok": true, "value": ...} or {"ok": false, "kind": ..., "message": ...}, where a non-finite
 * float in the value is written {"$float": "nan" | "inf" | "-inf"} (JSON has no such numbers).
 */

/** How a request failed, in the loader's words; a sandbox maps it to a SandboxError kind. */
export type LoaderFailureKind =
  | 'syntax'
  | 'load'
  | 'timeout'
  | 'memory'
  | 'output-limit'
  | 'crash'
  | 'escape-attempt'
  | 'missing-method';

/** Revives {"$float": ...} markers into the non-finite numbers they stand for (a JSON.parse reviver). */
export function reviveFloats(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const marker = (value as Record<string, unknown>).$float;
    if (typeof marker === 'string' && Object.keys(value).length === 1) {
      return marker === 'nan' ? NaN : marker === 'inf' ? Infinity : -Infinity;
    }
  }
  return value;
}
