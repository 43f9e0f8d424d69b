/**
 * Local HTTP servers on 127.0.0.1 that speak the wire protocols the SDKs use:
 * OpenAI Chat Completions (POST /v1/chat/completions) and Anthropic Messages (POST /v1/messages).
 * Scriptable: queue replies, errors with headers (429 + retry-after), slow replies, dropped
 * connections and malformed JSON; every request is recorded with its headers and body.
 *
 * Run directly to serve one for benchmarks in another process:
 *   node --import tsx tests/helpers/wire-servers.ts openai 50   (protocol, delay in ms)
 * prints the base URL on stdout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export type Protocol = 'openai' | 'anthropic';

export type Step =
  /** A normal reply. Defaults: text echoes the last user message, usage counts words. */
  | { kind: 'reply'; text?: string; inputTokens?: number; outputTokens?: number; delayMs?: number }
  /** An error status with the vendor's error body, e.g. 429 with { 'retry-after': '1' }. */
  | { kind: 'error'; status: number; headers?: Record<string, string>; message?: string; delayMs?: number }
  /** Read the request, then destroy the socket without answering. */
  | { kind: 'drop' }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  rawBody: string;
  receivedAt: number;
}

export interface WireServer {
  protocol: Protocol;
  /** The base URL the SDK takes: `http://127.0.0.1:PORT/v1` (OpenAI) or `http://127.0.0.1:PORT` (Anthropic). */
  baseURL: string;
  requests: RecordedRequest[];
  /** Most requests seen in flight at once. */
  maxInFlight: number;
  /** Queue steps, answered in order before falling back to the default. */
  script(...steps: Step[]): void;
  /** What to do once the script is used up (default: an echo reply). */
  setDefault(step: Step): void;
  /** Answer by the request's body: a step for the requests it recognises (checked before the script), undefined for the others. */
  route(answer: (body: Record<string, unknown>) => Step | undefined): void;
  close(): Promise<void>;
}

export interface WireServerOptions {
  /** Delay of default replies, in ms. */
  delayMs?: number;
  /** Keep no request records (for benchmarks). */
  record?: boolean;
}

function lastUserText(protocol: Protocol, body: Record<string, unknown>): string {
  const messages = (body.messages as { role: string; content: unknown }[] | undefined) ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return protocol === 'anthropic' && Array.isArray(last.content) ? last.content.map((b: { text?: string }) => b.text ?? '').join('') : '';
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

function replyBody(protocol: Protocol, body: Record<string, unknown>, step: Extract<Step, { kind: 'reply' }>, n: number): unknown {
  const prompt = JSON.stringify(body.messages ?? []) + (typeof body.system === 'string' ? body.system : '');
  const text = step.text ?? `echo: ${lastUserText(protocol, body)}`;
  const input = step.inputTokens ?? words(prompt);
  const output = step.outputTokens ?? words(text);
  if (protocol === 'openai') {
    return {
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
    };
  }
  return {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: input, output_tokens: output },
  };
}

function errorBody(protocol: Protocol, status: number, message: string): unknown {
  if (protocol === 'openai') {
    return { error: { message, type: status === 429 ? 'requests' : 'server_error', param: null, code: status === 429 ? 'rate_limit_exceeded' : null } };
  }
  const type = status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}

export async function startWireServer(protocol: Protocol, options: WireServerOptions = {}): Promise<WireServer> {
  const queue: Step[] = [];
  let fallback: Step = { kind: 'reply', delayMs: options.delayMs };
  let router: ((body: Record<string, unknown>) => Step | undefined) | undefined;
  let inFlight = 0;
  let served = 0;
  const expectedPath = protocol === 'openai' ? '/v1/chat/completions' : '/v1/messages';

  const server = http.createServer((req, res) => {
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.on('close', finish);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        body = rawBody ? (JSON.parse(rawBody) as Record<string, unknown>) : {};
      } catch {
        body = {};
      }
      if (options.record !== false) {
        state.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, rawBody, receivedAt: Date.now() });
      }
      const n = ++served;
      if (req.method !== 'POST' || req.url !== expectedPath) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorBody(protocol, 404, `no route ${req.method} ${req.url}`)));
        return;
      }
      const step = router?.(body) ?? queue.shift() ?? fallback;
      const send = () => {
        if (res.destroyed) return;
        switch (step.kind) {
          case 'reply':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(replyBody(protocol, body, step, n)));
            return;
          case 'error':
            res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
            res.end(JSON.stringify(errorBody(protocol, step.status, step.message ?? `scripted HTTP ${step.status}`)));
            return;
          case 'malformed':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{"id": "broken", "choices": [ {"message": ');
            return;
          case 'drop':
            req.socket.destroy();
            return;
        }
      };
      const delay = step.kind === 'reply' || step.kind === 'error' ? (step.delayMs ?? 0) : 0;
      if (delay > 0) {
        const timer = setTimeout(send, delay);
        res.on('close', () => clearTimeout(timer));
      } else {
        send();
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const state: WireServer = {
    protocol,
    baseURL: protocol === 'openai' ? `${origin}/v1` : origin,
    requests: [],
    maxInFlight: 0,
    script: (...steps) => void queue.push(...steps),
    setDefault: (step) => void (fallback = step),
    route: (answer) => void (router = answer),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const protocol = (process.argv[2] ?? 'openai') as Protocol;
  const delayMs = Number(process.argv[3] ?? 0);
  const server = await startWireServer(protocol, { delayMs, record: false });
  process.stdout.write(`${server.baseURL}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
