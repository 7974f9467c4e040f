import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { decryptSecret, encryptSecret, randomSecret } from '../../platform/secrets.js';
import { checkWebhookUrl } from './url-guard.js';
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

const newSigningSecret = () => `whsec_${randomSecret(32)}`;

export async function findSubscription(ctx: AppContext, storeId: string, id: string): Promise<SubscriptionRow> {
  const row = await ctx.db('webhookSubscriptions').where({ storeId, id }).first();
  if (!row) throw notFound('Webhook subscription');
  return row as SubscriptionRow;
}

/** The secrets that sign a delivery now: the current one, and a rotated-out one during its grace period. */
export function signingSecrets(ctx: AppContext, row: Pick<SubscriptionRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>): string[] {
  const secrets = [decryptSecret(row.secretSealed, ctx.config.encryptionKey)];
  if (row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date()) {
    secrets.push(decryptSecret(row.previousSecretSealed, ctx.config.encryptionKey));
  }
  return secrets;
}

export async function createSubscription(ctx: AppContext, storeId: string, input: { url: string; topics: WebhookTopic[]; description?: string | null }) {
  const url = await checkWebhookUrl(input.url, ctx.config.webhooks.allowPrivateHosts);
  const secret = newSigningSecret();
  const [row] = await ctx.db('webhookSubscriptions')
    .insert({ storeId, url, topics: [...new Set(input.topics)], description: input.description ?? null, secretSealed: encryptSecret(secret, ctx.config.encryptionKey) })
    .returning('*');
  return { webhook: toSubscriptionDto(row as SubscriptionRow), secret };
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

/** Re-enabling clears the failure record: the endpoint gets a fresh 3 days. */
export async function updateSubscription(ctx: AppContext, storeId: string, id: string, patch: SubscriptionPatch) {
  await findSubscription(ctx, storeId, id);
  const changes: Record<string, unknown> = { updatedAt: ctx.db.fn.now() };
  if (patch.url !== undefined) changes.url = await checkWebhookUrl(patch.url, ctx.config.webhooks.allowPrivateHosts);
  if (patch.topics !== undefined) changes.topics = [...new Set(patch.topics)];
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.enabled !== undefined) {
    changes.enabled = patch.enabled;
    changes.disabledReason = patch.enabled ? null : 'disabled by a store admin';
    if (patch.enabled) changes.failingSince = null;
  }
  const [row] = await ctx.db('webhookSubscriptions').where({ storeId, id }).update(changes).returning('*');
  if (!row) throw notFound('Webhook subscription');
  return { webhook: toSubscriptionDto(row as SubscriptionRow) };
}

export async function deleteSubscription(ctx: AppContext, storeId: string, id: string) {
  const deleted = await ctx.db('webhookSubscriptions').where({ storeId, id }).delete();
  if (!deleted) throw notFound('Webhook subscription');
  return { deleted: true };
}

/** A new signing secret; the old one keeps signing alongside it for 24 hours. */
export async function rotateSubscriptionSecret(ctx: AppContext, storeId: string, id: string) {
  const current = await findSubscription(ctx, storeId, id);
  const secret = newSigningSecret();
  const [row] = await ctx.db('webhookSubscriptions')
    .where({ storeId, id, secretSealed: current.secretSealed })
    .update({
      secretSealed: encryptSecret(secret, ctx.config.encryptionKey),
      previousSecretSealed: current.secretSealed,
      previousSecretExpiresAt: new Date(Date.now() + PREVIOUS_SECRET_GRACE_MS),
      updatedAt: ctx.db.fn.now()
    })
    .returning('*');
  if (!row) return rotateSubscriptionSecret(ctx, storeId, id);
  return { webhook: toSubscriptionDto(row as SubscriptionRow), secret };
}
