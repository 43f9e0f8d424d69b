/**
 * Local HTTP servers on 127.0.0.1 that speak the wire protocols the SDKs use:
 * OpenAI Chat Completions (POST /v1/chat/completions) and Anthropic Messages (POST /v1/messages).
 * Scriptable: queue replies (text, or tool calls the way each API returns them: OpenAI
 * `tool_calls` with `function.arguments` as JSON text and finish_reason "tool_calls";
 * Anthropic `tool_use` blocks with an `input` object and stop_reason "tool_use"), errors with
 * headers (429 + retry-after), slow replies, dropped connections and malformed JSON; every
 * request is recorded with its headers and body.
 *
 * Like the real APIs, the servers check the tools and the tool turns of each request and answer
 * a malformed one with HTTP 400 and the vendor's error body (wireRequestProblem): an unnamed or
 * badly named tool, a tool result answering no call of the assistant message before it, a call
 * left without its result.
 *
 * Run directly to serve one for benchmarks in another process:
 *   node --import tsx tests/helpers/wire-servers.ts openai 50 [ignores-n]   (protocol, delay in ms, one choice per request)
 * prints the base URL on stdout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export type Protocol = 'openai' | 'anthropic';

/** A tool call a scripted reply makes; `arguments` as text is sent as is (to script malformed JSON). */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

export type Step =
  /**
   * A normal reply. Defaults: text echoes the last user message (none beside tool calls), usage
   * counts words. With `toolCalls`, the reply calls those tools.
   */
  | {
      kind: 'reply';
      text?: string;
      toolCalls?: ScriptedToolCall[];
      inputTokens?: number;
      outputTokens?: number;
      delayMs?: number;
      /** The choice's finish_reason (Anthropic: stop_reason), e.g. `length` for a reply cut at max tokens. */
      finishReason?: string;
      /**
       * OpenAI protocol: the choices of a request with `n` > 1, in order (their finish reasons
       * default to `stop`). Absent: n copies of `text`.
       */
      samples?: { text: string; finishReason?: string }[];
    }
  /** An error status with the vendor's error body, e.g. 429 with { 'retry-after': '1' }. */
  | { kind: 'error'; status: number; headers?: Record<string, string>; message?: string; delayMs?: number }
  /** Read the request, then destroy the socket without answering. */
  | { kind: 'drop' }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /** 200 with this JSON body as is (a reply of a shape the vendor may send: no choices, a choice without a message). */
  | { kind: 'raw'; body: unknown; delayMs?: number }
  /** Hold the request unanswered until the client gives up or the server closes (a call cut in flight). */
  | { kind: 'hang' };

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
  /** TCP connections accepted so far. */
  connections: number;
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
  /** Answer a request for `n` samples with one choice only, as servers without `n` do (llama.cpp, Ollama). */
  ignoresN?: boolean;
}

