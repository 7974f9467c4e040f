import { randomUUID } from 'node:crypto';
import type { StripeAccount, StripeEvent } from '../../adapters/payments/index.js';
import { PREPARED } from '../../db/prepared-statements.js';
import type { AppContext } from '../../context.js';
import { conflict } from '../../errors.js';
import { applied, ignored, type EventOutcome } from './event-outcome.js';
import { callStripe } from './stripe-calls.js';
import type { Sql } from '../../db/transaction.js';

export const PAYMENT_ACCOUNT_STATUSES = ['not_connected', 'onboarding', 'restricted', 'active'] as const;
export type PaymentStatus = (typeof PAYMENT_ACCOUNT_STATUSES)[number];

interface AccountRow {
  storeId: string;
  accountId: string | null;
  generation: number;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
  requirementsDue: string[];
}

export function statusOf(row: AccountRow | undefined): PaymentStatus {
  if (!row?.accountId) return 'not_connected';
  // Stripe calls an account whose charges or payouts are paused "restricted": the operator must act.
  if (row.chargesEnabled && row.payoutsEnabled) return 'active';
  return row.detailsSubmitted || row.chargesEnabled ? 'restricted' : 'onboarding';
}

function toDto(row: AccountRow | undefined) {
  return {
    provider: 'stripe' as const,
    status: statusOf(row),
    accountId: row?.accountId ?? null,
    chargesEnabled: row?.accountId ? row.chargesEnabled : false,
    payoutsEnabled: row?.accountId ? row.payoutsEnabled : false,
    detailsSubmitted: row?.accountId ? row.detailsSubmitted : false,
    requirementsDue: row?.accountId ? row.requirementsDue : []
  };
}

const findAccount = (db: Sql, storeId: string): Promise<AccountRow | undefined> => db('storePaymentAccounts').where({ storeId }).first();

/** The connected account a store charges through, when it can take charges. */
export async function activeStripeAccount(db: Sql, storeId: string): Promise<string | null> {
  // Every checkout session asks: one prepared key lookup.
  const result = await db.raw('select account_id, charges_enabled from store_payment_accounts where store_id = ?', [storeId]).options(PREPARED);
  const row = result.rows[0] as { accountId: string | null; chargesEnabled: boolean } | undefined;
  return row?.accountId && row.chargesEnabled ? row.accountId : null;
}

const chargeableKey = (storeId: string) => `payments:chargeable:${storeId}`;

/**
 * Whether the store can take Stripe charges, from the per-process cache: every checkout session
 * asks. Every write below that can change the answer drops it in every process; a lost message
 * lasts at most the cache's TTL, and a session that then picks Stripe for a store that just reset
 * it is refused by `start`, which reads the row itself.
 */
export async function canChargeWithStripe(ctx: AppContext, storeId: string): Promise<boolean> {
  const cached = ctx.cache.get<{ chargeable: boolean }>(chargeableKey(storeId));
  if (cached) return cached.chargeable;
  const generation = ctx.cache.generation();
  const chargeable = Boolean(await activeStripeAccount(ctx.db, storeId));
  ctx.cache.set(chargeableKey(storeId), { chargeable }, generation);
  return chargeable;
}

const accountChanged = (ctx: AppContext, storeId: string) => ctx.cache.invalidate(chargeableKey(storeId));

export async function paymentsConnected(db: Sql, storeId: string): Promise<boolean> {
  return Boolean(await activeStripeAccount(db, storeId));
}

const flagsFrom = (account: StripeAccount) => ({
  chargesEnabled: Boolean(account.charges_enabled),
  payoutsEnabled: Boolean(account.payouts_enabled),
  detailsSubmitted: Boolean(account.details_submitted),
  requirementsDue: JSON.stringify(account.requirements?.currently_due ?? [])
});

/** Status refreshes (the account as Stripe has it now): copy Stripe's flags onto the store's row. */
export async function applyAccountUpdate(ctx: AppContext, account: StripeAccount): Promise<boolean> {
  const updated = (await ctx.db('storePaymentAccounts')
    .where({ accountId: account.id })
    .update({ ...flagsFrom(account), updatedAt: ctx.db.fn.now() })
    .returning('storeId')) as Array<{ storeId: string }>;
  for (const row of updated) await accountChanged(ctx, row.storeId);
  return updated.length > 0;
}

/**
 * An `account.updated` event, applied only when it is newer (Stripe's `created`) than the last one
 * applied to the account, so a late delivery never overwrites a newer state. Two events of one
 * second cannot be ordered: the later of them to arrive asks Stripe for the account as it is now.
 */
