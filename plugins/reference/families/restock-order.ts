/**
 * Restock order, a tool-use game (SPADE's API Orchestration skill: a chain of dependent calls
 * ending in a mutation): work out how many units of an item are missing, find the supplier whose
 * quote for exactly that quantity is the lowest, place the purchase order and report its number.
 * Difficulty adds suppliers (and pages of them) faster than turns, so quoting every one stops
 * fitting; the hint tells which suppliers are worth quoting.
 */
import { atDifficulty, type Family } from '../family.js';
import { toolUseProgram, type ToolBinding } from './program-templates.js';

export const RESTOCK_ORDER_TITLE = 'Restock order (tool use).';

const SUPPLIERS = [2, 3, 4, 6, 8, 10, 12, 15, 18, 22];
const WHOLESALE = [1, 1, 1, 2, 2, 2, 2, 3, 3, 3];
const MAX_TURNS = [10, 10, 10, 11, 11, 12, 12, 13, 13, 14];

const NAMINGS: readonly ToolBinding[][] = [
  [
    { role: 'stock', name: 'check_inventory' },
    { role: 'target', name: 'get_reorder_target' },
    { role: 'suppliers', name: 'list_suppliers' },
    { role: 'quote', name: 'get_quote' },
    { role: 'order', name: 'place_order' },
    { role: 'sales', name: 'sales_history' },
    { role: 'cancel', name: 'cancel_order' },
  ],
  [
    { role: 'stock', name: 'get_stock_level', rename: { item: 'sku' } },
    { role: 'target', name: 'get_par_level', rename: { item: 'sku' } },
    { role: 'suppliers', name: 'find_vendors', rename: { item: 'sku' } },
    { role: 'quote', name: 'request_price', rename: { supplier: 'vendor', item: 'sku', quantity: 'units' } },
    { role: 'order', name: 'create_purchase_order', rename: { supplier: 'vendor', item: 'sku', quantity: 'units' } },
    { role: 'sales', name: 'sales_report', rename: { item: 'sku' } },
    { role: 'cancel', name: 'void_purchase_order', rename: { order: 'po_number' } },
  ],
];

