/**
 * Account desk, a tool-use game in SPADE's multi-turn variant (State Modification and Tool
 * Selection skills): a bank customer's requests arrive one at a time, each checked by a
 * criterion on the bank's state, and the next is revealed when it holds; `<answer>done</answer>`
 * ends the game once all are done. Difficulty adds requests and look-alike tools (an external
 * transfer and a wire beside the internal transfer, card and login freezes beside the account
 * status, a chat beside the ticket...) while the turn budget tightens, so picking tools by the
 * words of their descriptions costs turns; the hint says which tool does each job.
 */
import { atDifficulty, type Family } from '../family.js';
import { toolUseProgram, type ToolBinding } from './program-templates.js';

export const ACCOUNT_DESK_TITLE = 'Account desk (tool use).';

const REQUESTS = [3, 3, 3, 4, 4, 4, 5, 5, 5, 5];
const CUSTOMERS = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
/** Look-alike tools offered: the first n of DECOYS. */
const DECOY_COUNT = [0, 0, 1, 2, 3, 4, 5, 6, 6, 7];
/** Turns beyond the fewest the requests take. */
const SLACK = [6, 5, 4, 3, 2, 2, 2, 2, 1, 1];

const CORE_TOOLS: readonly ToolBinding[] = [
  { role: 'findCustomer', name: 'find_customer' },
  { role: 'listAccounts', name: 'list_accounts' },
  { role: 'transfer', name: 'transfer' },
  { role: 'setStatus', name: 'set_account_status' },
  { role: 'createTicket', name: 'create_ticket' },
  { role: 'addNote', name: 'add_ticket_note' },
  { role: 'orderCard', name: 'order_card' },
];
/** Each looks like one of the core tools (the same words), but does another job. */
const DECOYS: readonly ToolBinding[] = [
  { role: 'transferExternal', name: 'transfer_external' },
  { role: 'setCardStatus', name: 'set_card_status' },
  { role: 'openChat', name: 'open_support_chat' },
  { role: 'blockLogins', name: 'block_online_access' },
  { role: 'addCustomerNote', name: 'add_customer_note' },
  { role: 'wireTransfer', name: 'wire_transfer' },
  { role: 'orderReader', name: 'order_card_reader' },
];

