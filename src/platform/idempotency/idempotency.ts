import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { conflict, validationFailed } from '../../errors.js';

/**
 * `Idempotency-Key`: one mechanism for every POST that creates something (orders, fulfilments,
 * campaigns). A key is stored per store with a hash of the request (method, path, body) when the
 * request starts; the response is stored when it succeeds. A repeat within 24 h replays that
 * response; a repeat while the first is still running waits for it; the same key with another
 * request is 422. A failed request forgets its key, so the client may retry it.
 */
export const IDEMPOTENCY_TTL_HOURS = 24;
const WAIT_FOR_FIRST_MS = 15_000;

export type IdempotencyStart =
  | { kind: 'new' }
  | { kind: 'replay'; statusCode: number; response: unknown };

export function requestHash(method: string, path: string, payload: unknown): string {
  // No body and `{}` are the same request: a client retrying may serialise an empty body either way.
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${JSON.stringify(payload ?? {})}`).digest('hex');
}

const mismatch = () =>
  validationFailed([{ path: 'Idempotency-Key', message: 'this key was already used with a different request' }], 'Idempotency-Key reused with a different request');

export async function beginIdempotentRequest(ctx: AppContext, storeId: string, key: string, hash: string): Promise<IdempotencyStart> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    // A key older than the TTL is free again.
    await ctx.db('idempotencyKeys')
      .where({ storeId, key })
      .where('createdAt', '<', ctx.db.raw(`now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`))
      .delete();
    const inserted = await ctx.db('idempotencyKeys').insert({ storeId, key, requestHash: hash }).onConflict(['storeId', 'key']).ignore().returning('key');
    if (inserted.length) return { kind: 'new' };
    const row = await ctx.db('idempotencyKeys').where({ storeId, key }).first('requestHash', 'statusCode', 'response');
    if (row) {
      if (row.requestHash !== hash) throw mismatch();
      if (row.statusCode !== null) return { kind: 'replay', statusCode: row.statusCode, response: row.response };
    }
    if (Date.now() > deadline) throw conflict('conflict', 'A request with this Idempotency-Key is still in progress');
    await new Promise((resolve) => setTimeout(resolve, row ? 25 : 0));
  }
}

export async function completeIdempotentRequest(ctx: AppContext, storeId: string, key: string, statusCode: number, response: unknown) {
  await ctx.db('idempotencyKeys').where({ storeId, key }).update({ statusCode, response: JSON.stringify(response) });
}

export async function abandonIdempotentRequest(ctx: AppContext, storeId: string, key: string) {
  await ctx.db('idempotencyKeys').where({ storeId, key }).whereNull('statusCode').delete();
}

/** Scheduled: forgets keys past the TTL. */
export async function purgeExpiredIdempotencyKeys(ctx: AppContext) {
  // Raw, because knex drops a comment from a DELETE: the marker says this sweep spans stores.
  const { rowCount } = await ctx.db.raw(`/* cross-store: expired idempotency keys sweep */ delete from idempotency_keys where created_at < now() - make_interval(hours => ?)`, [
    IDEMPOTENCY_TTL_HOURS
  ]);
  return { deleted: rowCount ?? 0 };
}
