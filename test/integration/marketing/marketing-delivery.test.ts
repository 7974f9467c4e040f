import t from 'tap';
import { unsubscribeTokenFor } from '../../../src/services/customers/unsubscribe.js';
import { closeCampaignTransports } from '../../../src/adapters/mail/index.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { settled } from '../../helpers/jobs.js';
import { CampaignSmtp, campaignShop, seedCustomers, waitForCampaign } from '../../helpers/marketing.js';

t.test('2,000 recipients: exactly 2,000 distinct messages although the worker is stopped mid-way and started again', async (t) => {
  const smtp = await new CampaignSmtp().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url, MARKETING_BATCH_SIZE: '200' } });
  const owner = await signupOwner(app);
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: 800 });
  await seedCustomers(app, owner.store.id, 2000, { prefix: 'bulk' });

  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', token: owner.accessToken, storeId: owner.store.id, payload: { subject: 'Hi {{ customer.firstName }}', text: 'Hello' } });
  t.equal(created.status, 202);
  const campaignId = created.body.data.campaign.id;

  const first = await app.startWorkers(['campaigns']);
  while (smtp.accepted.length < 400) await new Promise((resolve) => setTimeout(resolve, 20));
  await first.close();
  const atStop = smtp.accepted.length;
  const midway = (await app.request({ url: `/admin/marketing/campaigns/${campaignId}`, token: owner.accessToken, storeId: owner.store.id })).body.data.campaign;
  t.equal(midway.status, 'sending', 'stopped mid-way');
  t.ok(atStop < 2000, `stopped after ${atStop} messages`);
  t.equal(midway.sent, atStop, 'every accepted message was recorded before the worker stopped');
  t.ok(midway.progress.percent > 0 && midway.progress.percent < 100, 'progress while running');

  await app.startWorkers(['campaigns']);
  const done = await waitForCampaign(app, owner, campaignId, ['sent'], 60_000);
  t.match(done, { recipients: 2000, sent: 2000, failed: 0, skipped: 0 });
  t.equal(smtp.accepted.length, 2000, 'exactly 2,000 messages');
  t.equal(new Set(smtp.accepted.map((m) => m.to)).size, 2000, 'to 2,000 distinct recipients');
  t.equal(new Set(smtp.accepted.map((m) => m.messageId)).size, 2000, 'with 2,000 distinct Message-IDs');
  const counts = await app.ctx.db('campaignRecipients').where({ campaignId }).select('status').count('* as n').groupBy('status');
  t.same(counts.map((c) => [c.status, Number(c.n)]), [['sent', 2000]]);
});

t.test('451 is retried and delivered once; 550 fails and suppresses; an unsubscribe during the send is honoured', async (t) => {
  const smtp = await new CampaignSmtp().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { workers: ['campaigns'], env: { SMTP_URL: smtp.url, MARKETING_BATCH_SIZE: '100' } });
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: 20 });
  await seedCustomers(app, owner.store.id, 60, { prefix: 'r' });

  let greylisted = 0;
  smtp.rcptReply = (address) => {
    if (address === 'r5@example.com' && greylisted++ === 0) return 451;
    if (address === 'r7@example.com') return 550;
    return null;
  };
  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: { subject: 'Hi', text: 'Hello' } });
  const campaignId = created.body.data.campaign.id;

  // The customer who would be sent last unsubscribes once sending has begun (not one of the two
  // whose replies are scripted above: ids are random, and either can sort last).
  while (smtp.accepted.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
  const lastRecipient = await app.ctx
    .db('campaignRecipients as r')
    .join('customers as c', 'c.id', 'r.customerId')
    .where({ 'r.campaignId': campaignId })
    .whereNotIn('c.email', ['r5@example.com', 'r7@example.com'])
    .orderBy('r.customerId', 'desc')
    .first('r.customerId', 'c.email');
  const unsubscribe = await app.request({ method: 'POST', url: '/public/unsubscribe', payload: { token: unsubscribeTokenFor(app.ctx, lastRecipient.customerId) } });
  t.equal(unsubscribe.status, 200);
  t.equal((await app.request({ url: `/admin/marketing/campaigns/${campaignId}`, ...as })).body.data.campaign.status, 'sending', 'unsubscribed while the campaign was sending');

  const done = await waitForCampaign(app, owner, campaignId, ['sent'], 60_000);
  t.match(done, { recipients: 60, sent: 58, failed: 1, skipped: 1, suppressed: 1 });
  t.equal(smtp.accepted.filter((m) => m.to === 'r5@example.com').length, 1, '451 then success: delivered once');
  t.ok(greylisted >= 2, 'the greylisted recipient was tried again');
  t.equal(smtp.accepted.filter((m) => m.to === 'r7@example.com').length, 0);
  t.equal(smtp.accepted.filter((m) => m.to === lastRecipient.email).length, 0, 'unsubscribed after the snapshot: skipped');
  t.equal(smtp.accepted.length, 58);

  const bounced = await app.ctx
    .db('campaignRecipients as r')
    .join('customers as c', 'c.id', 'r.customerId')
    .where({ 'r.campaignId': campaignId, 'c.email': 'r7@example.com' })
    .first('r.status', 'r.suppressed', 'r.error');
  t.match(bounced, { status: 'failed', suppressed: true });
  t.match(bounced.error, /550/);
  t.ok(await app.ctx.db('marketingSuppressions').where({ storeId: owner.store.id, email: 'r7@example.com' }).first(), 'address suppressed');
  const preview = await app.request({ method: 'POST', url: '/admin/marketing/audience/preview', ...as, payload: { audience: {} } });
  t.equal(preview.body.data.count, 58, 'future audiences leave out the suppressed and the unsubscribed');
});

