import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { costOf, priceOf, DEFAULT_PRICES } from '../../../core/providers/prices.js';
import { layerOptionsFrom } from '../../../core/providers/layer-options.js';
import { UsageError } from '../../../core/errors.js';

test('dated snapshots take their model price; other names have none', () => {
  assert.equal(priceOf('gpt-4.1-mini-2025-04-14'), DEFAULT_PRICES['gpt-4.1-mini']);
  assert.equal(priceOf('claude-sonnet-4-20250514'), DEFAULT_PRICES['claude-sonnet-4']);
  assert.equal(priceOf('gpt-4.1-mini'), DEFAULT_PRICES['gpt-4.1-mini']);
  assert.is(priceOf('gpt-4.1-turbo'), undefined);
  assert.is(priceOf('Qwen/Qwen3-8B'), undefined);
});

test('config prices override the table; unknown price means unknown cost', () => {
  const table = { ...DEFAULT_PRICES, 'my-model': { inputPerMTok: 2, outputPerMTok: 4 } };
  assert.is(costOf({ inputTokens: 500_000, outputTokens: 250_000 }, priceOf('my-model', table)), 2);
  assert.is(costOf({ inputTokens: 1, outputTokens: 1 }, undefined), undefined);
});

test('a provider price from config reads { input, output } in USD per million tokens', () => {
  assert.equal(layerOptionsFrom({ model: 'm', price: { input: 3, output: 15 } }).price, { inputPerMTok: 3, outputPerMTok: 15 });
  assert.equal(layerOptionsFrom({ model: 'm', prices: { m2: { input: 1, output: 2 } } }).prices, { m2: { inputPerMTok: 1, outputPerMTok: 2 } });
  assert.throws(() => layerOptionsFrom({ model: 'm', price: { input: -1, output: 2 } }), (e: unknown) => e instanceof UsageError && /price/.test((e as Error).message));
});

test.run();
