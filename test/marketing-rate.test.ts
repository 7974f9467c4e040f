import t from 'tap';
import { closeCampaignTransports } from '../src/services/marketing/transports.js';
import { buildApp, signupOwner } from './helpers/app.js';
import { CampaignSmtp, seedCustomers, waitForCampaign } from './helpers/marketing.js';

t.test("two worker pools share one store's send rate (measured within 10% of the setting)", async (t) => {
  const smtp = await new CampaignSmtp().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url, MARKETING_BATCH_SIZE: '20' } });
  const owner = await signupOwner(app);
  const rate = 100;
  const patched = await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: rate });
  t.equal(patched, 1);
  await seedCustomers(app, owner.store.id, 400, { prefix: 'rate' });

  const pools = [await app.startWorkers(['campaigns']), await app.startWorkers(['campaigns'])];
  const batchesByPool = [0, 0];
  pools.forEach((pool, i) => pool.workers[0]!.on('completed', (job) => job.name === 'campaign-batch' && (batchesByPool[i] = batchesByPool[i]! + 1)));

  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', token: owner.accessToken, storeId: owner.store.id, payload: { subject: 'Hi', text: 'Hello' } });
  const done = await waitForCampaign(app, owner, created.body.data.campaign.id, ['sent'], 60_000);
  t.equal(done.sent, 400, JSON.stringify(done));
  t.ok(batchesByPool[0]! > 0 && batchesByPool[1]! > 0, `both pools sent batches (${batchesByPool.join(' + ')})`);

  const times = smtp.accepted.map((m) => m.at).sort((a, b) => a - b);
  // Over the middle 90% of arrivals, so the ramp-up and the last stragglers do not skew the rate.
  const from = Math.floor(times.length * 0.05);
  const to = Math.ceil(times.length * 0.95) - 1;
  const measured = ((to - from) * 1000) / (times[to]! - times[from]!);
  t.ok(Math.abs(measured - rate) / rate <= 0.1, `measured ${measured.toFixed(1)} messages/s for a setting of ${rate}`);

  // The cap: a store cannot ask for more than the platform allows.
  const { storeSendRate } = await import('../src/services/marketing/send-rate.js');
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: 1_000_000 });
  t.equal(await storeSendRate(app.ctx, owner.store.id), app.ctx.config.marketing.sendRateCap);
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: null });
  t.equal(await storeSendRate(app.ctx, owner.store.id), app.ctx.config.marketing.defaultSendRate);
});
