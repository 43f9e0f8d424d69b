import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PluginRegistry, type ProviderPlugin } from '../../../core/config/plugin.js';
import { statsOf } from '../../../core/providers/layer.js';

test('the example plugin loads from its file path through the registry and answers', async () => {
  const registry = new PluginRegistry([], process.cwd());
  const { plugin, argument } = await registry.resolve('provider', './plugins/providers/examples/echo-provider.ts');
  assert.is(plugin.kind, 'provider');
  assert.is(plugin.id, 'echo');
  assert.is(argument, undefined);
  const provider = await (plugin as ProviderPlugin).create({ model: 'demo' });
  const reply = await provider.chat({ messages: [{ role: 'system', content: 'rules' }, { role: 'user', content: 'Task\nanswer 42' }] });
  assert.is(provider.id, 'echo:demo');
  assert.is(reply.text, '\\boxed{answer 42}');
  assert.equal(reply.usage, { inputTokens: 4, outputTokens: 2 });
  assert.is(statsOf(provider)!.usage().calls, 1, 'wrapped by the shared layer');
});

test('once registered, its id resolves with a model argument', async () => {
  const registry = new PluginRegistry([], process.cwd());
  await registry.register(['./plugins/providers/examples/echo-provider.ts']);
  assert.ok(registry.list().some((p) => p.id === 'echo' && p.source === 'loaded'));
  const { plugin, argument } = await registry.resolve('provider', 'echo:tiny');
  assert.is(argument, 'tiny');
  const provider = await (plugin as ProviderPlugin).create({ model: argument! });
  assert.is((await provider.chat({ messages: [{ role: 'user', content: 'go' }] })).text, '\\boxed{go}');
});

test.run();