t.test('a campaign cancelled while sending stops: the rest stay unsent and the counts add up', async (t) => {
  const smtp = await new CampaignSmtp().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { workers: ['campaigns'], env: { SMTP_URL: smtp.url, MARKETING_BATCH_SIZE: '20' } });
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: 20 });
  await seedCustomers(app, owner.store.id, 100, { prefix: 'stop' });

  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: { subject: 'Hi', text: 'Hello' } });
  const campaignId = created.body.data.campaign.id;
  while (smtp.accepted.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
  const cancelled = await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${campaignId}/cancel`, ...as });
  t.equal(cancelled.status, 200);
  t.equal(cancelled.body.data.campaign.status, 'cancelled');
  t.ok(cancelled.body.data.campaign.completedAt);

  // Chunks already claimed finish; nothing after them. Once the batch jobs are done nothing more
  // can go out: what the server accepted is all the campaign sent, short of the 100.
  await settled(app, ['campaigns']);
  const sent = smtp.accepted.length;
  t.ok(sent < 100, `stopped after ${sent} of 100`);
  const campaign = (await app.request({ url: `/admin/marketing/campaigns/${campaignId}`, ...as })).body.data.campaign;
  t.match(campaign, { status: 'cancelled', recipients: 100, sent, failed: 0 });
  const unsent = await app.ctx.db('campaignRecipients').where({ campaignId, status: 'cancelled' }).count<{ n: string }[]>('* as n').first();
  t.equal(Number(unsent?.n) + sent, 100, 'every recipient is either sent or cancelled');
  t.equal((await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${campaignId}/cancel`, ...as })).body.error.code, 'campaign_not_cancellable');
});

t.test('a recipient claimed and waiting for its send slot when the campaign is cancelled is not sent', async (t) => {
  // One message a second, one recipient a chunk: the second recipient is claimed, then waits ~1 s.
  const { smtp, app, owner, as } = await campaignShop(t, 1);
  await seedCustomers(app, owner.store.id, 5, { prefix: 'slot' });

  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: { subject: 'Hi', text: 'Hello' } });
  const campaignId = created.body.data.campaign.id;
  const sending = async () => (await app.ctx.db('campaignRecipients').where({ campaignId, status: 'sending' }).select('customerId')).map((r: { customerId: string }) => r.customerId);
  const sentCount = async () => Number((await app.ctx.db('campaignRecipients').where({ campaignId, status: 'sent' }).count('* as n').first())!.n);
  // The first recipient recorded as sent, and the next one claimed (now waiting for its slot).
  let waiting: string | undefined;
  while (!waiting) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if ((await sentCount()) === 1) [waiting] = await sending();
  }
  const cancelled = await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${campaignId}/cancel`, ...as });
  t.equal(cancelled.status, 200);
  const atCancel = smtp.accepted.length;
  t.equal(atCancel, 1);

  await settled(app, ['campaigns']);
  t.equal(smtp.accepted.length, atCancel, 'nothing went out after the cancel answered');
  t.equal((await app.ctx.db('campaignRecipients').where({ campaignId, customerId: waiting }).first()).status, 'cancelled', 'the claimed recipient ends cancelled');
  const campaign = (await app.request({ url: `/admin/marketing/campaigns/${campaignId}`, ...as })).body.data.campaign;
  t.match(campaign, { status: 'cancelled', recipients: 5, sent: 1, failed: 0, skipped: 0, progress: { processed: 1 } });
  const byStatus = await app.ctx.db('campaignRecipients').where({ campaignId }).select('status').count('* as n').groupBy('status').orderBy('status');
  t.same(byStatus.map((c) => [c.status, Number(c.n)]), [['cancelled', 4], ['sent', 1]], 'none left sending');
});

t.test('recipients left in `sending` without a claim expiry (claimed before claims expired) are failed on resume, never sent twice', async (t) => {
  const smtp = await new CampaignSmtp().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  await seedCustomers(app, owner.store.id, 10, { prefix: 'crash' });
  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: { subject: 'Hi', text: 'Hello' } });
  const campaignId = created.body.data.campaign.id;

  // The start job runs, then "a worker" claims two recipients and dies before recording the outcome.
  const { startCampaign } = await import('../../../src/services/marketing/start.js');
  await startCampaign(app.ctx, campaignId);
  const claimed = (await app.ctx.db('campaignRecipients').where({ campaignId }).orderBy('customerId').limit(2).select('customerId')).map((r: { customerId: string }) => r.customerId);
  await app.ctx.db('campaignRecipients').where({ campaignId }).whereIn('customerId', claimed).update({ status: 'sending', attempts: 1 });

  await app.startWorkers(['campaigns']);
  const done = await waitForCampaign(app, owner, campaignId, ['sent']);
  t.match(done, { recipients: 10, sent: 8, failed: 2 });
  t.equal(smtp.accepted.length, 8);
  const emails = (await app.ctx.db('customers').whereIn('id', claimed).pluck('email')) as string[];
  t.equal(smtp.accepted.filter((m) => emails.includes(m.to)).length, 0, 'the two whose fate was unknown got nothing more');
});
