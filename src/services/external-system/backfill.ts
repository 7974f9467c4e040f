import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { completeJob, findJobRow, saveJobProgress } from '../job-history/index.js';
import { resolveIssuesOf } from '../issues/index.js';
import { decryptSecret } from '../../platform/secrets.js';
import { ExternalSystemError, type ExternalPage } from './client.js';
import { clientFor, type LinkRow } from './links.js';
import { upsertCustomers, upsertProducts, type UpsertCounts } from './upsert.js';
import { withTransaction } from '../../platform/with-transaction.js';

type Phase = 'products' | 'customers' | 'done';

interface Checkpoint {
  phase: Phase;
  cursor: string | null;
  products: UpsertCounts;
  customers: UpsertCounts;
}

const zero = (): UpsertCounts => ({ seen: 0, changed: 0, skipped: 0 });
const add = (a: UpsertCounts, b: UpsertCounts): UpsertCounts => ({ seen: a.seen + b.seen, changed: a.changed + b.changed, skipped: a.skipped + b.skipped });

/** Final (no retry) failures of a backfill: a refused key or a link that went away. */
const finalError = (message: string) => new AppError(409, 'conflict', message);

/**
 * The backfill job: pages products, then customers, from the external API and upserts each page
 * by external id in one transaction together with the checkpoint (phase + cursor + counts), so a
 * retried attempt resumes at the page after the last one stored. Progress is on the jobs row.
 */
export async function runBackfill(ctx: AppContext, jobId: string, signal?: AbortSignal) {
  const run = await findJobRow(ctx, jobId);
  if (!run || !run.storeId) throw finalError('The backfill job run is missing');
  const storeId = run.storeId;
  const link: LinkRow | undefined = await ctx.db('externalSystemLinks').where({ storeId }).first();
  if (!link || link.status !== 'connected') {
    await completeJob(ctx, jobId, { skipped: 'the store is not connected to an external system' });
    return { skipped: true };
  }
  let apiKey: string;
  try {
    apiKey = decryptSecret(link.apiKeyEncrypted, ctx.config.encryptionKey);
  } catch {
    throw finalError('The stored API key cannot be decrypted with the current ENCRYPTION_KEY: connect again');
  }

  const saved = run.checkpoint as Checkpoint | null;
  let state: Checkpoint = saved?.phase ? saved : { phase: link.syncProducts ? 'products' : 'customers', cursor: null, products: zero(), customers: zero() };
  if (state.phase === 'customers' && !link.syncCustomers) state = { ...state, phase: 'done' };
  const client = clientFor(ctx, link.baseUrl, apiKey, { retries: 3 });
  const fetchPage = (phase: Phase, cursor: string | null): Promise<ExternalPage<any>> =>
    phase === 'products' ? client.products(cursor) : client.customers(cursor);
  // The next page is fetched while the current one is written: the upstream and the database work
  // at the same time. Only what is stored (with its checkpoint) counts as done.
  let prefetched: Promise<ExternalPage<any>> | null = null;
  try {
    while (state.phase !== 'done') {
      if (signal?.aborted) throw new Error('The worker is shutting down; the backfill resumes from its checkpoint');
      const phase = state.phase;
      const page: ExternalPage<any> = await (prefetched ?? fetchPage(phase, state.cursor));
      prefetched = null;
      const items = Array.isArray(page?.data) ? page.data : [];
      const next = typeof page?.nextCursor === 'string' && page.nextCursor ? page.nextCursor : null;
      if (next) {
        prefetched = fetchPage(phase, next);
        prefetched.catch(() => undefined); // awaited next turn; a failure surfaces there
      }
      // The page's change events (storefront caches, ETags) are published once it commits.
      const stillLinked = await withTransaction(ctx, async (trx, emit) => {
        // Disconnected (or connected anew) since the job started: nothing more is written for it.
        const current: Pick<LinkRow, 'status' | 'connectedAt'> | undefined = await trx('externalSystemLinks').where({ storeId, id: link.id }).forShare().first('status', 'connectedAt');
        if (current?.status !== 'connected' || current.connectedAt?.getTime() !== link.connectedAt?.getTime()) return false;
        const counts = phase === 'products' ? await upsertProducts(trx, emit, storeId, items) : await upsertCustomers(trx, storeId, items);
        const nextPhase: Phase = next ? phase : phase === 'products' && link.syncCustomers ? 'customers' : 'done';
        state = { ...state, [phase]: add(state[phase], counts), phase: nextPhase, cursor: next };
        const percent = state.phase === 'done' ? 99 : state.phase === 'customers' ? (link.syncProducts ? 50 : 0) : 0;
        await saveJobProgress(trx, jobId, { checkpoint: state, progress: { percent, phase: state.phase, products: state.products, customers: state.customers } });
        return true;
      });
      if (!stillLinked) {
        await completeJob(ctx, jobId, { skipped: 'the store was disconnected from the external system during the backfill' });
        return { skipped: true };
      }
    }
  } catch (error) {
    if (error instanceof ExternalSystemError && !error.retryable) throw finalError(error.message);
    throw error;
  } finally {
    client.close();
  }
  const result = { products: state.products, customers: state.customers };
  await ctx.db('externalSystemLinks').where({ storeId, id: link.id, status: 'connected' }).update({ lastSyncedAt: ctx.db.fn.now() });
  await resolveIssuesOf(ctx.db, storeId, 'sync_failed');
  await completeJob(ctx, jobId, result);
  return result;
}