export async function applyAccountEvent(ctx: AppContext, event: Pick<StripeEvent, 'id' | 'created' | 'account'>, account: StripeAccount): Promise<EventOutcome> {
  if (typeof account?.id !== 'string' || account.object !== 'account') return ignored('malformed account object');
  if (event.account !== account.id) return ignored(`sent for ${event.account ? `account ${event.account}` : 'the platform account'}, about account ${account.id}`);
  const created = new Date(event.created * 1000);
  const updated = (await ctx.db('storePaymentAccounts')
    .where({ accountId: account.id })
    .where((newer) => newer.whereNull('lastEventCreated').orWhere('lastEventCreated', '<', created))
    .update({ ...flagsFrom(account), lastEventCreated: created, lastEventId: event.id, updatedAt: ctx.db.fn.now() })
    .returning('storeId')) as Array<{ storeId: string }>;
  for (const row of updated) await accountChanged(ctx, row.storeId);
  if (updated.length) return applied('account updated');
  const row = (await ctx.db('storePaymentAccounts').where({ accountId: account.id }).first('lastEventCreated', 'lastEventId')) as
    | { lastEventCreated: Date | null; lastEventId: string | null }
    | undefined;
  if (!row) return ignored('no store has this connected account');
  if (row.lastEventCreated && row.lastEventCreated.getTime() === created.getTime()) {
    const current = await callStripe('read the connected account', () => ctx.stripe.retrieveAccount(account.id));
    await applyAccountUpdate(ctx, current);
    return applied('account updated from Stripe (another event of the same second was applied)');
  }
  return ignored(`stale: created ${created.toISOString()}, before the last applied event ${row.lastEventId} (${row.lastEventCreated?.toISOString()})`);
}

export async function getPaymentStatus(ctx: AppContext, storeId: string) {
  let row = await findAccount(ctx.db, storeId);
  if (row?.accountId && statusOf(row) !== 'active') {
    // Onboarding or restricted: ask Stripe, so a store sees "active" without waiting for the webhook.
    try {
      const account = await ctx.stripe.retrieveAccount(row.accountId);
      await applyAccountUpdate(ctx, account);
      row = await findAccount(ctx.db, storeId);
    } catch (error) {
      ctx.log.warn({ storeId, err: { message: (error as Error).message } }, 'stripe account refresh failed; showing the stored status');
    }
  }
  return toDto(row);
}

/** Creates the store's connected account once (a fixed idempotency key per store and reset generation). */
async function ensureAccount(ctx: AppContext, storeId: string): Promise<string> {
  await ctx.db('storePaymentAccounts').insert({ storeId }).onConflict('storeId').ignore();
  const row = (await findAccount(ctx.db, storeId))!;
  if (row.accountId) return row.accountId;
  const store = await ctx.db('stores').where({ id: storeId }).first('contactEmail', 'name');
  const account = await callStripe('create the connected account', () =>
    ctx.stripe.createAccount(
      { type: 'express', ...(store?.contactEmail ? { email: store.contactEmail } : {}), metadata: { storeId }, business_profile: { name: store?.name } },
      { idempotencyKey: `connect-account:${storeId}:${row.generation}` }
    )
  );
  // Two concurrent requests get the same account from Stripe (same key); either write is the same.
  await ctx.db('storePaymentAccounts')
    .where({ storeId, generation: row.generation })
    .update({ accountId: account.id, ...flagsFrom(account), updatedAt: ctx.db.fn.now() });
  await accountChanged(ctx, storeId);
  return account.id;
}

export async function createOnboardingLink(ctx: AppContext, storeId: string, input: { returnUrl: string; refreshUrl: string }) {
  const accountId = await ensureAccount(ctx, storeId);
  const link = await callStripe('create the onboarding link', () =>
    ctx.stripe.createAccountLink(
      { account: accountId, return_url: input.returnUrl, refresh_url: input.refreshUrl, type: 'account_onboarding' },
      { idempotencyKey: `account-link:${accountId}:${randomUUID()}` }
    )
  );
  return { url: link.url, expiresAt: new Date(link.expires_at * 1000).toISOString() };
}

export async function createDashboardLink(ctx: AppContext, storeId: string) {
  const row = await findAccount(ctx.db, storeId);
  if (!row?.accountId || !row.detailsSubmitted) {
    throw conflict('conflict', 'Finish Stripe onboarding before opening the Stripe dashboard', [{ path: 'payments', message: `status is ${statusOf(row)}` }]);
  }
  const accountId = row.accountId;
  const link = await callStripe('create the dashboard link', () =>
    ctx.stripe.createLoginLink(accountId, { idempotencyKey: `login-link:${accountId}:${randomUUID()}` })
  );
  return { url: link.url };
}

/** Forgets the connected account (Stripe keeps it; the store can connect another one). */
export async function resetPayments(ctx: AppContext, storeId: string) {
  await ctx.db('storePaymentAccounts')
    .where({ storeId })
    .update({
      accountId: null,
      generation: ctx.db.raw('generation + 1'),
      chargesEnabled: false,
      payoutsEnabled: false,
      detailsSubmitted: false,
      requirementsDue: '[]',
      updatedAt: ctx.db.fn.now()
    });
  await accountChanged(ctx, storeId);
  return toDto(undefined);
}

/** The store's connected account (charging or not): where its payments' refunds and cancels go. */
export async function connectedStripeAccount(db: Sql, storeId: string): Promise<string | null> {
  return ((await findAccount(db, storeId))?.accountId as string | null | undefined) ?? null;
}
