import t from 'tap';
import { closeCampaignTransports } from '../../../src/adapters/mail/index.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { NO_REDIS_ENV, REDIS_ENV, redisConfigured } from '../../helpers/backends.js';
import { CampaignSmtp, measuredSendRate, seedCustomers, sendRateKept, waitForCampaign } from '../../helpers/marketing.js';
import { secondProcess } from '../../helpers/second-process.js';

const KINDS = [
  { kind: 'postgres', env: NO_REDIS_ENV, skip: false as const },
  { kind: 'redis', env: REDIS_ENV, skip: redisConfigured ? (false as const) : 'REDIS_URL is unset: the Redis adapters need a Redis' }
];

for (const { kind, env, skip } of KINDS) {
  t.test(`${kind}: a store's send rate holds with campaign workers in two processes`, { skip }, async (t) => {
    const smtp = await new CampaignSmtp().start();
    t.teardown(async () => {
      closeCampaignTransports();
      await smtp.stop();
    });
    const app = await buildApp(t, { workers: ['campaigns'], env: { ...env, SMTP_URL: smtp.url, MARKETING_BATCH_SIZE: '20' } });
    const other = await secondProcess(t, app, { workers: ['campaigns'] });
    const owner = await signupOwner(app);
    const rate = 40;
    await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: rate });
    const ids = await seedCustomers(app, owner.store.id, 200, { prefix: 'two' });
    const batches = [0, 0];
    [app.workers!, other.workers!].forEach((pool, i) => pool.workers[0]!.on('completed', (job) => job.name === 'campaign-batch' && (batches[i] = batches[i]! + 1)));

    // A warm-up campaign (connections, compiled code), then the measured one.
    const as = { token: owner.accessToken, storeId: owner.store.id };
    const list = await app.request({ method: 'POST', url: '/admin/marketing/lists', ...as, payload: { name: 'Warm-up', customerIds: ids.slice(0, 20) } });
    const warmUp = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/generic', ...as, payload: { subject: 'Warm', text: 'up', audience: { listIds: [list.body.data.list.id] } } });
    await waitForCampaign(app, owner, warmUp.body.data.campaign.id, ['sent'], 60_000);
    smtp.accepted.length = 0;
    batches.fill(0);

    const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: { subject: 'Hi', text: 'Hello' } });
    const done = await waitForCampaign(app, owner, created.body.data.campaign.id, ['sent'], 60_000);
    t.equal(done.sent, 200);
    t.equal(smtp.accepted.length, 200, 'two hundred messages arrived');
    t.equal(new Set(smtp.accepted.map((m) => m.to)).size, 200, 'every subscriber exactly once');
    t.ok(batches[0]! > 0 && batches[1]! > 0, `both processes sent batches (${batches.join(' + ')})`);
    const measured = measuredSendRate(smtp.accepted.map((m) => m.at));
    t.ok(sendRateKept(measured, rate), `measured ${measured.toFixed(1)} messages/s for a setting of ${rate} (at most +10%, at least -30%)`);
  });
}
