import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { connectedStripeAccount } from '../payments/index.js';
import type { StripeTaxCalculation } from '../../adapters/payments/index.js';
import { matchRegion, noTax, taxWithRule, type TaxAddress, type TaxableInput, type TaxLine, type TaxRegionRule, type TaxResult } from './compute.js';

export const TAX_PROVIDERS = ['rates', 'stripe_tax'] as const;
export type TaxProviderName = (typeof TAX_PROVIDERS)[number];

/** What a provider is asked: the store's currency and rate table, the address, whether the buyer is exempt, the taxable amounts. */
export interface TaxRequest {
  storeId: string;
  currency: string;
  address: (TaxAddress & { postalCode?: string; city?: string; line1?: string }) | null;
  exempt: boolean;
  rules: readonly TaxRegionRule[];
  input: TaxableInput;
}

/**
 * The tax provider port, one per store (`stores.tax_provider`). `calculate` answers the tax lines
 * or throws 503 `tax_provider_unavailable` (never a silent zero). `record` turns a paid order's
 * calculation into the provider's transaction; `reverse` gives part of it back on a refund.
 */
export interface TaxProvider {
  name: TaxProviderName;
  /** True when `calculate` is a pure function of the request (no network): carts may use it on every read. */
  local: boolean;
  calculate(ctx: AppContext, request: TaxRequest): Promise<TaxResult>;
  record?(ctx: AppContext, storeId: string, order: { id: string; number: number; taxReference: string }): Promise<string | null>;
  reverse?(ctx: AppContext, storeId: string, refund: { id: string; orderTransactionId: string; amount: number }): Promise<string | null>;
  /** An edited order: its transaction replaced by one from its new calculation, less what refunds gave back since. */
  replace?(ctx: AppContext, storeId: string, order: { id: string; number: number; taxReference: string; orderTransactionId: string; refunded: number }): Promise<string>;
}

export const taxProviderUnavailable = (provider: string, why: string) =>
  new AppError(503, 'tax_provider_unavailable', `The tax provider (${provider}) could not compute the tax: ${why}. Nothing was charged; try again.`, [{ path: 'tax', message: why }]);

/** The built-in rate tables (tax_regions). */
export const ratesProvider: TaxProvider = {
  name: 'rates',
  local: true,
  async calculate(_ctx, request) {
    return request.exempt ? noTax(request.input) : taxWithRule(matchRegion(request.rules, request.address), request.input);
  }
};

const basisPoints = (percentageDecimal: string | null | undefined) => Math.round(Number(percentageDecimal ?? 0) * 100);

type Breakdown = Array<{
  amount: number;
  jurisdiction?: { country?: string; state?: string | null; display_name?: string } | null;
  tax_rate_details?: { percentage_decimal?: string; display_name?: string } | null;
}>;

function toTaxLines(breakdown: Breakdown | null | undefined): TaxLine[] {
  return (breakdown ?? [])
    .filter((part) => part.amount !== 0)
    .map((part) => {
      const country = part.jurisdiction?.country ?? '';
      const state = part.jurisdiction?.state ?? null;
      return {
        name: part.tax_rate_details?.display_name ?? part.jurisdiction?.display_name ?? 'Tax',
        rate: basisPoints(part.tax_rate_details?.percentage_decimal),
        amount: part.amount,
        jurisdiction: state ? `${country}-${state}` : country
      };
    });
}

/**
 * Stripe Tax on the store's connected account: POST /v1/tax/calculations per checkout (line
 * references are the cart lines' keys; a variant's `taxClass` that is a Stripe tax code, txcd_…,
 * goes as the line's tax_code), a transaction from the calculation once the order is placed, a
 * partial reversal (flat amount) per refund. A failure or a call slower than TAX_PROVIDER_TIMEOUT_MS
 * is 503 tax_provider_unavailable.
 */
