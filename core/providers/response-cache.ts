/**
 * The on-disk response cache: successful replies (their text, tool calls and usage), keyed by a
 * hash of provider, model, endpoint, messages (tool calls and tool results included), tools and
 * parameters. Every stored string is redacted; an unreadable entry is a miss, never an error.
 *
 * On disk: append-only logs, `<cacheDir>/replies-*.jsonl`, one line per reply (`{"key": ...}`
 * first). Each process appends to a log of its own (a turn's replies in one write, not synced:
 * an entry lost to a power cut is a miss), so concurrent runs never interleave; a run reads
 * every log in the folder once, keeping only each entry's place, and reads an entry's line when
 * asked for it. Replies other processes store while a run is going are seen by the next run.
 * When a folder holds more than MAX_LOGS logs, a run merges them into one.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { TokenUsage, ToolCall, ToolDefinition } from '../types.js';
import { CacheLog, flushCacheLogs, makeFolder } from '../results/fs.js';
import { redact, redactDeep } from './redact.js';

const CACHE_FORMAT = 1;

export interface CacheKeyParts {
  providerId: string;
  model: string;
  /** Where requests go (base URL): the same model name on two servers is two models. */
  endpoint?: string;
  /** The messages, with every field the model sees (tool calls, tool results). */
  messages: readonly unknown[];
  /** The tools the model was offered. */
  tools?: readonly ToolDefinition[];
  /** Request and provider parameters (temperature, max tokens, seed, stop, params...). */
  params: Record<string, unknown>;
}

export interface CachedReply {
  text: string;
  toolCalls?: ToolCall[];
  usage: TokenUsage;
  finishReason?: string;
  /** Every sample of a request for n > 1, in order. */
  choices?: { text: string; finishReason: string }[];
}

