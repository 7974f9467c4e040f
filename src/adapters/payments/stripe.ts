import Stripe from 'stripe';
import type { StripeCallOptions, StripeGateway } from './port.js';

/**
 * The Stripe SDK behind the payments port. The client is made on first use (a process that never
 * calls Stripe never builds one); `apiUrl` (STRIPE_API_URL) points it at a local server in tests.
 */
export function createStripeGateway(config: { stripeSecretKey: string; stripeApiUrl: string }): StripeGateway {
  let client: Stripe | null = null;
  const stripe = (): Stripe => {
    if (!client) {
      const options: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 2, timeout: 10_000 };
      if (config.stripeApiUrl) {
        const url = new URL(config.stripeApiUrl);
        Object.assign(options!, { host: url.hostname, port: url.port || (url.protocol === 'https:' ? 443 : 80), protocol: url.protocol.replace(':', '') });
      }
      client = new Stripe(config.stripeSecretKey, options);
    }
    return client;
  };
  const request = (options: StripeCallOptions) => {
    const { timeoutMs, ...rest } = options;
    return timeoutMs === undefined ? rest : { ...rest, timeout: timeoutMs, maxNetworkRetries: 0 };
  };
  return {
    createTaxCalculation: (params, options) => stripe().tax.calculations.create(params, request(options)),
    createTaxTransactionFromCalculation: (params, options) => stripe().tax.transactions.createFromCalculation(params, request(options)),
    createTaxReversal: (params, options) => stripe().tax.transactions.createReversal(params, request(options)),
    createPaymentIntent: (params, options) => stripe().paymentIntents.create(params, options),
    retrievePaymentIntent: (id, options) => stripe().paymentIntents.retrieve(id, {}, options),
    cancelPaymentIntent: (id, params, options) => stripe().paymentIntents.cancel(id, params, options),
    createRefund: (params, options) => stripe().refunds.create(params, options),
    retrieveAccount: (id) => stripe().accounts.retrieve(id),
    createAccount: (params, options) => stripe().accounts.create(params, options),
    createAccountLink: (params, options) => stripe().accountLinks.create(params, options),
    createLoginLink: (accountId, options) => stripe().accounts.createLoginLink(accountId, {}, options),
    constructEvent: (rawBody, signature, secret, toleranceSec) => stripe().webhooks.constructEvent(rawBody, signature, secret, toleranceSec)
  };
}