const BODY = String.raw`
const FIRST_NAMES = ['Ana', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farid', 'Grace', 'Hugo', 'Iris', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Noor', 'Omar', 'Priya'];
const LAST_NAMES = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Rossi', 'Novak', 'Haddad', 'Silva', 'Kowalski', 'Mensah'];
const CITIES = ['Lisbon', 'Osaka', 'Denver', 'Nairobi', 'Leeds', 'Porto', 'Quebec', 'Turin', 'Perth', 'Malmo'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
const NOTES = ['Customer informed by phone.', 'Customer asked for a written confirmation.', 'Customer will call back next week.', 'Request confirmed in branch.'];
const accountSchema = { type: 'string', description: 'Account id, such as AC-1234.' };
const customerSchema = { type: 'string', description: 'Customer id, such as C-123.' };
const TOOLS = {
  findCustomer: {
    description: 'Find customers by name; returns their ids and cities.', params: { name: { type: 'string', description: 'Full or partial name.' } }, required: ['name'],
    run: (s, a) => {
      const wanted = asText(a.name).trim().toLowerCase();
      const found = wanted ? s.customers.filter((c) => c.name.toLowerCase().includes(wanted)) : [];
      return found.length ? JSON.stringify(found.map((c) => ({ customer_id: c.id, name: c.name, city: c.city }))) : 'No customer matches "' + asText(a.name) + '".';
    },
  },
  listAccounts: {
    description: "List a customer's accounts with their type, balance and status.", params: { customer_id: customerSchema }, required: ['customer_id'],
    run: (s, a) => {
      const customer = s.customers.find((c) => c.id === asText(a.customer_id).trim());
      if (!customer) return 'Error: no customer ' + asText(a.customer_id) + '.';
      return JSON.stringify(s.accounts.filter((x) => x.owner === customer.id).map((x) => ({ account_id: x.id, type: x.type, balance: x.balance, status: x.status })));
    },
  },
  transfer: {
    description: 'Move money between two accounts of the same customer.',
    params: { from_account: accountSchema, to_account: accountSchema, amount: { type: 'number', description: 'Amount in dollars.' } }, required: ['from_account', 'to_account', 'amount'],
    run: (s, a) => {
      const from = accountOf(s, a.from_account);
      const to = accountOf(s, a.to_account);
      if (typeof from === 'string') return from;
      if (typeof to === 'string') return to;
      if (from === to || from.owner !== to.owner) return 'Error: both accounts must be different accounts of one customer.';
      if (from.status !== 'active' || to.status !== 'active') return 'Error: both accounts must be active.';
      const amount = Math.round(Number(a.amount) * 100) / 100;
      if (!(amount > 0) || amount > from.balance + 1e-9) return 'Error: the amount must be positive and at most the balance of ' + from.id + '.';
      from.balance = Math.round((from.balance - amount) * 100) / 100;
      to.balance = Math.round((to.balance + amount) * 100) / 100;
      return 'Moved $' + amount.toFixed(2) + ' from ' + from.id + ' to ' + to.id + '.';
    },
  },
  setStatus: {
    description: "Set an account's status (active, frozen or closed).",
    params: { account_id: accountSchema, status: { type: 'string', enum: ['active', 'frozen', 'closed'] } }, required: ['account_id', 'status'],
    run: (s, a) => {
      const account = accountOf(s, a.account_id);
      if (typeof account === 'string') return account;
      const status = asText(a.status).trim();
      if (!['active', 'frozen', 'closed'].includes(status)) return 'Error: status must be active, frozen or closed.';
      if (account.status === 'closed') return 'Error: ' + account.id + ' is closed.';
      if (status === 'closed' && account.balance > 0) return 'Error: empty ' + account.id + ' before closing it.';
      account.status = status;
      return account.id + ' is now ' + status + '.';
    },
  },
  createTicket: {
    description: 'Open a support ticket for a customer; returns the ticket id.',
    params: { customer_id: customerSchema, subject: { type: 'string' }, priority: { type: 'string', enum: PRIORITIES } }, required: ['customer_id', 'subject', 'priority'],
    run: (s, a) => {
      const customer = s.customers.find((c) => c.id === asText(a.customer_id).trim());
      if (!customer) return 'Error: no customer ' + asText(a.customer_id) + '.';
      const priority = asText(a.priority).trim();
      if (!PRIORITIES.includes(priority)) return 'Error: priority must be one of ' + PRIORITIES.join(', ') + '.';
      const id = 'T-' + (s.nextTicket++);
      s.tickets.push({ id, customer: customer.id, subject: asText(a.subject), priority, notes: [] });
      return 'Opened ticket ' + id + ' for ' + customer.id + ' (' + priority + ').';
    },
  },
  addNote: {
    description: 'Add a note to a support ticket.', params: { ticket_id: { type: 'string', description: 'Ticket id, such as T-100.' }, note: { type: 'string' } }, required: ['ticket_id', 'note'],
    run: (s, a) => {
      const ticket = s.tickets.find((t) => t.id === asText(a.ticket_id).trim());
      if (!ticket) return 'Error: no ticket ' + asText(a.ticket_id) + '.';
      ticket.notes.push(asText(a.note));
      return 'Added a note to ' + ticket.id + '.';
    },
  },
  orderCard: {
    description: 'Order a new payment card for a customer.', params: { customer_id: customerSchema, card_type: { type: 'string', enum: ['debit', 'credit'] } }, required: ['customer_id', 'card_type'],
    run: (s, a) => {
      const customer = s.customers.find((c) => c.id === asText(a.customer_id).trim());
      if (!customer) return 'Error: no customer ' + asText(a.customer_id) + '.';
      const type = asText(a.card_type).trim();
      if (type !== 'debit' && type !== 'credit') return 'Error: card_type must be debit or credit.';
      s.cardOrders.push({ customer: customer.id, type });
      return 'Ordered a ' + type + ' card for ' + customer.id + '.';
    },
  },
  transferExternal: {
    description: 'Move money from an account to an account at another bank.',
    params: { from_account: accountSchema, iban: { type: 'string', description: "The other bank's IBAN." }, amount: { type: 'number' } }, required: ['from_account', 'iban', 'amount'],
    run: (s, a) => (/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(asText(a.iban).replace(/\s/g, '')) ? 'Error: transfers to other banks are paused today.' : 'Error: a valid IBAN is required.'),
  },
  setCardStatus: {
    description: 'Set the status of the payment card of an account (active, frozen or lost).',
    params: { card_id: { type: 'string', description: 'Card id, such as CD-1234.' }, status: { type: 'string', enum: ['active', 'frozen', 'lost'] } }, required: ['card_id', 'status'],
    run: (s, a) => 'Error: no card ' + asText(a.card_id) + '.',
  },
  openChat: {
    description: 'Open a live support chat with a customer (it is not a ticket).', params: { customer_id: customerSchema }, required: ['customer_id'],
    run: (s, a) => (s.customers.some((c) => c.id === asText(a.customer_id).trim()) ? 'Chat opened; an agent will join shortly.' : 'Error: no customer ' + asText(a.customer_id) + '.'),
  },
  blockLogins: {
    description: 'Freeze online banking logins to an account; its status does not change.', params: { account_id: accountSchema }, required: ['account_id'],
    run: (s, a) => { const account = accountOf(s, a.account_id); if (typeof account === 'string') return account; account.loginsBlocked = true; return 'Online logins blocked for ' + account.id + '.'; },
  },
  addCustomerNote: {
    description: "Add a note to a customer's file (not to a ticket).", params: { customer_id: customerSchema, note: { type: 'string' } }, required: ['customer_id', 'note'],
    run: (s, a) => (s.customers.some((c) => c.id === asText(a.customer_id).trim()) ? 'Note filed.' : 'Error: no customer ' + asText(a.customer_id) + '.'),
  },
  wireTransfer: {
    description: 'Move money from an account by wire to a named payee.',
    params: { from_account: accountSchema, payee: { type: 'string', description: "The payee's registered name." }, amount: { type: 'number' } }, required: ['from_account', 'payee', 'amount'],
    run: (s, a) => 'Error: no registered payee named "' + asText(a.payee) + '".',
  },
  orderReader: {
    description: 'Order a new card reader for a business customer.', params: { customer_id: customerSchema }, required: ['customer_id'],
    run: (s, a) => 'Error: ' + asText(a.customer_id) + ' has no business account.',
  },
};
function accountOf(state, id) {
  return state.accounts.find((x) => x.id === asText(id).trim()) || 'Error: no account ' + asText(id) + '.';
}
/** Request i of the episode holds when the state shows it done (all false at reset). */
function criterion(state, i) {
  const r = state.requests[i];
  const checking = state.accounts.find((x) => x.id === state.checking);
  const savings = state.accounts.find((x) => x.id === state.savings);
  switch (r.kind) {
    case 'move': return checking.balance === 0 && Math.abs(savings.balance - state.total) < 0.005;
    case 'freeze': return checking.status === 'frozen';
    case 'ticket': return state.tickets.some((t) => t.customer === state.customer && t.priority === r.priority);
    case 'note': return state.tickets.some((t) => t.customer === state.customer && t.notes.includes(r.note));
    case 'card': return state.cardOrders.some((c) => c.customer === state.customer && c.type === r.card);
    default: return false;
  }
}
function generate(rng, P) {
  const customers = [];
  const accounts = [];
  const ids = new Set();
  const fresh = (lo, hi) => { let n; do { n = randInt(rng, lo, hi); } while (ids.has(n)); ids.add(n); return n; };
  const lastNames = shuffle(rng, LAST_NAMES);
  for (let i = 0; i < P.customers; i++) {
    // Namesakes (same name, another city) once the desk is busy enough.
    const namesake = i > 0 && P.customers >= 6 && rng() < 0.3;
    const name = namesake ? customers[randInt(rng, 0, i - 1)].name : pick(rng, FIRST_NAMES) + ' ' + lastNames[i % lastNames.length];
    const taken = customers.filter((c) => c.name === name).map((c) => c.city);
    const city = pick(rng, CITIES.filter((c) => !taken.includes(c)));
    const customer = { id: 'C-' + fresh(100, 999), name, city };
    customers.push(customer);
    for (const type of ['checking', 'savings']) {
      accounts.push({ id: 'AC-' + fresh(1000, 9999), owner: customer.id, type, balance: randInt(rng, 5000, 900000) / 100, status: 'active' });
    }
  }
  const target = pick(rng, customers);
  const checking = accounts.find((x) => x.owner === target.id && x.type === 'checking');
  const savings = accounts.find((x) => x.owner === target.id && x.type === 'savings');
  const priority = pick(rng, PRIORITIES);
  const note = pick(rng, NOTES);
  const card = pick(rng, ['debit', 'credit']);
  const all = [
    { kind: 'move', text: 'Please move the whole balance of the checking account of ' + target.name + ', the customer in ' + target.city + ', to their savings account.' },
    { kind: 'freeze', text: 'Now freeze that checking account.' },
    { kind: 'ticket', priority, text: 'Open a support ticket for this customer about the frozen account, with ' + priority + ' priority.' },
    { kind: 'note', note, text: 'Add this note to that ticket, word for word: "' + note + '"' },
    { kind: 'card', card, text: 'Finally, order the customer a new ' + card + ' card.' },
  ];
  const requests = all.slice(0, P.requests);
  const state = {
    customers, accounts, tickets: [], cardOrders: [], nextTicket: randInt(rng, 100, 900),
    customer: target.id, checking: checking.id, savings: savings.id, total: Math.round((checking.balance + savings.balance) * 100) / 100, requests,
  };
  const ticket = 'T-' + state.nextTicket;
  const calls = [
    planCall('findCustomer', { name: target.name }),
    planCall('listAccounts', { customer_id: target.id }),
    planCall('transfer', { from_account: checking.id, to_account: savings.id, amount: checking.balance }),
    planCall('setStatus', { account_id: checking.id, status: 'frozen' }),
    planCall('createTicket', { customer_id: target.id, subject: 'Checking account frozen', priority }),
    planCall('addNote', { ticket_id: ticket, note }),
    planCall('orderCard', { customer_id: target.id, card_type: card }),
  ].slice(0, 2 + P.requests);
  return {
    observation: '${ACCOUNT_DESK_TITLE}\nA customer\'s requests come one at a time; do each with the tools, and reply <answer>done</answer> once the last is done.\n' + requests[0].text,
    messages: requests.map((r) => r.text),
    state,
    answer: 'done',
    plan: [...calls, '<answer>done</answer>'],
    solution: calls.join('\n') + '\n<answer>done</answer>',
    hint: 'Work one request at a time. Look the customer up by name and keep the one in the right city, then list their accounts. '
      + 'Use transfer (not the external transfer) to move money between their own accounts, set_account_status to freeze an account, '
      + 'create_ticket and add_ticket_note for tickets, and order_card for cards; the other tools do not do these jobs. '
      + 'Reply <answer>done</answer> only after the last request.',
  };
}
`;

