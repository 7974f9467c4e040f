import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import type { RequestCredential } from '../plugins/auth.js';
import { MAX_STREAM_MS } from './hub.js';

/** A claim outlives the longest stream, so no stream renews it; a dead process's claims lapse by themselves after it. */
const CLAIM_MS = MAX_STREAM_MS + 60_000;
const RETRY_AFTER_SEC = 10;

const tooManyStreams = (what: string, limit: number) =>
  new AppError(
    429,
    'rate_limited',
    `Too many open event streams for this ${what} (at most ${limit}); close one, or poll the resource instead`,
    [{ path: 'streams', message: `at most ${limit} open per ${what}` }],
    { 'Retry-After': String(RETRY_AFTER_SEC) }
  );

/**
 * Takes a stream's places under the caps, counted across every process (the backends' slot store,
 * Redis or PostgreSQL): EVENT_STREAMS_PER_PRINCIPAL per user or API key, EVENT_STREAMS_PER_STORE per
 * store. 429 `rate_limited` past either, nothing held. Returns what gives the places back.
 */
export async function reserveStreamSlots(ctx: AppContext, credential: RequestCredential): Promise<() => Promise<void>> {
  const slots = ctx.backends.slots;
  const member = randomUUID();
  const { perPrincipal, perStore } = ctx.config.eventStreams;
  const principal = credential.kind === 'key' ? `event-streams:key:${credential.keyId}` : `event-streams:user:${credential.userId}`;
  const store = `event-streams:store:${credential.storeId}`;
  if (!(await slots.take(principal, member, perPrincipal, CLAIM_MS))) throw tooManyStreams(credential.kind === 'key' ? 'API key' : 'user', perPrincipal);
  const releasePrincipal = () => slots.release(principal, member).catch(() => undefined);
  let storeTaken: boolean;
  try {
    storeTaken = await slots.take(store, member, perStore, CLAIM_MS);
  } catch (error) {
    await releasePrincipal();
    throw error;
  }
  if (!storeTaken) {
    await releasePrincipal();
    throw tooManyStreams('store', perStore);
  }
  // Both places at once: one statement on PostgreSQL, a script per key on Redis.
  return async () => {
    await slots.releaseAll([principal, store], member).catch(() => undefined);
  };
}
