/**
 * A small `fetch` for plain-HTTP endpoints (local servers: vLLM, Ollama, llama.cpp...), on
 * node:http with a keep-alive agent. Node 20's built-in fetch spends about a third more CPU
 * per request, which caps the request rate a local server can be driven at. Bodies are read
 * whole (no streaming): the providers make non-streaming calls. HTTPS goes to the built-in fetch.
 */
import type { Agent } from 'node:http';

/**
 * node:http and the keep-alive agent, loaded on the first request: the package entry exports
 * this fetch, and a run whose providers never make an HTTP request (the offline default, a
 * local plugin) does not load node:http and the modules under it (~10 ms of start-up).
 */
let client: Promise<{ http: typeof import('node:http'); agent: Agent }> | undefined;
const httpClient = (): Promise<{ http: typeof import('node:http'); agent: Agent }> =>
  (client ??= import('node:http').then(({ default: http }) => ({
    http,
    agent: new http.Agent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets: Infinity, scheduling: 'lifo' }),
  })));

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason as unknown;
  return reason instanceof Error && reason.name === 'AbortError' ? reason : new DOMException('This operation was aborted', 'AbortError');
}

async function bodyOf(body: RequestInit['body']): Promise<string | Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** `fetch` over node:http for http: URLs; anything else is passed to the built-in fetch. */
export async function keepAliveFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (url.protocol !== 'http:' || input instanceof Request) return fetch(input, init);
  const { signal } = init;
  if (signal?.aborted) throw abortError(signal);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => {
    headers[key] = value;
  });
  const body = await bodyOf(init.body);
  const { http, agent } = await httpClient();
  if (signal?.aborted) throw abortError(signal);
  return new Promise<Response>((resolve, reject) => {
    const request = http.request(url, { method: init.method ?? 'GET', headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(response.headers)) {
          if (value !== undefined) responseHeaders.set(key, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = response.statusCode ?? 500;
        const nullBody = status === 204 || status === 304;
        resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: response.statusMessage, headers: responseHeaders }));
      });
      response.on('error', fail);
      response.on('aborted', () => fail(Object.assign(new Error('the connection closed before the reply ended'), { code: 'ECONNRESET' })));
    });
    function fail(error: Error) {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: error }));
    }
    function onAbort() {
      request.destroy();
      reject(abortError(signal!));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', fail);
    request.end(body);
  });
}
