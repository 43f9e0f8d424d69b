/**
 * Token prices, in US dollars per million tokens, for common hosted models. Config can
 * override or extend the table (`prices` option) or give one provider its price (`price`).
 * A model that is not in the table has no cost (`costUsd` undefined), never a guessed one.
 */
import type { TokenUsage } from '../types.js';

export interface ModelPrice {
  /** USD per million input (prompt) tokens. */
  inputPerMTok: number;
  /** USD per million output (completion) tokens. */
  outputPerMTok: number;
}

export type PriceTable = Record<string, ModelPrice>;

/** List prices of the vendors' standard tiers (no batch or cache discounts). */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-5.1': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  o3: { inputPerMTok: 2, outputPerMTok: 8 },
  'o3-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'claude-opus-4-5': { inputPerMTok: 5, outputPerMTok: 25 },
  'claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75 },
  'claude-opus-4': { inputPerMTok: 15, outputPerMTok: 75 },
  'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-3-7-sonnet': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4 },
};

/** A dated or `-latest` snapshot of a model: `gpt-4.1-mini-2025-04-14`, `claude-sonnet-4-20250514`. */
const SNAPSHOT_SUFFIX = /^-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** The price of `model`: an exact entry, else the entry it is a dated snapshot of. */
export function priceOf(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  for (const [name, price] of Object.entries(table)) {
    if (model.startsWith(name) && SNAPSHOT_SUFFIX.test(model.slice(name.length))) return price;
  }
  return undefined;
}

/** Cost of one call in USD, or undefined when the price is unknown. */
export function costOf(usage: TokenUsage, price: ModelPrice | undefined): number | undefined {
  if (!price) return undefined;
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}
