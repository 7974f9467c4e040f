import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small local server answering the Stripe API paths the service calls (form-encoded bodies,
 * `Idempotency-Key` replays, `Stripe-Account` for connected accounts), so tests exercise the real
 * stripe library end to end. `STRIPE_API_URL` points the service at it.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
  stripeAccount: string | undefined;
}

interface Account {
  id: string;
  object: 'account';
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  requirements: { currently_due: string[] };
  metadata: Record<string, string>;
}

interface Intent {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  status: string;
  client_secret: string;
  application_fee_amount: number | null;
  metadata: Record<string, string>;
  account: string | undefined;
}

export interface Refund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  status: string;
  payment_intent: string;
  charge: string;
  reason: string | null;
  refund_application_fee: boolean;
  metadata: Record<string, string>;
  created: number;
  account: string | undefined;
}

/** `a[b][c]=v` form fields into nested objects. */
function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/\[|\]\[|\]/).filter(Boolean);
    let node = out;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) node[part] = value;
      else node = node[part] ??= {};
    });
  }
  return out;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

export class StripeServer {
  readonly requests: RecordedRequest[] = [];
  readonly accounts = new Map<string, Account>();
  readonly intents = new Map<string, Intent>();
  readonly refunds = new Map<string, Refund>();
  /** Answer every request with 500 while set (Stripe down). */
  failing = false;
  /** PaymentIntents whose refunds Stripe refuses (400 charge_disputed), as it does for a disputed charge. */
  readonly refusingRefundsOf = new Set<string>();
  /** Answer Stripe Tax transactions and reversals with 500 while set (the rest of Stripe up). */
  failingTaxTransactions = false;
  /** Never answer Stripe Tax calculations while set (Stripe hangs): the caller's timeout decides. */
  hangingTax = false;
  /** Stripe Tax's rates by `country` or `country-state` (basis points) and the name of each tax, for /v1/tax/calculations. */
  readonly taxRates = new Map<string, { rate: number; name: string }>();
  readonly taxCalculations = new Map<string, unknown>();
  readonly taxTransactions = new Map<string, { id: string; calculation: string; reference: string; reversals: Array<{ id: string; flatAmount: number | null; mode: 'full' | 'partial'; reference: string }> }>();
  private readonly hanging = new Set<http.ServerResponse>();
  private readonly replays = new Map<string, { status: number; body: unknown }>();
  private server: http.Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        const send = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
          res.end(JSON.stringify(body));
        };
        const url = new URL(req.url ?? '/', 'http://local');
        const record: RecordedRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          body: parseForm(text),
          idempotencyKey: req.headers['idempotency-key'] as string | undefined,
          stripeAccount: req.headers['stripe-account'] as string | undefined
        };
        this.requests.push(record);
        if (this.hangingTax && record.path === '/v1/tax/calculations') {
          this.hanging.add(res);
          return;
        }
        if (this.failing) return send(500, { error: { type: 'api_error', message: 'Stripe is down (test)' } });
        if (this.failingTaxTransactions && record.path.startsWith('/v1/tax/transactions/')) return send(500, { error: { type: 'api_error', message: 'Stripe Tax transactions are down (test)' } });
        const replayKey = record.idempotencyKey && record.method === 'POST' ? `${record.path} ${record.idempotencyKey}` : null;
        const earlier = replayKey ? this.replays.get(replayKey) : undefined;
        if (earlier) return send(earlier.status, earlier.body);
        const [status, body] = this.route(record);
        if (replayKey) this.replays.set(replayKey, { status, body });
        send(status, body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private route(request: RecordedRequest): [number, unknown] {
    const { method, path, body } = request;
    let match: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/accounts') {
      const account: Account = {
        id: id('acct'),
        object: 'account',
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        requirements: { currently_due: ['external_account', 'tos_acceptance.date'] },
        metadata: (body.metadata as Record<string, string>) ?? {}
      };
      this.accounts.set(account.id, account);
      return [200, account];
    }
    if (method === 'GET' && (match = path.match(/^\/v1\/accounts\/([\w]+)$/))) {
      const account = this.accounts.get(match[1]!);
      return account ? [200, account] : [404, { error: { type: 'invalid_request_error', message: 'No such account' } }];
    }
    if (method === 'POST' && path === '/v1/account_links') {
      return [200, { object: 'account_link', url: `https://connect.stripe.test/setup/${body.account}/${id('link')}`, created: Math.floor(Date.now() / 1000), expires_at: Math.floor(Date.now() / 1000) + 300 }];
    }
    if (method === 'POST' && (match = path.match(/^\/v1\/accounts\/([\w]+)\/login_links$/))) {
      return [200, { object: 'login_link', url: `https://connect.stripe.test/express/${match[1]}/${id('login')}`, created: Math.floor(Date.now() / 1000) }];
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const intentId = id('pi');
      const intent: Intent = {
        id: intentId,
        object: 'payment_intent',
        amount: Number(body.amount),
        currency: String(body.currency),
        status: 'requires_payment_method',
        client_secret: `${intentId}_secret_${randomBytes(6).toString('hex')}`,
        application_fee_amount: body.application_fee_amount !== undefined ? Number(body.application_fee_amount) : null,
        metadata: (body.metadata as Record<string, string>) ?? {},
        account: request.stripeAccount
      };
      this.intents.set(intentId, intent);
      return [200, intent];
    }
    if (method === 'GET' && (match = path.match(/^\/v1\/payment_intents\/([\w]+)$/))) {
      const intent = this.intents.get(match[1]!);
      if (!intent || intent.account !== request.stripeAccount) return [404, { error: { type: 'invalid_request_error', message: 'No such payment_intent' } }];
      return [200, intent];
    }
    if (method === 'POST' && (match = path.match(/^\/v1\/payment_intents\/([\w]+)\/cancel$/))) {
      const intent = this.intents.get(match[1]!);
      if (!intent || intent.account !== request.stripeAccount) return [404, { error: { type: 'invalid_request_error', message: 'No such payment_intent' } }];
      if (intent.status === 'succeeded') return [400, { error: { type: 'invalid_request_error', message: 'You cannot cancel this PaymentIntent because it has a status of succeeded' } }];
      intent.status = 'canceled';
      return [200, intent];
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intent = this.intents.get(String(body.payment_intent));
      if (!intent || intent.account !== request.stripeAccount) return [404, { error: { type: 'invalid_request_error', message: 'No such payment_intent' } }];
      if (intent.status !== 'succeeded') return [400, { error: { type: 'invalid_request_error', message: 'This PaymentIntent has no successful charge to refund' } }];
      if (this.refusingRefundsOf.has(intent.id)) return [400, { error: { type: 'invalid_request_error', code: 'charge_disputed', message: 'This charge has been disputed and cannot be refunded (test)' } }];
      const amount = body.amount !== undefined ? Number(body.amount) : intent.amount - this.refundedOf(intent.id);
      if (amount <= 0 || amount > intent.amount - this.refundedOf(intent.id)) {
        return [400, { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: `Refund amount (${amount}) is greater than unrefunded amount on charge` } }];
      }
      const refund = this.makeRefund(intent, amount, (body.metadata as Record<string, string>) ?? {}, body.refund_application_fee === 'true', (body.reason as string) ?? null);
      return [200, refund];
    }
    if (method === 'POST' && path === '/v1/tax/calculations') return [200, this.taxCalculation(body)];
    if (method === 'POST' && path === '/v1/tax/transactions/create_from_calculation') {
      if (!this.taxCalculations.has(String(body.calculation))) return [404, { error: { type: 'invalid_request_error', message: `No such tax calculation: ${String(body.calculation)}` } }];
      const transaction = { id: id('tax_txn'), calculation: String(body.calculation), reference: String(body.reference), reversals: [] };
      this.taxTransactions.set(transaction.id, transaction);
      return [200, { id: transaction.id, object: 'tax.transaction', type: 'transaction', reference: transaction.reference, livemode: false }];
    }
    if (method === 'POST' && path === '/v1/tax/transactions/create_reversal') {
      const original = this.taxTransactions.get(String(body.original_transaction));
      if (!original) return [404, { error: { type: 'invalid_request_error', message: 'No such tax transaction' } }];
      // mode=full reverses what the transaction still holds; nothing is left to reverse after it.
      if (original.reversals.some((r) => r.mode === 'full')) return [400, { error: { type: 'invalid_request_error', message: 'This transaction has already been fully reversed' } }];
      const mode = body.mode === 'full' ? ('full' as const) : ('partial' as const);
      const reversal = { id: id('tax_txn'), mode, flatAmount: mode === 'full' ? null : Number(body.flat_amount), reference: String(body.reference) };
      original.reversals.push(reversal);
      return [200, { id: reversal.id, object: 'tax.transaction', type: 'reversal', reference: reversal.reference, reversal: { original_transaction: original.id }, livemode: false }];
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } }];
  }

  /**
   * A Stripe Tax calculation the way Stripe answers one: per line and for shipping a tax_breakdown
   * at the rate set for the address (`taxRates`: 'US-CA' beats 'US'), rounded half up per line,
   * added on top (exclusive) or taken out of the amount (inclusive).
   */
  private taxCalculation(body: Record<string, any>) {
    const address = body.customer_details?.address ?? {};
    const jurisdiction = address.state ? `${address.country}-${address.state}` : address.country;
    const rule = this.taxRates.get(jurisdiction) ?? this.taxRates.get(address.country);
    const taxOf = (amount: number, behavior: string) => {
      if (!rule) return 0;
      return behavior === 'inclusive' ? amount - Math.floor((2 * amount * 10_000 + 10_000 + rule.rate) / (2 * (10_000 + rule.rate))) : Math.floor((2 * amount * rule.rate + 10_000) / 20_000);
    };
    const breakdown = (amount: number) =>
      rule && amount
        ? [{ amount, jurisdiction: { country: address.country, state: address.state ?? null, display_name: rule.name, level: address.state ? 'state' : 'country' }, tax_rate_details: { percentage_decimal: (rule.rate / 100).toFixed(4), display_name: rule.name, tax_type: 'sales_tax' }, taxability_reason: 'standard_rated', taxable_amount: amount, sourcing: 'destination' }]
        : [];
    const lines = Object.values((body.line_items ?? {}) as Record<string, any>).map((line, index) => {
      const amount = Number(line.amount);
      const tax = taxOf(amount, line.tax_behavior);
      return { id: `tax_li_${index}`, object: 'tax.calculation_line_item', amount, amount_tax: tax, quantity: Number(line.quantity ?? 1), reference: line.reference, tax_behavior: line.tax_behavior, tax_code: line.tax_code ?? 'txcd_99999999', tax_breakdown: breakdown(tax), livemode: false, product: null };
    });
    const shippingAmount = body.shipping_cost ? Number(body.shipping_cost.amount) : 0;
    const shippingTax = body.shipping_cost ? taxOf(shippingAmount, body.shipping_cost.tax_behavior) : 0;
    const calculation = {
      id: id('taxcalc'),
      object: 'tax.calculation',
      currency: body.currency,
      amount_total: lines.reduce((sum, line) => sum + line.amount + (line.tax_behavior === 'exclusive' ? line.amount_tax : 0), 0) + shippingAmount,
      tax_amount_exclusive: 0,
      tax_amount_inclusive: 0,
      line_items: { object: 'list', data: lines, has_more: false, url: '/v1/tax/calculations/x/line_items' },
      shipping_cost: body.shipping_cost ? { amount: shippingAmount, amount_tax: shippingTax, tax_behavior: body.shipping_cost.tax_behavior, tax_code: 'txcd_92010001', tax_breakdown: breakdown(shippingTax) } : null,
      livemode: false
    };
    this.taxCalculations.set(calculation.id, calculation);
    return calculation;
  }

  /** What was refunded of a PaymentIntent so far. */
  refundedOf(intentId: string): number {
    return [...this.refunds.values()].filter((r) => r.payment_intent === intentId && r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
  }

  private makeRefund(intent: Intent, amount: number, metadata: Record<string, string>, feeReversed: boolean, reason: string | null): Refund {
    const refund: Refund = {
      id: id('re'),
      object: 'refund',
      amount,
      currency: intent.currency,
      status: 'succeeded',
      payment_intent: intent.id,
      charge: `ch_${intent.id.slice(3)}`,
      reason,
      refund_application_fee: feeReversed,
      metadata,
      created: Math.floor(Date.now() / 1000),
      account: intent.account
    };
    this.refunds.set(refund.id, refund);
    return refund;
  }

  /** A refund made in Stripe's own dashboard: the API never hears of it but through a webhook. */
  dashboardRefund(intentId: string, amount: number): Refund {
    return this.makeRefund(this.intents.get(intentId)!, amount, {}, false, 'requested_by_customer');
  }

  /** Onboarding finished on Stripe's side. */
  activate(accountId: string, flags: Partial<Pick<Account, 'charges_enabled' | 'payouts_enabled' | 'details_submitted'>> = {}) {
    const account = this.accounts.get(accountId)!;
    Object.assign(account, { charges_enabled: true, payouts_enabled: true, details_submitted: true, requirements: { currently_due: [] } }, flags);
    return account;
  }

  /** The shopper paid (or the card was declined). */
  setIntentStatus(intentId: string, status: string) {
    this.intents.get(intentId)!.status = status;
    return this.intents.get(intentId)!;
  }
}

export async function startStripeServer(t: { teardown(fn: () => unknown): void }): Promise<StripeServer> {
  const server = await new StripeServer().start();
  t.teardown(() => server.stop());
  return server;
}

/** Connects a store to Stripe through the API and activates the account on the fake Stripe. */
export async function connectStripe(
  app: { request(options: any): Promise<any> },
  stripe: StripeServer,
  owner: { accessToken: string; store: { id: string } }
): Promise<string> {
  const link = await app.request({
    method: 'POST',
    url: '/admin/store/payments/onboarding-link',
    payload: { returnUrl: 'https://admin.example/payments/done', refreshUrl: 'https://admin.example/payments/retry' },
    token: owner.accessToken,
    storeId: owner.store.id
  });
  if (link.status !== 200) throw new Error(`onboarding link failed: ${link.status} ${link.raw}`);
  const status = await app.request({ url: '/admin/store/payments', token: owner.accessToken, storeId: owner.store.id });
  const accountId = status.body.data.accountId as string;
  stripe.activate(accountId);
  await app.request({ url: '/admin/store/payments', token: owner.accessToken, storeId: owner.store.id });
  return accountId;
}