/**
 * JSON with object keys sorted (by UTF-16 code units, as `<` orders strings), keys whose value
 * is undefined left out, so that equal parameters give equal keys (of model requests here, of
 * the gate's verdicts in core/gate/verdict-cache.ts). Built by appending: a request is keyed on every call.
 */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) {
    let text = '[';
    // A hole of a sparse array is written as nothing, as Array.prototype.join writes it.
    for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + (i in value ? stableJson(value[i]) : '');
    return `${text}]`;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    let text = '{';
    for (const key of Object.keys(record).sort()) {
      const entry = record[key];
      if (entry === undefined) continue;
      text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${stableJson(entry)}`;
    }
    return `${text}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function cacheKey(parts: CacheKeyParts): string {
  const payload = stableJson({
    format: CACHE_FORMAT,
    provider: parts.providerId,
    model: parts.model,
    endpoint: parts.endpoint ?? '',
    messages: parts.messages,
    // Absent (not empty) without tools, so keys of requests without tools stay what they were.
    tools: parts.tools && parts.tools.length > 0 ? parts.tools : undefined,
    params: parts.params,
  });
  return createHash('sha256').update(payload).digest('hex');
}

/** Logs a folder may hold before a run merges them into one. */
export const MAX_LOGS = 32;
const LOG = /^replies-.*\.jsonl$/;
const NEWLINE = 0x0a;
/** A line starts `{"key":"<64 hex>"`: the key is read without parsing the line. */
const KEY_AT = '{"key":"'.length;
const KEY_LENGTH = 64;

/** Where an entry's line is: its log (an open descriptor) and its bytes. */
interface Place {
  fd: number;
  start: number;
  length: number;
}

/** One cache folder's index and this process's log in it, shared by every provider of the process. */
class Store {
  private readonly places = new Map<string, Place | string>();
  private readonly fds: number[] = [];
  /** This process's log, opened with its first entry (readable: its entries are read back from it). */
  private readonly own = new CacheLog(() => {
    makeFolder(this.dir);
    return openSync(path.join(this.dir, `replies-${logName()}.jsonl`), 'a+');
  });

  constructor(readonly dir: string) {
    // Lines this process has not written yet (another store's) would be misses.
    flushCacheLogs();
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      // no folder yet: an empty cache
    }
    let logs = names.filter((name) => LOG.test(name)).sort();
    if (logs.length > MAX_LOGS) logs = this.merge(logs);
    for (const name of logs) this.index(path.join(dir, name));
  }

  /** Read a log's keys and places (a torn or foreign line is skipped). */
  private index(file: string): void {
    let fd: number;
    let bytes: Buffer;
    try {
      fd = openSync(file, 'r');
      bytes = Buffer.alloc(fstatSync(fd).size);
      readSync(fd, bytes, 0, bytes.length, 0);
    } catch {
      return;
    }
    this.fds.push(fd);
    for (let start = 0; start < bytes.length; ) {
      const end = bytes.indexOf(NEWLINE, start);
      if (end < 0) break; // a line still being written: not an entry yet
      if (end - start > KEY_AT + KEY_LENGTH) {
        const key = bytes.toString('latin1', start + KEY_AT, start + KEY_AT + KEY_LENGTH);
        if (!this.places.has(key)) this.places.set(key, { fd, start, length: end - start });
      }
      start = end + 1;
    }
  }

  /** Merge logs into one (written whole, then renamed into place), first entry of a key kept; the merged log's name. */
  private merge(logs: string[]): string[] {
    const seen = new Set<string>();
    const lines: string[] = [];
    for (const name of logs) {
      let text: string;
      try {
        text = readFileSync(path.join(this.dir, name), 'utf8');
      } catch {
        continue;
      }
      const whole = text.slice(0, text.lastIndexOf('\n') + 1);
      for (const line of whole.split('\n')) {
        const key = line.slice(KEY_AT, KEY_AT + KEY_LENGTH);
        if (line.length <= KEY_AT + KEY_LENGTH || seen.has(key)) continue;
        seen.add(key);
        lines.push(line);
      }
    }
    const merged = `replies-${logName()}.jsonl`;
    const tmp = path.join(this.dir, `${merged}.tmp`);
    try {
      const fd = openSync(tmp, 'w');
      try {
        writeSync(fd, lines.length ? `${lines.join('\n')}\n` : '');
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path.join(this.dir, merged));
      // A log another process is still appending to loses what it appends from now on: misses, not errors.
      for (const name of logs) rmSync(path.join(this.dir, name), { force: true });
      return [merged];
    } catch {
      rmSync(tmp, { force: true });
      return logs;
    }
  }

  async get(key: string): Promise<string | undefined> {
    const place = this.places.get(key);
    if (typeof place === 'string') return place;
    if (place) {
      try {
        const bytes = Buffer.alloc(place.length);
        readSync(place.fd, bytes, 0, place.length, place.start);
        return bytes.toString('utf8');
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** Append an entry's line (`line` holds no newline) to this process's log. */
  set(key: string, line: string): void {
    if (this.places.has(key)) return;
    // Found at once, from memory until it is written; then read from the log, as a later run
    // reads it, so that a run does not keep every reply it was given.
    this.places.set(key, line);
    this.own.add(line, (fd, start, length) => {
      if (this.places.get(key) === line) this.places.set(key, { fd, start, length });
    });
  }
}

/** A log's name: when it was started, by which process, and a random tail. */
function logName(): string {
  return `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The stores of this process, by folder. */
const stores = new Map<string, Store>();

export class ResponseCache {
  private found: Store | undefined;

  constructor(readonly dir: string) {}

  /** The folder's store, read on first use (a provider that is never called reads nothing). */
  private get store(): Store {
    if (!this.found) {
      const dir = path.resolve(this.dir);
      this.found = stores.get(dir);
      if (!this.found) stores.set(dir, (this.found = new Store(dir)));
    }
    return this.found;
  }

  async get(key: string): Promise<CachedReply | undefined> {
    const raw = await this.store.get(key);
    if (raw === undefined) return undefined;
    try {
      const entry = JSON.parse(raw) as { key?: string; format?: number; reply?: Partial<CachedReply> };
      if (entry.key !== undefined && entry.key !== key) return undefined;
      const reply = entry.reply;
      if (entry.format !== CACHE_FORMAT || typeof reply?.text !== 'string') return undefined;
      const input = Number(reply.usage?.inputTokens);
      const output = Number(reply.usage?.outputTokens);
      if (!Number.isFinite(input) || !Number.isFinite(output)) return undefined;
      const calls = reply.toolCalls;
      if (calls !== undefined && !(Array.isArray(calls) && calls.every((c) => typeof c?.id === 'string' && typeof c.name === 'string' && c.arguments !== null && typeof c.arguments === 'object'))) return undefined;
      const choices = reply.choices;
      if (choices !== undefined && !(Array.isArray(choices) && choices.every((c) => typeof c?.text === 'string' && typeof c.finishReason === 'string'))) return undefined;
      return {
        text: reply.text,
        ...(calls && calls.length > 0 && { toolCalls: calls }),
        usage: { inputTokens: input, outputTokens: output },
        ...(typeof reply.finishReason === 'string' && { finishReason: reply.finishReason }),
        ...(choices && { choices: choices.map((c) => ({ text: c.text, finishReason: c.finishReason })) }),
      };
    } catch {
      return undefined;
    }
  }

  /** Store a successful reply. Never throws: a cache that cannot be written is only slower. */
  set(key: string, reply: CachedReply, meta: { providerId: string; model: string }): void {
    if (!/^[0-9a-f]{64}$/.test(key)) return;
    const entry = {
      key,
      format: CACHE_FORMAT,
      provider: redact(meta.providerId),
      model: redact(meta.model),
      storedAt: new Date().toISOString(),
      reply: {
        text: redact(reply.text),
        ...(reply.toolCalls && { toolCalls: redactDeep(reply.toolCalls) }),
        usage: { inputTokens: reply.usage.inputTokens, outputTokens: reply.usage.outputTokens },
        ...(reply.finishReason !== undefined && { finishReason: reply.finishReason }),
        ...(reply.choices && { choices: reply.choices.map((c) => ({ text: redact(c.text), finishReason: c.finishReason })) }),
      },
    };
    this.store.set(key, JSON.stringify(entry));
  }
}
