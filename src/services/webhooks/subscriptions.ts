import { LRUCache } from 'lru-cache';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { decryptSecret, encryptSecret, randomSecret } from '../../platform/secrets.js';
import type { Sql } from '../../db/transaction.js';
import { conflict } from '../../errors.js';
import { recordAudit } from '../audit/index.js';
import { newWebhookSecret } from '../../platform/checksum-tokens.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { checkWebhookUrl } from '../../platform/url-guard.js';
import type { WebhookTopic } from './topics.js';

/** How long a rotated-out signing secret keeps signing alongside the new one. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

export interface SubscriptionRow {
  id: string;
  storeId: string;
  url: string;
  topics: WebhookTopic[];
  description: string | null;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const toSubscriptionDto = (row: SubscriptionRow) => ({
  id: row.id,
  url: row.url,
  topics: row.topics,
  description: row.description,
  enabled: row.enabled,
  disabledReason: row.disabledReason,
  failingSince: row.failingSince,
  previousSecretExpiresAt: row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date() ? row.previousSecretExpiresAt : null,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

/** Standard Webhooks' `whsec_<base64>`, checksummed (services/checksum-tokens.ts). */
const newSigningSecret = newWebhookSecret;

/** What a subscription's audit entries compare (never a secret). */
const audited = (row: SubscriptionRow) => ({ url: row.url, topics: row.topics, description: row.description, enabled: row.enabled });

export async function findSubscription(ctx: AppContext, storeId: string, id: string): Promise<SubscriptionRow> {
  const row = await ctx.db('webhookSubscriptions').where({ storeId, id }).first();
  if (!row) throw notFound('Webhook subscription');
  return row as SubscriptionRow;
}

/**
 * Opened secrets by their sealed text, per context: a worker signs thousands of deliveries to a
 * few endpoints, and opening the seal (a key hash and an AES-GCM decipher) was about 2% of its CPU
 * per delivery. The sealed text carries its own IV, so a rotated or replaced secret is a new entry;
 * the process already holds the key that opens them all.
 */
const OPENED_SECRETS = 1_000;
const openedOf = new WeakMap<AppContext, LRUCache<string, string>>();

function openSecret(ctx: AppContext, sealed: string): string {
  let opened = openedOf.get(ctx);
  if (!opened) openedOf.set(ctx, (opened = new LRUCache<string, string>({ max: OPENED_SECRETS })));
  let secret = opened.get(sealed);
  if (secret === undefined) opened.set(sealed, (secret = decryptSecret(sealed, ctx.config.encryptionKey)));
  return secret;
}

/** The secrets that sign a delivery now: the current one, and a rotated-out one during its grace period. */
export function signingSecrets(ctx: AppContext, row: Pick<SubscriptionRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>): string[] {
  const secrets = [openSecret(ctx, row.secretSealed)];
  if (row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date()) {
    secrets.push(openSecret(ctx, row.previousSecretSealed));
  }
  return secrets;
}

/**
 * Serialises a store's subscription writes that the limits below read (count, URLs), so two
 * concurrent creates cannot both be the 20th or both take one URL. Other stores are not held.
 */
async function lockStoreSubscriptions(trx: Sql, storeId: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`webhook-subscriptions:${storeId}`]);
}

/** 409 url_taken naming the store's subscription that already has this URL (the URL as saved: normalised). */
async function refuseTakenUrl(trx: Sql, storeId: string, url: string, exceptId?: string): Promise<void> {
  const query = trx('webhookSubscriptions').where({ storeId, url });
  if (exceptId) query.whereNot({ id: exceptId });
  const existing = await query.first('id');
  if (existing) {
    const message = `Webhook subscription ${existing.id} already sends to this URL`;
    throw conflict('url_taken', message, [{ path: 'url', message }]);
  }
}

/**
 * A new subscription: a store has at most WEBHOOK_MAX_SUBSCRIPTIONS_PER_STORE (20; disabled ones
 * count, or disabling would lift the limit), one per URL. Past the limit: 409
 * webhook_limit_reached, the store's state and not the request being wrong, as for other state
 * conflicts. Fan-out is bounded that way: one change of the store causes at most that many deliveries.
 */
