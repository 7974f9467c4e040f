import type { Sql } from '../../db/transaction.js';
import { conflict, validationFailed } from '../../errors.js';
import { resolveHandLines, variantsForPricing, type HandLineInput, type VariantPricing } from '../catalog/index.js';
import type { OrderItemRow } from './dto.js';
import type { CollectChoice, Plan, PlannedLine } from './edit-pricing.js';

/**
 * What an edit or an exchange changes (issue #35), before anything is written: the order's lines
 * after it (lines added, quantities changed, lines removed, units taken back), checked against what
 * may still change (409 for shipped, refunded or returned lines), the stock each variant gains or
 * gives back, and the variants to lock. Pricing is edit-pricing.ts; applying it, edit-commit.ts.
 */

export type EditLineInput = HandLineInput;

export interface EditInput {
  add?: EditLineInput[];
  change?: Array<{ orderItemId: string; quantity: number }>;
  remove?: string[];
  shippingRateId?: string;
  customShipping?: { title: string; price: number };
  /** How a higher total is collected on a paid order. */
  collect?: CollectChoice;
  /** The order's `version` the edit was made from: 409 when it changed since. */
  version?: number;
  notifyCustomer?: boolean;
  reason?: string;
}

export interface ExchangeInput {
  returnItems: Array<{ orderItemId: string; quantity: number; restock: boolean }>;
  newItems: Array<{ variantId: string; quantity: number }>;
  collect?: CollectChoice;
  version?: number;
  notifyCustomer?: boolean;
  reason?: string;
}

/** New lines (catalog's reading of variant lines, shared with drafts), from the variants read with the order's. */
async function newLines(db: Sql, storeId: string, lines: EditLineInput[], path: string, variants: Map<string, VariantPricing>): Promise<PlannedLine[]> {
  return (await resolveHandLines(db, storeId, lines, path, variants)).map((line) => ({ ...line, itemId: null, billed: line.quantity }));
}

/** The order's lines after the edit or exchange, checked against what may change (409 for shipped or refunded lines). */
export async function planOf(db: Sql, storeId: string, items: OrderItemRow[], kind: 'edit' | 'exchange', input: EditInput | ExchangeInput): Promise<Plan> {
  const byId = new Map(items.map((item) => [item.id, item]));
  // The kept lines price with their variant's tax class and weight as they are now (an archived
  // variant's too); the new lines' variants come in the same read (an archived one is refused for them).
  const variants = await variantsForPricing(db, storeId, variantsOf(items, input), { archived: true });
  const lines: PlannedLine[] = items.map((item) => ({
    itemId: item.id,
    variantId: item.variantId,
    productId: item.productId,
    title: item.title,
    sku: item.sku,
    unitPrice: item.unitPrice,
    quantity: item.quantity,
    billed: item.quantity - (item.exchangedQuantity ?? 0),
    taxClass: (item.variantId && variants.get(item.variantId)?.taxClass) || null,
    weightGrams: item.variantId ? (variants.get(item.variantId)?.weightGrams ?? null) : null,
    requiresShipping: item.variantId ? (variants.get(item.variantId)?.requiresShipping ?? true) : true
  }));
  const lineOf = (id: string, path: string) => {
    const item = byId.get(id);
    if (!item) throw validationFailed([{ path, message: 'not an item of this order' }]);
    return { item, line: lines.find((line) => line.itemId === id)! };
  };
  const untouched = (item: OrderItemRow, path: string) => {
    if (item.fulfilledQuantity > 0 || item.refundedQuantity > 0 || item.returnedQuantity > 0) {
      throw conflict('already_fulfilled', `${item.title} is already ${item.fulfilledQuantity > 0 ? 'fulfilled' : 'refunded or returned'}: only unfulfilled lines change`, [
        { path, message: `${item.fulfilledQuantity} fulfilled, ${item.refundedQuantity} refunded` }
      ]);
    }
  };
  const removed: string[] = [];
  const returns: Plan['returns'] = [];
  if (kind === 'edit') {
    const edit = input as EditInput;
    (edit.change ?? []).forEach((change, index) => {
      const { item, line } = lineOf(change.orderItemId, `change.${index}.orderItemId`);
      untouched(item, `change.${index}.quantity`);
      line.quantity = change.quantity;
      line.billed = change.quantity;
    });
    (edit.remove ?? []).forEach((id, index) => {
      const { item, line } = lineOf(id, `remove.${index}`);
      untouched(item, `remove.${index}`);
      line.quantity = 0;
      line.billed = 0;
      removed.push(id);
    });
    lines.push(...(await newLines(db, storeId, edit.add ?? [], 'add', variants)));
  } else {
    const exchange = input as ExchangeInput;
    exchange.returnItems.forEach((entry, index) => {
      const { item, line } = lineOf(entry.orderItemId, `returnItems.${index}.orderItemId`);
      const left = item.quantity - item.returnedQuantity - item.refundedQuantity;
      if (entry.quantity > left) {
        throw conflict('conflict', `only ${Math.max(left, 0)} of ${item.title} can be taken back`, [{ path: `returnItems.${index}.quantity`, message: `${Math.max(left, 0)} left to take back` }]);
      }
      line.billed -= entry.quantity;
      returns.push(entry);
    });
    lines.push(...(await newLines(db, storeId, exchange.newItems, 'newItems', variants)));
  }
  if (lines.every((line) => line.billed === 0)) throw validationFailed([{ path: kind === 'edit' ? 'remove' : 'returnItems', message: 'an order keeps at least one line: cancel it instead' }]);
  const edit = input as EditInput;
  return {
    kind,
    lines,
    removed,
    returns,
    ...(edit.shippingRateId ? { shippingRateId: edit.shippingRateId } : {}),
    ...(edit.customShipping ? { customShipping: edit.customShipping } : {}),
    ...(input.collect ? { collect: input.collect } : {}),
    ...(input.version !== undefined ? { version: input.version } : {}),
    notifyCustomer: input.notifyCustomer ?? false,
    reason: input.reason ?? null
  };
}

/** Stock moves of a plan: units each variant gains (>0, taken) or gives back (<0), exchange returns apart. */
export function stockMoves(items: OrderItemRow[], plan: Plan) {
  const before = new Map(items.map((item) => [item.id, item.quantity]));
  const moves = new Map<string, { quantity: number; title: string }>();
  for (const line of plan.lines) {
    if (!line.variantId) continue;
    const delta = line.quantity - (line.itemId ? (before.get(line.itemId) ?? 0) : 0);
    if (delta === 0) continue;
    const entry = moves.get(line.variantId) ?? { quantity: 0, title: line.title };
    moves.set(line.variantId, { quantity: entry.quantity + delta, title: entry.title });
  }
  return moves;
}

/** Every variant a plan may move: the order's and the new lines'. */
export const variantsOf = (items: OrderItemRow[], input: EditInput | ExchangeInput) => [
  ...new Set([
    ...items.flatMap((item) => (item.variantId ? [item.variantId] : [])),
    ...(('add' in input ? (input.add ?? []) : []) as EditLineInput[]).flatMap((line) => ('variantId' in line ? [line.variantId] : [])),
    ...('newItems' in input ? input.newItems.map((line) => line.variantId) : [])
  ])
];
