import t from 'tap';
import { purgeExpiredIdempotencyKeys } from '../../../src/platform/idempotency/idempotency.js';
import { buildApp, signupOwner } from '../../helpers/app.js';

t.setTimeout(120_000);

t.test('the scheduled purge forgets idempotency keys past their 24 h, of every store, and keeps newer ones', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owners = [await signupOwner(app), await signupOwner(app)];
  const payload = { subject: 'Once', text: 'only', sendAt: new Date(Date.now() + 3_600_000).toISOString() };
  const send = (owner: (typeof owners)[number], key: string) =>
    app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', token: owner.accessToken, storeId: owner.store.id, payload, headers: { 'idempotency-key': key } });
  const kept: string[] = [];
  for (const owner of owners) {
    t.equal((await send(owner, 'old')).status, 202);
    const created = await send(owner, 'new');
    t.equal(created.status, 202);
    kept.push(created.body.data.campaign.id);
  }
  const first = await send(owners[0]!, 'old');
  // Age both stores' 'old' key past the TTL (a fixture write: the API has no clock to move).
  await app.ctx.db('idempotencyKeys').where({ key: 'old' }).update({ createdAt: app.ctx.db.raw(`now() - interval '25 hours'`) });

  t.same(await purgeExpiredIdempotencyKeys(app.ctx), { deleted: 2 }, 'both stores\' expired keys');
  t.same(await purgeExpiredIdempotencyKeys(app.ctx), { deleted: 0 }, 'nothing left to purge');
  const left = await app.ctx.db('idempotencyKeys').whereIn('storeId', owners.map((o) => o.store.id)).orderBy('key').pluck('key');
  t.same(left, ['new', 'new'], 'the keys inside their 24 h stay');

  const again = await send(owners[0]!, 'old');
  t.equal(again.status, 202);
  t.not(again.body.data.campaign.id, first.body.data.campaign.id, 'a purged key no longer replays: a new campaign');
  const repeat = await send(owners[0]!, 'new');
  t.equal(repeat.status, 202);
  t.equal(repeat.body.data.campaign.id, kept[0], 'a kept key still replays its campaign');
});