export async function createSubscription(ctx: AppContext, storeId: string, input: { url: string; topics: WebhookTopic[]; description?: string | null }) {
  const url = await checkWebhookUrl(input.url, ctx.config.webhooks.allowPrivateHosts);
  const secret = newSigningSecret();
  const limit = ctx.config.webhooks.maxSubscriptionsPerStore;
  const row = await withTransaction(ctx, async (trx) => {
    await lockStoreSubscriptions(trx, storeId);
    const [counted] = (await trx('webhookSubscriptions').where({ storeId }).count({ count: '*' })) as Array<{ count: string | number }>;
    const count = Number(counted?.count ?? 0);
    if (count >= limit) {
      const message = `This store has ${count} webhook subscriptions; at most ${limit} are allowed. Delete one (or send more topics to one endpoint) first`;
      throw conflict('webhook_limit_reached', message, [{ path: 'url', message }]);
    }
    await refuseTakenUrl(trx, storeId, url);
    const [inserted] = await trx('webhookSubscriptions')
      .insert({ storeId, url, topics: [...new Set(input.topics)], description: input.description ?? null, secretSealed: encryptSecret(secret, ctx.config.encryptionKey) })
      .returning('*');
    await recordAudit(ctx, trx, { storeId, action: 'webhook.created', resourceType: 'webhook', resourceId: inserted.id, before: null, after: audited(inserted as SubscriptionRow) });
    return inserted as SubscriptionRow;
  });
  return { webhook: toSubscriptionDto(row), secret };
}

export async function listSubscriptions(ctx: AppContext, storeId: string, page: PageRequest) {
  const result = await keysetPage<SubscriptionRow>(ctx.db('webhookSubscriptions').where({ storeId }).select('*'), { column: 'createdAt', direction: 'asc' }, page);
  return { webhooks: result.items.map(toSubscriptionDto), nextCursor: result.nextCursor };
}

export async function getSubscription(ctx: AppContext, storeId: string, id: string) {
  return { webhook: toSubscriptionDto(await findSubscription(ctx, storeId, id)) };
}

export interface SubscriptionPatch {
  url?: string;
  topics?: WebhookTopic[];
  description?: string | null;
  enabled?: boolean;
}

/** Re-enabling clears the failure record; a URL another of the store's subscriptions has is 409 url_taken. */
export async function updateSubscription(ctx: AppContext, storeId: string, id: string, patch: SubscriptionPatch) {
  const current = await findSubscription(ctx, storeId, id);
  const changes: Record<string, unknown> = { updatedAt: ctx.db.fn.now() };
  if (patch.url !== undefined) changes.url = await checkWebhookUrl(patch.url, ctx.config.webhooks.allowPrivateHosts);
  if (patch.topics !== undefined) changes.topics = [...new Set(patch.topics)];
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.enabled !== undefined) {
    changes.enabled = patch.enabled;
    changes.disabledReason = patch.enabled ? null : 'disabled by a store admin';
    if (patch.enabled) changes.failingSince = null;
  }
  const row = await withTransaction(ctx, async (trx) => {
    if (typeof changes.url === 'string') {
      await lockStoreSubscriptions(trx, storeId);
      await refuseTakenUrl(trx, storeId, changes.url, id);
    }
    const [updated] = await trx('webhookSubscriptions').where({ storeId, id }).update(changes).returning('*');
    if (updated) await recordAudit(ctx, trx, { storeId, action: 'webhook.updated', resourceType: 'webhook', resourceId: id, before: audited(current), after: audited(updated as SubscriptionRow) });
    return updated as SubscriptionRow | undefined;
  });
  if (!row) throw notFound('Webhook subscription');
  return { webhook: toSubscriptionDto(row) };
}

export async function deleteSubscription(ctx: AppContext, storeId: string, id: string) {
  await withTransaction(ctx, async (trx) => {
    const [deleted] = await trx('webhookSubscriptions').where({ storeId, id }).delete().returning('*');
    if (!deleted) throw notFound('Webhook subscription');
    await recordAudit(ctx, trx, { storeId, action: 'webhook.deleted', resourceType: 'webhook', resourceId: id, before: audited(deleted as SubscriptionRow), after: null });
  });
  return { deleted: true };
}

/** A new signing secret; the old one keeps signing alongside it for 24 hours. */
export async function rotateSubscriptionSecret(ctx: AppContext, storeId: string, id: string) {
  const current = await findSubscription(ctx, storeId, id);
  const secret = newSigningSecret();
  const row = await withTransaction(ctx, async (trx) => {
    const [rotated] = await trx('webhookSubscriptions')
      .where({ storeId, id, secretSealed: current.secretSealed })
      .update({
        secretSealed: encryptSecret(secret, ctx.config.encryptionKey),
        previousSecretSealed: current.secretSealed,
        previousSecretExpiresAt: new Date(Date.now() + PREVIOUS_SECRET_GRACE_MS),
        updatedAt: trx.fn.now()
      })
      .returning('*');
    if (rotated) await recordAudit(ctx, trx, { storeId, action: 'webhook.secret_rotated', resourceType: 'webhook', resourceId: id, details: { secret: 'rotated', previousSecretExpiresAt: rotated.previousSecretExpiresAt } });
    return rotated;
  });
  if (!row) return rotateSubscriptionSecret(ctx, storeId, id);
  return { webhook: toSubscriptionDto(row as SubscriptionRow), secret };
}
