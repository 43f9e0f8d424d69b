import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer } from '../../helpers/wire-servers.js';
import { PRESETS, freetoken, llamacpp, ollama, vllm } from '../../../plugins/providers/presets.js';
import { ProviderError } from '../../../core/providers/provider-error.js';

test('each preset names its usual local address and needs no key', () => {
  assert.equal(PRESETS.map((p) => p.id), ['vllm', 'ollama', 'llamacpp', 'freetoken']);
  assert.match(vllm.description, 'http://127.0.0.1:8000/v1');
  assert.match(ollama.description, 'http://127.0.0.1:11434/v1');
  assert.match(llamacpp.description, 'http://127.0.0.1:8080/v1');
  assert.match(freetoken.description, 'http://127.0.0.1:1919/v1');
  for (const preset of PRESETS) assert.equal(preset.requiredEnv!({ model: 'm' }), []);
});

test('a preset speaks the OpenAI protocol with a placeholder key and max_tokens', async () => {
  const server = await startWireServer('openai');
  try {
    const provider = await vllm.create({ model: 'Qwen/Qwen3-8B', baseURL: server.baseURL });
    assert.is(provider.id, 'vllm:Qwen/Qwen3-8B');
    const reply = await provider.chat({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 32 });
    assert.is(reply.text, 'echo: hi');
    assert.is(reply.costUsd, undefined, 'a local model has no known price');
    const [request] = server.requests;
    assert.is(request!.path, '/v1/chat/completions');
    assert.is(request!.headers.authorization, 'Bearer no-key-required');
    assert.is(request!.body.max_tokens, 32);
    assert.is(request!.body.model, 'Qwen/Qwen3-8B');
  } finally {
    await server.close();
  }
});

test('the <PRESET>_BASE_URL variable points a preset elsewhere, and an unreachable server is named', async () => {
  const server = await startWireServer('openai');
  process.env.OLLAMA_BASE_URL = server.baseURL;
  try {
    const provider = await ollama.create({ model: 'llama3.2' });
    assert.is((await provider.chat({ messages: [{ role: 'user', content: 'yo' }] })).text, 'echo: yo');
  } finally {
    delete process.env.OLLAMA_BASE_URL;
    await server.close();
  }
  const gone = await llamacpp.create({ model: 'any', baseURL: server.baseURL, maxRetries: 0 });
  const error = (await gone.chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as ProviderError;
  assert.instance(error, ProviderError);
  assert.is(error.kind, 'connection');
  assert.match(error.message, `could not reach ${server.baseURL}`);
});

test('a server that closes the connection mid-request was reached: the message says the connection broke', async () => {
  const server = await startWireServer('openai');
  server.script({ kind: 'drop' });
  try {
    const provider = await llamacpp.create({ model: 'any', baseURL: server.baseURL, maxRetries: 0 });
    const error = (await provider.chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as ProviderError;
    assert.instance(error, ProviderError);
    assert.is(error.kind, 'connection');
    assert.match(error.message, `the connection to ${server.baseURL} broke`);
  } finally {
    await server.close();
  }
});

test.run();
