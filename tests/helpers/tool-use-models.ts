/**
 * Scripted models for tool-use games, for tests against the wire-protocol servers: each reads the
 * conversation the agent sent (the task, then every observation since, whether tool results or
 * user messages) and decides its next reply from it, as a model would. They win only when the
 * tools went out, their calls reached the environment and the results came back.
 */
import type { Protocol, Step } from './wire-servers.js';

/** The conversation as a scripted model reads it: system text, tool names offered, the task, then each observation since. */
export interface View {
  system: string;
  tools: string[];
  task: string;
  observations: string[];
}

export function viewOf(protocol: Protocol, body: Record<string, unknown>): View {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const tools = ((body.tools ?? []) as Record<string, unknown>[]).map((t) => (protocol === 'openai' ? (t.function as { name: string }).name : (t.name as string)));
  const texts = (content: unknown): string[] => {
    if (typeof content === 'string') return [content];
    if (!Array.isArray(content)) return [];
    return (content as Record<string, unknown>[]).map((b) => (b.type === 'tool_result' ? String(b.content) : String(b.text ?? '')));
  };
  const system = protocol === 'openai' ? messages.filter((m) => m.role === 'system').map((m) => String(m.content)).join('\n') : String(body.system ?? '');
  const turns = messages.filter((m) => m.role === 'user' || m.role === 'tool');
  return { system, tools, task: texts(turns[0]?.content).join(''), observations: turns.slice(1).flatMap((m) => texts(m.content)) };
}

export interface Script {
  /** Call tools natively (else write them in the text). */
  native: boolean;
  /** Answer one more than the right total. */
  wrong?: boolean;
  /** The first reply calls a second tool beside list_warehouses. */
  extraCall?: boolean;
  /** The first reply writes a <tool_call> that is not JSON. */
  malformedFirst?: boolean;
}

/** The results of the tool calls so far (the text after "Tool result:"). */
const toolResults = (view: View): string[] => view.observations.filter((o) => o.startsWith('Tool result:')).map((o) => o.slice('Tool result:\n'.length));

/** A reply calling one tool, natively or in the text protocol's XML form (Qwen3.5-style templates), values as text. */
function callStep(script: Pick<Script, 'native'>, name: string, args: Record<string, unknown>): Step {
  if (script.native) return { kind: 'reply', toolCalls: [{ name, arguments: args }] };
  const parameters = Object.entries(args).map(([k, v]) => `<parameter=${k}>\n${String(v)}\n</parameter>`).join('\n');
  return { kind: 'reply', text: `Next:\n<tool_call>\n<function=${name}>\n${parameters}\n</function>\n</tool_call>` };
}

/** The inventory games (tests/fixtures): list the warehouses, read each one's stock of the asked item, answer the sum. */
export function inventoryModel(view: View, script: Script): Step {
  const item = /How many (\w+)/.exec(view.task)![1]!;
  const results = toolResults(view).map((r) => r.split('\n')[0]!);
  if (results.length === 0) {
    if (script.malformedFirst && !view.observations.some((o) => o.includes('[FORMAT]'))) return { kind: 'reply', text: 'Listing: <tool_call>{"name": "list_warehouses", "arguments": </tool_call>' };
    if (script.extraCall) return { kind: 'reply', text: 'Two at once.', toolCalls: [{ name: 'list_warehouses', arguments: {} }, { name: 'get_price', arguments: { item } }] };
    return callStep(script, 'list_warehouses', {});
  }
  const warehouses = JSON.parse(results[0]!) as string[];
  const counts = results.slice(1).map(Number);
  if (counts.length < warehouses.length) return callStep(script, 'get_stock', { item, warehouse: warehouses[counts.length]! });
  const total = counts.reduce((a, b) => a + b, 0) + (script.wrong ? 1 : 0);
  return { kind: 'reply', text: `The total is ${total}. <answer>${total}</answer>` };
}

/**
 * The multi-turn ticket desk (tests/fixtures/spade-format/tool_use_multi_turn.py): follows each
 * instruction as it is revealed, taking the ticket id and the assignee from the results.
 */
export function ticketDeskModel(view: View, script: Pick<Script, 'native'>): Step {
  const customer = /Customer (\w+) is waiting/.exec(view.task)![1]!;
  const results = toolResults(view);
  if (results.length === 0) return callStep(script, 'list_tickets', { customer });
  const tickets = JSON.parse(results[0]!.split('\n')[0]!) as { id: string; status: string }[];
  const target = tickets.find((t) => t.status === 'open')!.id;
  const assignee = /NEW INSTRUCTION\] Assign that ticket to ([\w-]+)/.exec(results.join('\n'))?.[1];
  switch (results.length) {
    case 1: return callStep(script, 'set_priority', { ticket_id: target, priority: 'urgent' });
    case 2: return callStep(script, 'assign_ticket', { ticket_id: target, agent: assignee ?? 'nobody' });
    case 3: return callStep(script, 'close_ticket', { ticket_id: target });
    case 4: return callStep(script, 'list_tickets', { customer });
    default: return { kind: 'reply', text: 'All three instructions are done. <answer>done</answer>' };
  }
}
