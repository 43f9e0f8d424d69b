import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classifyFailure, parseRetryAfter, UnusableReplyError } from '../../../core/providers/failures.js';

test('retry-after-ms wins over retry-after; seconds and HTTP dates are read', () => {
  assert.is(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
  assert.is(parseRetryAfter(new Headers({ 'retry-after': '2' })), 2000);
  assert.is(parseRetryAfter({ 'Retry-After': '0.5' }), 500);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.is(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now), 3000);
  assert.is(parseRetryAfter(new Headers({ 'retry-after': 'soon' })), undefined);
  assert.is(parseRetryAfter(undefined), undefined);
});

test('statuses, broken connections and bad replies are classified', () => {
  const status = (s: number) => classifyFailure(Object.assign(new Error('x'), { status: s }));
  assert.equal([status(429).kind, status(429).retryable], ['rate-limit', true]);
  assert.equal([status(500).kind, status(502).retryable], ['server', true]);
  assert.equal([status(401).kind, status(401).retryable], ['auth', false]);
  assert.equal([status(404).kind, status(404).retryable], ['client', false]);
  const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
  assert.equal([classifyFailure(reset).kind, classifyFailure(reset).retryable], ['connection', true]);
  assert.equal(classifyFailure(new SyntaxError('Unexpected token')).kind, 'bad-response');
  assert.equal(classifyFailure(new UnusableReplyError('no choices')).retryable, false);
  assert.equal(classifyFailure(new Error('weird')).kind, 'unknown');
});

test('a request fetch will not make (credentials in the URL, a blocked port) is not retried', () => {
  // As the openai SDK wraps them: a connection error whose cause is fetch's own refusal.
  const wrapped = (cause: Error) => Object.assign(new Error('Connection error.', { cause }), { name: 'APIConnectionError' });
  const credentials = classifyFailure(wrapped(new TypeError('Request cannot be constructed from a URL that includes credentials: http://u:[redacted]@h/v1/chat/completions')));
  assert.equal([credentials.kind, credentials.retryable], ['client', false]);
  assert.match(credentials.detail, 'the request cannot be made: Request cannot be constructed from a URL that includes credentials');
  const port = classifyFailure(new TypeError('fetch failed', { cause: new Error('bad port') }));
  assert.equal([port.kind, port.retryable], ['client', false]);
  // A refused connection is still a connection failure, retried.
  assert.equal(classifyFailure(wrapped(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }))).retryable, true);
});

test.run();
