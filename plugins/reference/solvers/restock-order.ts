/**
 * Reference player for restock orders: read the stock and the target to get the units missing,
 * page through the suppliers, quote them for exactly that quantity while turns allow (two are
 * kept for the order and the answer), order from the cheapest quote and answer its number.
 * Suppliers are quoted in a seeded random order; the hint (wholesale suppliers are cheapest)
 * makes it quote those first.
 */
import type { ToolDefinition } from '../../../core/concepts/tools.js';
import { RESTOCK_ORDER_TITLE } from '../families/restock-order.js';
import { GIVE_UP_REPLY, type Solver } from './solver.js';
import { answerReply, callReply, parameterNamed, rankTools, resultJson, shuffled, toolResult } from './tool-use.js';

interface Supplier {
  name: string;
  tier: string;
}

export const restockOrderSolver: Solver = {
  family: 'restock-order',
  title: RESTOCK_ORDER_TITLE,
  start(first, context) {
    const item = /Bring the stock of (.+?) up to its target level/.exec(first)?.[1];
    const tools = context.tools ?? [];
    const pick = (job: string[]): ToolDefinition | undefined => rankTools(tools, job, context.random)[0];
    const stockTool = pick(['units', 'stock', 'now']);
    const targetTool = pick(['target', 'level', 'restocked']);
    const listTool = pick(['suppliers', 'page', 'tier']);
    const quoteTool = pick(['price', 'quantity', 'quote', 'discount']);
    const orderTool = pick(['place', 'purchase', 'order', 'number']);
    if (!item || !stockTool || !targetTool || !listTool || !quoteTool || !orderTool) return { act: () => GIVE_UP_REPLY };
    const itemArg = (tool: ToolDefinition) => parameterNamed(tool, /item|sku|product/) ?? 'item';
    const supplierArg = (tool: ToolDefinition) => parameterNamed(tool, /supplier|vendor/) ?? 'supplier';
    const quantityArg = (tool: ToolDefinition) => parameterNamed(tool, /quantity|units|qty|amount/) ?? 'quantity';
    const pageArg = parameterNamed(listTool, /page/) ?? 'page';
    const wholesaleFirst = /wholesale/i.test(context.hint ?? '');

    let turn = 0;
    let stock: number | undefined;
    let target: number | undefined;
    const suppliers: Supplier[] = [];
    let pages: number | undefined;
    let toQuote: Supplier[] | undefined;
    let quoting: Supplier | undefined;
    const quotes: { supplier: Supplier; total: number }[] = [];
    let ordered = false;
    const need = () => target! - stock!;
    const order = () => {
      const best = quotes.reduce((a, b) => (b.total < a.total ? b : a));
      ordered = true;
      return callReply(`The cheapest quote is ${best.supplier.name}'s; I order from it.`, orderTool, { [supplierArg(orderTool)]: best.supplier.name, [itemArg(orderTool)]: item, [quantityArg(orderTool)]: need() });
    };
    return {
      act(observation) {
        turn++;
        const left = context.horizon - turn + 1; // turns left, this one included
        const result = toolResult(observation) ?? '';
        if (turn === 1) return callReply('First, the stock now.', stockTool, { [itemArg(stockTool)]: item });
        if (stock === undefined) {
          stock = Number(/(\d+) units in stock/.exec(result)?.[1] ?? NaN);
          return callReply('Then the level to restock to.', targetTool, { [itemArg(targetTool)]: item });
        }
        if (target === undefined) {
          target = Number(/restock to (\d+) units/.exec(result)?.[1] ?? NaN);
          if (!Number.isFinite(need())) return answerReply('I could not read the stock or the target.', '?');
          return callReply(`${need()} units are missing. I list the suppliers.`, listTool, { [itemArg(listTool)]: item, [pageArg]: 1 });
        }
        if (ordered) {
          const number = /Order (PO-\d+) placed/.exec(result)?.[1];
          return answerReply('The order is placed.', number ?? '?');
        }
        if (toQuote === undefined) {
          const page = resultJson(observation) as { page?: number; pages?: number; suppliers?: Supplier[] } | undefined;
          if (page && Array.isArray(page.suppliers)) {
            suppliers.push(...page.suppliers);
            pages = Number(page.pages);
          }
          const next = (page?.page ?? 0) + 1;
          if (pages !== undefined && next <= pages && left > 3) {
            return callReply(`Suppliers, page ${next}.`, listTool, { [itemArg(listTool)]: item, [pageArg]: next });
          }
          const order = shuffled(suppliers, context.random);
          toQuote = wholesaleFirst ? [...order.filter((s) => s.tier === 'wholesale'), ...order.filter((s) => s.tier !== 'wholesale')] : order;
        } else if (quoting) {
          const total = /: \$([\d,]+\.\d{2}) in all/.exec(result)?.[1];
          if (total !== undefined) quotes.push({ supplier: quoting, total: Number(total.replace(/,/g, '')) });
          quoting = undefined;
        }
        // Two turns are kept for the order and the answer.
        const enough = wholesaleFirst && quotes.length > 0 && toQuote[0]?.tier !== 'wholesale';
        if (quotes.length > 0 && (left <= 2 || toQuote.length === 0 || enough)) return order();
        quoting = toQuote.shift();
        if (!quoting) return answerReply('No supplier gave a quote.', '?');
        return callReply(`I ask ${quoting.name} for ${need()} units.`, quoteTool, { [supplierArg(quoteTool)]: quoting.name, [itemArg(quoteTool)]: item, [quantityArg(quoteTool)]: need() });
      },
    };
  },
};
