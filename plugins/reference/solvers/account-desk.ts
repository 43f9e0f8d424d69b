/**
 * Reference player for the account desk (SPADE's multi-turn tool-use variant): it reads each
 * request as it is revealed, looks the customer and their accounts up, and does the request with
 * the tool whose name and description share the most words with the job. Look-alike tools tie;
 * it tries them in a seeded random order and knows it picked wrong when the request does not
 * show as complete, which costs a turn. The hint names the right tool for each job.
 */
import type { ToolDefinition } from '../../../core/concepts/tools.js';
import { ACCOUNT_DESK_TITLE } from '../families/account-desk.js';
import type { Solver } from './solver.js';
import { answerReply, callReply, parametersOf, rankTools, resultJson, toolResult, toolsNamedIn } from './tool-use.js';

type Request =
  | { kind: 'move'; name: string; city: string }
  | { kind: 'freeze' }
  | { kind: 'ticket'; priority: string }
  | { kind: 'note'; note: string }
  | { kind: 'card'; card: string };

function readRequest(text: string): Request | undefined {
  let m = /move the whole balance of the checking account of (.+?), the customer in (\w+), to their savings account/.exec(text);
  if (m) return { kind: 'move', name: m[1]!, city: m[2]! };
  if (/freeze that checking account/.test(text)) return { kind: 'freeze' };
  if ((m = /Open a support ticket .*?with (\w+) priority/.exec(text))) return { kind: 'ticket', priority: m[1]! };
  if ((m = /Add this note to that ticket, word for word: "(.*)"/.exec(text))) return { kind: 'note', note: m[1]! };
  if ((m = /order the customer a new (\w+) card/.exec(text))) return { kind: 'card', card: m[1]! };
  return undefined;
}

/** The words of each job, as a clerk would put it. */
const JOBS = {
  find: ['find', 'customer', 'name'],
  list: ['list', 'account', 'customer'],
  move: ['move', 'money', 'account'],
  freeze: ['status', 'account', 'freeze', 'frozen'],
  ticket: ['open', 'support', 'ticket'],
  note: ['add', 'note', 'ticket'],
  card: ['order', 'new', 'card'],
} as const;
type Job = keyof typeof JOBS;

interface Known {
  customer?: string;
  checking?: { id: string; balance: number };
  savings?: string;
  ticket?: string;
}

/** Arguments for any tool from what is known, by the names of its parameters (unknown ones left empty). */
function argumentsFor(tool: ToolDefinition, request: Request | undefined, known: Known, find: { name: string } | undefined): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const properties = tool.parameters.properties as Record<string, { enum?: unknown[] }> | undefined;
  for (const name of parametersOf(tool)) {
    const allowed = properties?.[name]?.enum;
    const value =
      /^name$/.test(name) && find ? find.name
      : /from/.test(name) ? known.checking?.id
      : /^to/.test(name) ? known.savings
      : /amount/.test(name) ? known.checking?.balance
      : /status/.test(name) ? (allowed?.includes('frozen') ? 'frozen' : allowed?.[0])
      : /priority/.test(name) && request?.kind === 'ticket' ? request.priority
      : /subject/.test(name) ? 'Checking account frozen'
      : /ticket/.test(name) ? known.ticket
      : /note|text/.test(name) && request?.kind === 'note' ? request.note
      : /type/.test(name) && request?.kind === 'card' ? request.card
      : /customer/.test(name) ? known.customer
      : /account/.test(name) ? known.checking?.id
      : undefined;
    args[name] = value ?? '';
  }
  return args;
}

export const accountDeskSolver: Solver = {
  family: 'account-desk',
  title: ACCOUNT_DESK_TITLE,
  start(first, context) {
    const tools = context.tools ?? [];
    const preferred = toolsNamedIn(context.hint, tools);
    const candidates = new Map<Job, ToolDefinition[]>();
    const next = (job: Job): ToolDefinition | undefined => {
      if (!candidates.has(job)) candidates.set(job, rankTools(tools, JOBS[job], context.random, preferred));
      return candidates.get(job)![0];
    };
    /** The tool just tried did not do the job: the next candidate. */
    const drop = (job: Job) => candidates.get(job)?.shift();

    let request = readRequest(first);
    const known: Known = {};
    let tried: Job | undefined;
    let done = false;
    return {
      act(observation) {
        const result = toolResult(observation);
        if (result !== undefined) {
          const revealed = /\[STEP \d+ COMPLETE[^\]]*\] (.*)$/s.exec(result);
          if (/\[ALL STEPS COMPLETE\]/.test(result)) done = true;
          else if (revealed) request = readRequest(revealed[1]!);
          const json = resultJson(observation);
          const ticket = /ticket (T-\d+)/.exec(result)?.[1];
          if (ticket) known.ticket = ticket;
          if (tried === 'find') {
            const wanted = request?.kind === 'move' ? request.city : undefined;
            const match = Array.isArray(json) && wanted ? (json as { customer_id?: string; city?: string }[]).find((c) => c.city === wanted) : undefined;
            if (match?.customer_id) known.customer = match.customer_id;
            else drop('find');
          } else if (tried === 'list') {
            const accounts = Array.isArray(json) ? (json as { account_id?: string; type?: string; balance?: number }[]) : [];
            const checking = accounts.find((a) => a.type === 'checking');
            const savings = accounts.find((a) => a.type === 'savings');
            if (checking?.account_id && savings?.account_id) {
              known.checking = { id: checking.account_id, balance: Number(checking.balance) };
              known.savings = savings.account_id;
            } else drop('list');
          } else if (tried && !revealed && !done) {
            // The request did not show as complete: that tool was not the one.
            drop(tried);
          }
        }
        if (done) return answerReply('Every request is done.', 'done');
        if (!request) return answerReply('I cannot tell what is asked.', 'done');
        let job: Job;
        if (request.kind === 'move' && !known.customer) job = 'find';
        else if (!known.checking) job = 'list';
        else job = request.kind;
        tried = job;
        const tool = next(job);
        if (!tool) return answerReply('No tool left to try.', 'done');
        return callReply(`Next: ${job}, with ${tool.name}.`, tool, argumentsFor(tool, request, known, request.kind === 'move' ? request : undefined));
      },
    };
  },
};
