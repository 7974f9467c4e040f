import t from 'tap';
import { closeCampaignTransports } from '../../../src/adapters/mail/index.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { CampaignSmtp, measuredSendRate, seedCustomers, sendRateKept, waitForCampaign } from '../../helpers/marketing.js';

t.test("two worker pools share one store's send rate (measured at most 10% above the setting)", async (t) => {
  const smtp = await new CampaignSmtp().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url, MARKETING_BATCH_SIZE: '10' } });
  const owner = await signupOwner(app);
  // 20/s over 120 messages (6 s): a rate a loaded two-core machine still keeps up with, so a
  // shortfall means the limiter held back, not that the workers could not go faster (at 50/s a busy
  // run measured 33).
  const rate = 20;
  const patched = await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: rate });
  t.equal(patched, 1);
  const ids = await seedCustomers(app, owner.store.id, 120, { prefix: 'rate' });

  const pools = [await app.startWorkers(['campaigns']), await app.startWorkers(['campaigns'])];
  const batchesByPool = [0, 0];
  pools.forEach((pool, i) => pool.workers[0]!.on('completed', (job) => job.name === 'campaign-batch' && (batchesByPool[i] = batchesByPool[i]! + 1)));

  // Warm both pools up (connections, compiled code) so the measured run is the steady state.
  const as = { token: owner.accessToken, storeId: owner.store.id };
  const list = await app.request({ method: 'POST', url: '/admin/marketing/lists', ...as, payload: { name: 'Warm-up', customerIds: ids.slice(0, 30) } });
  const warmUp = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/generic', ...as, payload: { subject: 'Warm', text: 'up', audience: { listIds: [list.body.data.list.id] } } });
  await waitForCampaign(app, owner, warmUp.body.data.campaign.id, ['sent'], 60_000);
  smtp.accepted.length = 0;
  batchesByPool.fill(0);

  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', token: owner.accessToken, storeId: owner.store.id, payload: { subject: 'Hi', text: 'Hello' } });
  const done = await waitForCampaign(app, owner, created.body.data.campaign.id, ['sent'], 60_000);
  t.equal(done.sent, 120, JSON.stringify(done));
  t.ok(batchesByPool[0]! > 0 && batchesByPool[1]! > 0, `both pools sent batches (${batchesByPool.join(' + ')})`);

  const measured = measuredSendRate(smtp.accepted.map((m) => m.at));
  t.ok(sendRateKept(measured, rate), `measured ${measured.toFixed(1)} messages/s for a setting of ${rate} (at most +10%, at least -30%)`);

  // The cap: a store cannot ask for more than the platform allows.
  const { storeSendRate } = await import('../../../src/services/marketing/send-rate.js');
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: 1_000_000 });
  t.equal(await storeSendRate(app.ctx, owner.store.id), app.ctx.config.marketing.sendRateCap);
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: null });
  t.equal(await storeSendRate(app.ctx, owner.store.id), app.ctx.config.marketing.defaultSendRate);
});

t.test('PATCH /admin/store sets marketingSendRate (null = platform default)', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  const patched = await app.request({ method: 'PATCH', url: '/admin/store', ...as, payload: { marketingSendRate: 25 } });
  t.equal(patched.status, 200, patched.raw);
  t.equal(patched.body.data.store.marketingSendRate, 25);
  const { storeSendRate } = await import('../../../src/services/marketing/send-rate.js');
  t.equal(await storeSendRate(app.ctx, owner.store.id), 25);
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', ...as, payload: { marketingSendRate: 0 } })).status, 422);
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', ...as, payload: { marketingSendRate: null } })).body.data.store.marketingSendRate, null);
});
