/**
 * A small typed schema for configuration values. Each check throws a UsageError that names the
 * key path and what was expected (`selfplay.rounds: expected a positive integer, got "many"`),
 * and carries, as a type, the values it admits, so the config's type is read off the schema.
 *
 * Why not zod or valibot: the messages are part of the interface (tests and the README show
 * them), with record keys written `providers["openai"]` and list items `suites[2]`; shaping a
 * library's issues into them took more code than these checks.
 */
import { UsageError } from '../errors.js';
import { didYouMean } from './suggest.js';

/** Checks a value found at key path `at`; throws a UsageError naming the path when it is wrong. */
export interface Schema<T> {
  (value: unknown, at: string): void;
  /** Never set: the type of the values this schema admits. */
  readonly __type?: T;
}

/** The type of the values a schema admits. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

/** A short, safe rendering of a wrong value for a message. */
export const show = (value: unknown): string => {
  const s = JSON.stringify(value);
  return s === undefined ? String(value) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

export const fail = (at: string, expected: string, value: unknown): never => {
  throw new UsageError(`${at}: expected ${expected}, got ${show(value)}`);
};

/** A schema from a test of the value and the words for what it expects. */
export function check<T>(ok: (value: unknown) => boolean, expected: string): Schema<T> {
  return (value, at) => {
    if (!ok(value)) fail(at, expected, value);
  };
}

const isInteger = (v: unknown, min: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min;

export const str = check<string>((v) => typeof v === 'string' && v !== '', 'a non-empty string');
export const bool = check<boolean>((v) => typeof v === 'boolean', 'true or false');
export const posInt = check<number>((v) => isInteger(v, 1), 'a positive integer');
export const nonNegInt = check<number>((v) => isInteger(v, 0), 'a non-negative integer');
export const posNum = check<number>((v) => typeof v === 'number' && Number.isFinite(v) && v > 0, 'a positive number');
export const nonNegNum = (expected = 'a number >= 0') => check<number>((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expected);

/** One of the given strings. */
export function oneOf<const T extends readonly string[]>(values: T): Schema<T[number]> {
  return check((v) => typeof v === 'string' && values.includes(v), `one of ${values.map((x) => `"${x}"`).join(', ')}`);
}

/** A string matching `pattern`. */
export function matching(pattern: RegExp, expected: string): Schema<string> {
  return check((v) => typeof v === 'string' && pattern.test(v), expected);
}

/** A list whose items each pass `item` (`at[i]`); `nonEmpty` refuses []. */
export function list<T>(item: Schema<T>, nonEmpty = false): Schema<T[]> {
  return (v, at) => {
    if (!Array.isArray(v) || (nonEmpty && v.length === 0)) fail(at, nonEmpty ? 'a non-empty list' : 'a list', v);
    (v as unknown[]).forEach((x, i) => item(x, `${at}[${i}]`));
  };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const anyObject = check<Record<string, unknown>>(isPlainObject, 'an object');

/** The value at a key path (`selfplay.rounds`) of a config, undefined where the path leads nowhere. */
export const valueAt = (config: unknown, keyPath: string): unknown =>
  keyPath.split('.').reduce<unknown>((o, k) => (isPlainObject(o) ? o[k] : undefined), config);

/**
 * Names that are no key of a config: an object's own property of one of these names would be
 * read as its prototype or its constructor by code that looks it up (`__proto__` in JSON is an
 * own key), so it is refused wherever it is written.
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function refuseReserved(key: string, keyPath: string): void {
  if (RESERVED_KEYS.has(key)) throw new UsageError(`${keyPath}: "${key}" is a reserved name, not a key of the config`);
}

/** An object with any keys, each value passing `item` (`at["key"]`). */
export function record<T>(item: Schema<T>): Schema<Record<string, T>> {
  return (v, at) => {
    anyObject(v, at);
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      refuseReserved(key, `${at}["${key}"]`);
      item(value, `${at}["${key}"]`);
    }
  };
}

export interface ObjectOptions {
  /** Keys beyond the shape are allowed (a provider's own options). */
  open?: boolean;
  /** Older names, refused with the key path that replaced each (`selfplay.attempts` is now `attempts`). */
  renamed?: Record<string, string>;
}

type Shape = Record<string, Schema<unknown>>;

/** A key without case, `_` or `-`: two spellings of one name compare equal. */
const squashed = (key: string): string => key.toLowerCase().replace(/[_-]/g, '');

/** An object whose keys (all optional) pass their schema; an unknown key is named with those that exist, and the nearest of them. */
export function object<S extends Shape>(shape: S, options: ObjectOptions = {}): Schema<{ [K in keyof S]?: Infer<S[K]> }> {
  return (v, at) => {
    if (!isPlainObject(v)) fail(at || 'config', 'an object', v);
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      const keyPath = at ? `${at}.${key}` : key;
      refuseReserved(key, keyPath);
      // Own keys only: `constructor` or `toString` are no option, whatever an object inherits.
      const newName = options.renamed && Object.hasOwn(options.renamed, key) ? options.renamed[key] : undefined;
      if (newName !== undefined) throw new UsageError(`${keyPath} was renamed: use ${newName}`);
      const check = Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (!check) {
        // An open object passes other keys on (to a provider plugin), but not a known key spelt
        // another way (baseUrl, base_url for baseURL), which would be passed on and never read.
        const spelt = options.open ? Object.keys(shape).find((known) => squashed(known) === squashed(key)) : undefined;
        if (spelt) throw new UsageError(`${keyPath}: unknown key: did you mean ${spelt}? (the key is read with that spelling only)`);
        if (options.open) continue;
        throw new UsageError(`${keyPath}: unknown key (known keys${at ? ` of ${at}` : ''}: ${Object.keys(shape).join(', ')}).${didYouMean(key, Object.keys(shape))}`);
      }
      if (value !== undefined) check(value, keyPath);
    }
  };
}
