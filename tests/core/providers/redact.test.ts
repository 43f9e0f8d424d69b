import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redact, redactDeep, registerSecret } from '../../../core/providers/redact.js';

test('registered keys and vendor-shaped keys are redacted', () => {
  registerSecret('custom-token-XYZ-123456');
  assert.is(redact('use custom-token-XYZ-123456 now'), 'use [redacted] now');
  assert.is(redact('key sk-proj-abcdefghijklmnop1234 end'), 'key [redacted] end');
  assert.is(redact('x sk-ant-api03-abcdefghijkl y'), 'x [redacted] y');
  assert.is(redact('Authorization: Bearer abcdefghijklmnopqrstu'), 'Authorization: Bearer [redacted]');
  assert.is(redact('nothing secret here'), 'nothing secret here');
});

test('a password written into a URL is redacted, the rest of the URL kept', () => {
  assert.is(redact('could not reach http://proxyuser:pr0xy-secret@127.0.0.1:9/v1 after 6 attempts'), 'could not reach http://proxyuser:[redacted]@127.0.0.1:9/v1 after 6 attempts');
  assert.is(redact('redis://:p4ss@host:6379/0 and rediss://u:p@h'), 'redis://:[redacted]@host:6379/0 and rediss://u:[redacted]@h');
  // No password, or no user info: as it was.
  for (const text of ['https://user@host/path', 'https://host:8080/a:b@c', 'mailto:someone@example.com', 'a:b@c']) assert.is(redact(text), text);
});

test('short values are not registered, so ordinary words survive', () => {
  registerSecret('abc');
  assert.is(redact('abc def'), 'abc def');
});

test('redactDeep blanks secret fields and redacts strings in nested config', () => {
  registerSecret('deep-secret-value-0001');
  const config = { providers: { 'openai:x': { apiKey: 'k', baseURL: 'http://h', headers: { Authorization: 'token' } } }, note: 'deep-secret-value-0001' };
  assert.equal(redactDeep(config), {
    providers: { 'openai:x': { apiKey: '[redacted]', baseURL: 'http://h', headers: { Authorization: '[redacted]' } } },
    note: '[redacted]',
  });
});

test.run();