function lastUserText(protocol: Protocol, body: Record<string, unknown>): string {
  const messages = (body.messages as { role: string; content: unknown }[] | undefined) ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return protocol === 'anthropic' && Array.isArray(last.content) ? last.content.map((b: { text?: string }) => b.text ?? '').join('') : '';
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

function replyBody(protocol: Protocol, body: Record<string, unknown>, step: Extract<Step, { kind: 'reply' }>, n: number, ignoresN = false): unknown {
  const prompt = JSON.stringify(body.messages ?? []) + JSON.stringify(body.tools ?? []) + (typeof body.system === 'string' ? body.system : '');
  const calls = step.toolCalls ?? [];
  const text = step.text ?? (calls.length > 0 ? '' : `echo: ${lastUserText(protocol, body)}`);
  const input = step.inputTokens ?? words(prompt);
  const output = step.outputTokens ?? words(text) + calls.reduce((sum, c) => sum + words(`${c.name} ${JSON.stringify(c.arguments)}`), 0);
  if (protocol === 'openai') {
    const message: Record<string, unknown> = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, refusal: null };
    if (calls.length > 0) {
      message.tool_calls = calls.map((call, i) => ({
        id: call.id ?? `call_${n}_${i}`,
        type: 'function',
        function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
      }));
    }
    const finish = step.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
    const wanted = typeof body.n === 'number' && body.n > 1 && !ignoresN ? body.n : 1;
    let choices = [{ index: 0, message, logprobs: null, finish_reason: finish }];
    let completion = output;
    if (wanted > 1) {
      const samples = step.samples ?? Array.from({ length: wanted }, () => ({ text, finishReason: finish }));
      choices = samples.slice(0, wanted).map((sample, index) => ({
        index,
        message: { role: 'assistant', content: sample.text, refusal: null },
        logprobs: null,
        finish_reason: sample.finishReason ?? 'stop',
      }));
      // Servers count a request's completion tokens over all its choices.
      completion = step.outputTokens ?? samples.slice(0, wanted).reduce((sum, sample) => sum + words(sample.text), 0);
    }
    return {
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices,
      usage: { prompt_tokens: input, completion_tokens: completion, total_tokens: input + completion },
    };
  }
  const content: Record<string, unknown>[] = text === '' && calls.length > 0 ? [] : [{ type: 'text', text }];
  calls.forEach((call, i) => {
    content.push({ type: 'tool_use', id: call.id ?? `toolu_${n}_${i}`, name: call.name, input: typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments });
  });
  return {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: step.finishReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: { input_tokens: input, output_tokens: output },
  };
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What OpenAI's API would refuse in the tools and tool turns of a Chat Completions body. */
function openaiProblem(body: Record<string, unknown>): string | undefined {
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "Invalid type for 'tools': expected an array.";
    for (const [i, tool] of (body.tools as unknown[]).entries()) {
      if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) return `Invalid value for 'tools[${i}].type': expected 'function'.`;
      if (typeof tool.function.name !== 'string' || !TOOL_NAME.test(tool.function.name)) {
        return `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
      }
      if (tool.function.parameters !== undefined && !isObject(tool.function.parameters)) return `Invalid type for 'tools[${i}].function.parameters': expected an object.`;
    }
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  let open: Set<string> | undefined; // calls of the last assistant message still waiting for their results
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || !open?.has(m.tool_call_id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      open.delete(m.tool_call_id);
      continue;
    }
    if (open && open.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    }
    open = undefined;
    if (m.role === 'assistant' && m.tool_calls !== undefined) {
      if (!Array.isArray(m.tool_calls)) return `Invalid type for 'messages[${i}].tool_calls': expected an array.`;
      open = new Set();
      for (const [j, call] of (m.tool_calls as unknown[]).entries()) {
        if (!isObject(call) || typeof call.id !== 'string' || call.type !== 'function' || !isObject(call.function)) return `Invalid 'messages[${i}].tool_calls[${j}]'.`;
        if (typeof call.function.arguments !== 'string') return `Invalid type for 'messages[${i}].tool_calls[${j}].function.arguments': expected a string.`;
        open.add(call.id);
      }
      if (m.content !== null && typeof m.content !== 'string') return `Invalid type for 'messages[${i}].content'.`;
    }
  }
  if (open && open.size > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
  }
  return undefined;
}

/** What Anthropic's API would refuse in the tools and tool turns of a Messages body. */
function anthropicProblem(body: Record<string, unknown>): string | undefined {
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return 'tools: Input should be a valid list';
    for (const [i, tool] of (body.tools as unknown[]).entries()) {
      if (!isObject(tool) || typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) return `tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      if (!isObject(tool.input_schema)) return `tools.${i}.input_schema: Field required`;
      if (tool.input_schema.type !== 'object') return `tools.${i}.input_schema.type: Input should be 'object'`;
    }
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const blocks = (m: Record<string, unknown> | undefined): Record<string, unknown>[] => (m && Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : []);
  for (const [i, m] of messages.entries()) {
    const uses = blocks(m).filter((b) => b.type === 'tool_use');
    for (const [j, b] of blocks(m).entries()) {
      if (b.type === 'tool_use' && !isObject(b.input)) return `messages.${i}.content.${j}.tool_use.input: Input should be a valid dictionary`;
    }
    if (m.role === 'assistant' && uses.length > 0) {
      const answered = new Set(blocks(messages[i + 1]).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      const missing = uses.map((b) => b.id).filter((id) => !answered.has(id));
      if (messages[i + 1]?.role !== 'user' || missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    const results = blocks(m).filter((b) => b.type === 'tool_result');
    if (results.length > 0) {
      const previous = messages[i - 1];
      const called = new Set(previous?.role === 'assistant' ? blocks(previous).filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
      const stray = results.find((b) => !called.has(b.tool_use_id));
      if (m.role !== 'user' || stray) {
        return `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(stray?.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  return undefined;
}

/** The 400 message the vendor's API would give this request's tools and tool turns, or undefined when it is well formed. */
export function wireRequestProblem(protocol: Protocol, body: Record<string, unknown>): string | undefined {
  return protocol === 'openai' ? openaiProblem(body) : anthropicProblem(body);
}

function errorBody(protocol: Protocol, status: number, message: string): unknown {
  if (protocol === 'openai') {
    const type = status === 429 ? 'requests' : status === 400 ? 'invalid_request_error' : 'server_error';
    return { error: { message, type, param: null, code: status === 429 ? 'rate_limit_exceeded' : null } };
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
  const hanging = new Set<http.ServerResponse>();
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
      const problem = wireRequestProblem(protocol, body);
      if (problem) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorBody(protocol, 400, problem)));
        return;
      }
      const step = router?.(body) ?? queue.shift() ?? fallback;
      const send = () => {
        if (res.destroyed) return;
        switch (step.kind) {
          case 'reply':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(replyBody(protocol, body, step, n, options.ignoresN)));
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
          case 'raw':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(step.body));
            return;
          case 'hang':
            hanging.add(res);
            res.on('close', () => hanging.delete(res));
            return;
        }
      };
      const delay = step.kind === 'reply' || step.kind === 'error' || step.kind === 'raw' ? (step.delayMs ?? 0) : 0;
      if (delay > 0) {
        const timer = setTimeout(send, delay);
        res.on('close', () => clearTimeout(timer));
      } else {
        send();
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', () => void state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const state: WireServer = {
    protocol,
    baseURL: protocol === 'openai' ? `${origin}/v1` : origin,
    requests: [],
    maxInFlight: 0,
    connections: 0,
    script: (...steps) => void queue.push(...steps),
    setDefault: (step) => void (fallback = step),
    route: (answer) => void (router = answer),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const protocol = (process.argv[2] ?? 'openai') as Protocol;
  const delayMs = Number(process.argv[3] ?? 0);
  const server = await startWireServer(protocol, { delayMs, record: false, ignoresN: process.argv[4] === 'ignores-n' });
  process.stdout.write(`${server.baseURL}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