export const stripeTaxProvider: TaxProvider = {
  name: 'stripe_tax',
  local: false,
  async calculate(ctx, request) {
    if (request.exempt || !request.address?.country) return noTax(request.input);
    const stripeAccount = (await connectedStripeAccount(ctx.db, request.storeId)) ?? undefined;
    const behavior = request.input.pricesIncludeTax ? 'inclusive' : 'exclusive';
    let calculation: StripeTaxCalculation;
    try {
      calculation = await ctx.stripe.createTaxCalculation(
        {
          currency: request.currency.toLowerCase(),
          line_items: request.input.lines.map((line) => ({
            amount: line.amount,
            quantity: line.quantity,
            reference: line.key,
            tax_behavior: behavior,
            ...(line.taxClass?.startsWith('txcd_') ? { tax_code: line.taxClass } : {})
          })),
          ...(request.input.shipping > 0 ? { shipping_cost: { amount: request.input.shipping, tax_behavior: behavior } } : {}),
          customer_details: {
            address_source: 'shipping',
            address: {
              country: request.address.country,
              ...(request.address.region ? { state: request.address.region.replace(/^[A-Z]{2}-/i, '') } : {}),
              ...(request.address.postalCode ? { postal_code: request.address.postalCode } : {}),
              ...(request.address.city ? { city: request.address.city } : {}),
              ...(request.address.line1 ? { line1: request.address.line1 } : {})
            }
          },
          expand: ['line_items.data.tax_breakdown']
        },
        { ...(stripeAccount ? { stripeAccount } : {}), timeoutMs: ctx.config.checkout.taxProviderTimeoutMs }
      );
    } catch (error) {
      throw taxProviderUnavailable('stripe_tax', (error as Error).message);
    }
    const byReference = new Map((calculation.line_items?.data ?? []).map((line) => [line.reference, line]));
    const lines = request.input.lines.map((line) => {
      const answered = byReference.get(line.key);
      if (!answered) throw taxProviderUnavailable('stripe_tax', `no tax for line ${line.key} in the answer`);
      return toTaxLines(answered.tax_breakdown as Breakdown);
    });
    const shipping = toTaxLines(calculation.shipping_cost?.tax_breakdown as Breakdown | undefined);
    return { lines, shipping, reference: calculation.id };
  },
  async record(ctx, storeId, order) {
    const stripeAccount = (await connectedStripeAccount(ctx.db, storeId)) ?? undefined;
    const transaction = await ctx.stripe.createTaxTransactionFromCalculation(
      { calculation: order.taxReference, reference: `order-${order.id}`, metadata: { storeId, orderId: order.id, orderNumber: String(order.number) } },
      { ...(stripeAccount ? { stripeAccount } : {}), idempotencyKey: `tax-transaction:${order.id}` }
    );
    return transaction.id;
  },
  async reverse(ctx, storeId, refund) {
    const stripeAccount = (await connectedStripeAccount(ctx.db, storeId)) ?? undefined;
    const reversal = await ctx.stripe.createTaxReversal(
      { mode: 'partial', original_transaction: refund.orderTransactionId, reference: `refund-${refund.id}`, flat_amount: -refund.amount },
      { ...(stripeAccount ? { stripeAccount } : {}), idempotencyKey: `tax-reversal:${refund.id}` }
    );
    return reversal.id;
  },
  /**
   * An edit changed the order's taxed amounts: the transaction it holds is reversed in full, a new
   * one recorded from the edit's calculation, and what refunds gave back of the lines it still
   * bills (reversed on the old transaction) reversed again on the new one, as one flat amount. Each
   * call keyed by the order and the new calculation, so a retry (the tax-sync job) repeats nothing.
   */
  async replace(ctx, storeId, order) {
    const stripeAccount = (await connectedStripeAccount(ctx.db, storeId)) ?? undefined;
    const on = (key: string) => ({ ...(stripeAccount ? { stripeAccount } : {}), idempotencyKey: key });
    const calculation = order.taxReference;
    await ctx.stripe.createTaxReversal(
      { mode: 'full', original_transaction: order.orderTransactionId, reference: `order-${order.id}-replaced-${calculation}`, metadata: { storeId, orderId: order.id } },
      on(`tax-replace:${order.id}:${calculation}:reversal`)
    );
    const transaction = await ctx.stripe.createTaxTransactionFromCalculation(
      { calculation, reference: `order-${order.id}-${calculation}`, metadata: { storeId, orderId: order.id, orderNumber: String(order.number) } },
      on(`tax-transaction:${order.id}:${calculation}`)
    );
    if (order.refunded > 0) {
      await ctx.stripe.createTaxReversal(
        { mode: 'partial', original_transaction: transaction.id, reference: `order-${order.id}-${calculation}-refunds`, flat_amount: -order.refunded },
        on(`tax-replace:${order.id}:${calculation}:refunds`)
      );
    }
    return transaction.id;
  }
};

export const TAX_PROVIDER_REGISTRY: Record<TaxProviderName, TaxProvider> = { rates: ratesProvider, stripe_tax: stripeTaxProvider };

export const taxProviderOf = (name: string | null | undefined): TaxProvider => TAX_PROVIDER_REGISTRY[(name ?? 'rates') as TaxProviderName] ?? ratesProvider;