export const accountDesk: Family = {
  name: 'account-desk',
  skill: 'State Modification',
  description: "Tool use, SPADE's multi-turn variant (state modification, tool selection): a bank customer's requests revealed one at a time, each checked on the state; more requests and look-alike tools with harder difficulty.",
  multiTurn: true,
  toolUse: true,
  minHorizon: 8,
  // Beyond 16 turns a blind search covers most archives, suppliers or look-alike tools.
  maxHorizon: 16,
  title: ACCOUNT_DESK_TITLE,
  horizon: (difficulty) => atDifficulty(REQUESTS, difficulty) + 3 + atDifficulty(SLACK, difficulty),
  program(difficulty, variant = 0) {
    return this.programForHorizon!(this.horizon(difficulty), difficulty, variant);
  },
  programForHorizon(horizon, difficulty, variant = 0) {
    const requests = atDifficulty(REQUESTS, difficulty);
    // The decoys offered, and the order of all tools, depend on the variant.
    const decoys = DECOYS.slice(0, atDifficulty(DECOY_COUNT, difficulty));
    const tools = [...CORE_TOOLS, ...decoys];
    const turn = Math.abs(variant) % tools.length;
    return toolUseProgram({
      className: 'AccountDeskEnv',
      family: this.name,
      params: {
        // The fewest turns: find, list, one call per request, then the answer.
        horizon: Math.max(requests + 3, Math.round(horizon)),
        variant,
        requests,
        customers: atDifficulty(CUSTOMERS, difficulty),
        tools: [...tools.slice(turn), ...tools.slice(0, turn)],
      },
      body: BODY,
    });
  },
};
