import t from 'tap';
import { buildApp } from '../../helpers/app.js';
import { reconcileStripeEvents } from '../../../src/services/payments/reconcile-events.js';

t.test('webhook reconciliation replays stored events that were never processed, only stale ones', async (t) => {
  // Workers start after the first pass: their boot runs the scheduled reconcile at once too.
  const app = await buildApp(t, { workers: false });
  const event = (id: string) => ({ id, object: 'event', type: 'account.updated', account: 'acct_unknown', created: Math.floor(Date.now() / 1000), data: { object: { id: 'acct_unknown', object: 'account' } } });
  const old = new Date(Date.now() - 20 * 60_000);
  await app.ctx.db('stripeEvents').insert([
    { id: 'evt_lost', type: 'account.updated', payload: JSON.stringify(event('evt_lost')), status: 'pending', receivedAt: old },
    { id: 'evt_fresh', type: 'account.updated', payload: JSON.stringify(event('evt_fresh')), status: 'pending' },
    { id: 'evt_done', type: 'account.updated', payload: JSON.stringify(event('evt_done')), status: 'processed', receivedAt: old, processedAt: old }
  ]);
  t.same(await reconcileStripeEvents(app.ctx), { replayed: 1 }, 'only the stale pending event');
  await app.startWorkers(['webhooks']);
  const deadline = Date.now() + 15_000;
  let row;
  do {
    await new Promise((resolve) => setTimeout(resolve, 100));
    row = await app.ctx.db('stripeEvents').where({ id: 'evt_lost' }).first();
  } while (row.status === 'pending' && Date.now() < deadline);
  t.match(row, { status: 'ignored', reason: 'no store has this connected account' }, 'replayed and settled');
  t.same(await reconcileStripeEvents(app.ctx), { replayed: 0 }, 'nothing left to replay');
  t.equal((await app.ctx.db('stripeEvents').where({ id: 'evt_fresh' }).first()).status, 'pending', 'a fresh event is left to its own job');
});
