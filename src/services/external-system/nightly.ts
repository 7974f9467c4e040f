import type { AppContext } from '../../context.js';
import { requestSync } from './links.js';

/** The nightly sync: a backfill for every connected store (one already queued or running is kept). */
export async function queueNightlySyncs(ctx: AppContext) {
  const stores: string[] = (await ctx.db('externalSystemLinks').comment('cross-store: nightly sync scheduler').where({ status: 'connected' }).select('storeId')).map((row: { storeId: string }) => row.storeId);
  let queued = 0;
  for (const storeId of stores) {
    try {
      await requestSync(ctx, storeId, null, 'nightly');
      queued += 1;
    } catch (error) {
      // Disconnected between the list and the request: nothing to sync.
      ctx.log.warn({ storeId, err: { message: (error as Error).message } }, 'nightly sync not queued');
    }
  }
  return { stores: stores.length, queued };
}
