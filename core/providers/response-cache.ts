/**
 * The on-disk response cache: one JSON file per reply (its text and tool calls), named by a
 * hash of provider, model, endpoint, messages (tool calls and tool results included), tools
 * and parameters. Only successful replies are stored; every stored string
 * is redacted; an unreadable entry is a miss, never an error.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TokenUsage, ToolCall, ToolDefinition } from '../types.js';
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
}

/** JSON with object keys sorted, so that equal parameters give equal keys. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
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

/**
 * Entries being written, by file, in every cache of this process: a reply is found the moment
 * it is stored, while its file is still being written.
 */
const writing = new Map<string, { entry: string; done: Promise<void> }>();

/** Folders already made, so that each write is one writeFile and one rename. */
const made = new Set<string>();

export class ResponseCache {
  constructor(readonly dir: string) {}

  fileOf(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CachedReply | undefined> {
    const file = this.fileOf(key);
    let raw: string;
    try {
      raw = writing.get(file)?.entry ?? (await readFile(file, 'utf8'));
    } catch {
      return undefined;
    }
    try {
      const entry = JSON.parse(raw) as { format?: number; reply?: Partial<CachedReply> };
      const reply = entry.reply;
      if (entry.format !== CACHE_FORMAT || typeof reply?.text !== 'string') return undefined;
      const input = Number(reply.usage?.inputTokens);
      const output = Number(reply.usage?.outputTokens);
      if (!Number.isFinite(input) || !Number.isFinite(output)) return undefined;
      const calls = reply.toolCalls;
      if (calls !== undefined && !(Array.isArray(calls) && calls.every((c) => typeof c?.id === 'string' && typeof c.name === 'string' && c.arguments !== null && typeof c.arguments === 'object'))) return undefined;
      return { text: reply.text, ...(calls && calls.length > 0 && { toolCalls: calls }), usage: { inputTokens: input, outputTokens: output } };
    } catch {
      return undefined;
    }
  }

  /**
   * Store a successful reply. Never throws: a cache that cannot be written is only slower. The
   * file is written in the background (a temporary file renamed into place, so it is whole or
   * absent; not synced: an entry lost to a power cut is a miss), and the reply is found at once.
   */
  set(key: string, reply: CachedReply, meta: { providerId: string; model: string }): void {
    const entry = {
      format: CACHE_FORMAT,
      provider: redact(meta.providerId),
      model: redact(meta.model),
      storedAt: new Date().toISOString(),
      reply: {
        text: redact(reply.text),
        ...(reply.toolCalls && { toolCalls: redactDeep(reply.toolCalls) }),
        usage: { inputTokens: reply.usage.inputTokens, outputTokens: reply.usage.outputTokens },
      },
    };
    const file = this.fileOf(key);
    const text = `${JSON.stringify(entry)}\n`;
    const pending = { entry: text, done: Promise.resolve() };
    pending.done = (async () => {
      const folder = path.dirname(file);
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      try {
        if (!made.has(folder)) {
          await mkdir(folder, { recursive: true });
          made.add(folder);
        }
        await writeFile(tmp, text);
        await rename(tmp, file);
      } catch {
        await rm(tmp, { force: true }).catch(() => {});
      } finally {
        if (writing.get(file) === pending) writing.delete(file);
      }
    })();
    writing.set(file, pending);
  }

  /** Wait for the writes in flight (of every cache of this process). */
  static async flush(): Promise<void> {
    await Promise.all([...writing.values()].map((w) => w.done));
  }
}