const BODY = String.raw`
const ITEMS = ['hex bolts', 'wing nuts', 'steel washers', 'coil springs', 'door hinges', 'pipe clamps', 'cable ties', 'wall anchors', 'drill bits', 'wood screws'];
const FIRST = ['Acme', 'Northwind', 'Globex', 'Initech', 'Vandelay', 'Hooli', 'Tyrell', 'Wonka', 'Oscorp', 'Monarch', 'Sterling', 'Aperture', 'Bluth', 'Cogswell', 'Duff', 'Gekko'];
const SECOND = ['Supply', 'Traders', 'Goods', 'Parts', 'Depot', 'Hardware'];
const REGIONS = ['north', 'south', 'east', 'west', 'central'];
const PAGE = 5;
const itemSchema = { type: 'string', description: 'Item name, as the task gives it.' };
const money = (cents) => '$' + (cents / 100).toFixed(2);
const TOOLS = {
  stock: { description: 'Units of an item in stock now.', params: { item: itemSchema }, required: ['item'], run: (s, a) => itemOf(s, a.item) || s.item + ': ' + s.stock + ' units in stock.' },
  target: { description: 'The stock level an item should be restocked to.', params: { item: itemSchema }, required: ['item'], run: (s, a) => itemOf(s, a.item) || s.item + ': restock to ' + s.target + ' units.' },
  suppliers: {
    description: 'Suppliers that carry an item, ' + PAGE + ' per page, with their tier (wholesale or retail) and region.',
    params: { item: itemSchema, page: { type: 'integer', description: 'Page number, from 1.' } }, required: ['item'],
    run: (s, a) => {
      const error = itemOf(s, a.item);
      if (error) return error;
      const pages = Math.ceil(s.suppliers.length / PAGE);
      const page = a.page === undefined ? 1 : Number(a.page);
      if (!Number.isInteger(page) || page < 1 || page > pages) return 'Error: page must be from 1 to ' + pages + '.';
      const list = s.suppliers.slice((page - 1) * PAGE, page * PAGE).map((x) => ({ name: x.name, tier: x.tier, region: x.region }));
      return JSON.stringify({ page, pages, suppliers: list });
    },
  },
  quote: {
    description: 'The price a supplier asks for a quantity of an item (bulk discounts apply).',
    params: { supplier: { type: 'string', description: 'Supplier name.' }, item: itemSchema, quantity: { type: 'integer', description: 'Units to buy.' } },
    required: ['supplier', 'item', 'quantity'],
    run: (s, a) => {
      const error = itemOf(s, a.item) || quantityError(a.quantity);
      if (error) return error;
      const x = supplierOf(s, a.supplier);
      if (typeof x === 'string') return x;
      const unit = unitPrice(x, Number(a.quantity));
      return x.name + ' quotes ' + money(unit) + ' per unit for ' + a.quantity + ' ' + s.item + ': ' + money(unit * Number(a.quantity)) + ' in all.';
    },
  },
  order: {
    description: 'Place a purchase order with a supplier; returns the order number.',
    params: { supplier: { type: 'string', description: 'Supplier name.' }, item: itemSchema, quantity: { type: 'integer', description: 'Units to buy.' } },
    required: ['supplier', 'item', 'quantity'],
    run: (s, a) => {
      const error = itemOf(s, a.item) || quantityError(a.quantity);
      if (error) return error;
      const x = supplierOf(s, a.supplier);
      if (typeof x === 'string') return x;
      const number = orderNumber(s, s.suppliers.indexOf(x), Number(a.quantity));
      s.orders.push({ number, supplier: x.name, quantity: Number(a.quantity), cancelled: false });
      return 'Order ' + number + ' placed: ' + a.quantity + ' ' + s.item + ' from ' + x.name + ' for ' + money(unitPrice(x, Number(a.quantity)) * Number(a.quantity)) + '.';
    },
  },
  sales: {
    description: 'Units of an item sold in each of the last six months.', params: { item: itemSchema }, required: ['item'],
    run: (s, a) => itemOf(s, a.item) || JSON.stringify(s.sales),
  },
  cancel: {
    description: 'Cancel a purchase order by its number.', params: { order: { type: 'string', description: 'Order number.' } }, required: ['order'],
    run: (s, a) => {
      const order = s.orders.find((o) => o.number === asText(a.order).trim() && !o.cancelled);
      if (!order) return 'Error: no open order ' + asText(a.order) + '.';
      order.cancelled = true;
      return 'Cancelled order ' + order.number + '.';
    },
  },
};
function itemOf(state, name) {
  return asText(name).trim().toLowerCase() === state.item ? null : 'Error: unknown item "' + asText(name) + '".';
}
function quantityError(quantity) {
  const n = Number(quantity);
  return Number.isInteger(n) && n > 0 && n <= 100000 ? null : 'Error: quantity must be a whole number of units.';
}
function supplierOf(state, name) {
  const wanted = asText(name).trim().toLowerCase();
  return state.suppliers.find((x) => x.name.toLowerCase() === wanted) || 'Error: no supplier named "' + asText(name) + '".';
}
/** Cents per unit: the base price, less the bulk discount from the supplier's threshold on. */
function unitPrice(supplier, quantity) {
  return quantity >= supplier.bulkFrom ? Math.round(supplier.base * (100 - supplier.discount) / 100) : supplier.base;
}
function orderNumber(state, index, quantity) {
  let h = (state.salt ^ Math.imul(index + 1, 0x9e3779b1) ^ Math.imul(quantity, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  return 'PO-' + String(10000 + (h % 90000));
}
function generate(rng, P) {
  const item = pick(rng, ITEMS);
  const stock = randInt(rng, 5, 60);
  const need = randInt(rng, 20, 200);
  const names = shuffle(rng, FIRST.flatMap((a) => SECOND.map((b) => a + ' ' + b))).slice(0, P.suppliers);
  const wholesale = new Set(shuffle(rng, names.map((_, i) => i)).slice(0, P.wholesale));
  const suppliers = names.map((name, i) => {
    const tier = wholesale.has(i) ? 'wholesale' : 'retail';
    const base = tier === 'wholesale' ? randInt(rng, 90, 160) : randInt(rng, 80, 150);
    // Wholesale prices fall for large orders; retail ones barely.
    const discount = tier === 'wholesale' ? randInt(rng, 25, 40) : randInt(rng, 0, 10);
    const bulkFrom = tier === 'wholesale' ? randInt(rng, 10, 20) : randInt(rng, 150, 400);
    return { name, tier, region: pick(rng, REGIONS), base, discount, bulkFrom };
  });
  const total = (x) => unitPrice(x, need) * need;
  // The cheapest quote for the units needed is a wholesale one, ahead of every other by a clear margin.
  const byTotal = suppliers.map((x, i) => i).sort((a, b) => total(suppliers[a]) - total(suppliers[b]));
  let best = byTotal.find((i) => suppliers[i].tier === 'wholesale');
  for (const i of byTotal) {
    if (i === best) continue;
    while (total(suppliers[i]) < total(suppliers[best]) * 1.03) suppliers[i].base += 5;
  }
  const salt = randInt(rng, 1, 2 ** 30);
  const state = { item, stock, target: stock + need, suppliers, orders: [], salt, sales: Array.from({ length: 6 }, () => randInt(rng, 10, 120)) };
  const number = orderNumber(state, best, need);
  const winner = suppliers[best].name;
  const calls = [
    planCall('stock', { item }),
    planCall('target', { item }),
    planCall('quote', { supplier: winner, item, quantity: need }),
    planCall('order', { supplier: winner, item, quantity: need }),
  ];
  return {
    observation: '${RESTOCK_ORDER_TITLE}\n'
      + 'Bring the stock of ' + item + ' up to its target level with one purchase order, placed with the supplier whose quote for the units needed is the lowest.\n'
      + 'Use the tools, then reply <answer>ORDER NUMBER</answer> with the number of that order.',
    state,
    answer: number,
    plan: [...calls, '<answer>' + number + '</answer>'],
    solution: calls.join('\n') + '\n<answer>' + number + '</answer>',
    hint: 'Wholesale suppliers give the lowest prices on large orders: work out how many units are missing, quote only the wholesale suppliers for exactly that quantity, and order from the cheapest of them.',
  };
}
`;

export const restockOrder: Family = {
  name: 'restock-order',
  skill: 'API Orchestration',
  description: 'Tool use (API orchestration): chain stock, target and supplier quotes into one purchase order and report its number; suppliers grow faster than the turn budget.',
  multiTurn: true,
  toolUse: true,
  minHorizon: 8,
  // Beyond 16 turns a blind search covers most archives, suppliers or look-alike tools.
  maxHorizon: 16,
  title: RESTOCK_ORDER_TITLE,
  horizon: (difficulty) => atDifficulty(MAX_TURNS, difficulty),
  program(difficulty, variant = 0) {
    return this.programForHorizon!(this.horizon(difficulty), difficulty, variant);
  },
  programForHorizon(horizon, difficulty, variant = 0) {
    return toolUseProgram({
      className: 'RestockOrderEnv',
      family: this.name,
      params: {
        horizon: Math.max(6, Math.round(horizon)),
        variant,
        suppliers: atDifficulty(SUPPLIERS, difficulty),
        wholesale: atDifficulty(WHOLESALE, difficulty),
        tools: NAMINGS[Math.abs(variant) % NAMINGS.length]!,
      },
      body: BODY,
    });
  },
};
