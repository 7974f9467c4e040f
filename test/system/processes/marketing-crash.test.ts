import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { sendCampaignBatch } from '../../../src/services/marketing/send-batch.js';
import { startCampaign } from '../../../src/services/marketing/start.js';
import { closeCampaignTransports } from '../../../src/adapters/mail/index.js';
import { buildApp, signupOwner, type Teardownable, type TestApp } from '../../helpers/app.js';
import { seedCustomers, waitForCampaign } from '../../helpers/marketing.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

async function smtpShop(t: Teardownable, env: Record<string, string>, smtpOptions: { delayMs?: number } = {}) {
  const smtp = await new SmtpCapture(smtpOptions).start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url, ...env } });
  const owner = await signupOwner(app);
  return { smtp, app, owner, as: { token: owner.accessToken, storeId: owner.store.id } };
}

async function newsletter(app: TestApp, as: { token: string; storeId: string }): Promise<string> {
  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: { subject: 'Hi {{ customer.firstName }}', text: 'Hello' } });
  if (created.status !== 202) throw new Error(created.raw);
  return created.body.data.campaign.id;
}

/** How many messages each address got. */
function deliveries(smtp: SmtpCapture): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mail of smtp.messages) for (const to of mail.envelopeTo) counts.set(to, (counts.get(to) ?? 0) + 1);
  return counts;
}

// A child process boots slowly on a busy machine, and a crashed worker's jobs are found after a few lock periods.
t.setTimeout(300_000);

const statusCount = async (app: TestApp, campaignId: string, status: string) =>
  Number((await app.ctx.db('campaignRecipients').where({ campaignId, status }).count('* as n').first())!.n);

t.test('a campaign worker killed (SIGKILL) mid-batch loses no one: after a restart every consenting recipient has exactly one message', async (t) => {
  const env = { MARKETING_BATCH_SIZE: '60', MARKETING_CLAIM_TIMEOUT_MS: '3000', JOB_LOCK_MS: '2000' };
  const { smtp, app, owner, as } = await smtpShop(t, env);
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate: 40 });
  await seedCustomers(app, owner.store.id, 240, { prefix: 'yes' });
  await seedCustomers(app, owner.store.id, 30, { prefix: 'no', emailMarketing: 'unsubscribed' });
  const campaignId = await newsletter(app, as);

  const child = spawn(process.execPath, ['dist/test/helpers/campaign-worker-child.js'], {
    env: {
      ...process.env,
      ...env,
      DATABASE_URL: app.ctx.config.databaseUrl,
      REDIS_PREFIX: app.ctx.config.redisPrefix,
      SMTP_URL: smtp.url,
      APP_URL: app.ctx.config.appUrl,
      ALLOW_PRIVATE_SMTP_HOSTS: 'true',
      LOG_LEVEL: 'silent'
    },
    stdio: ['ignore', 'ignore', 'inherit']
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  t.ok(await until(() => smtp.messages.length >= 40, 120_000), 'the child worker is sending');

  // The server stops answering: what is in flight now is not accepted, and the child holds claims.
  smtp.hanging = true;
  t.ok(await until(() => smtp.unanswered > 0, 10_000), 'messages in flight, unanswered');
  const accepted = smtp.messages.length;
  t.ok(await until(async () => (await statusCount(app, campaignId, 'sent')) === accepted, 3_000), 'every accepted message is recorded sent before the worker moves on');
  t.equal(await statusCount(app, campaignId, 'sent'), accepted);
  const claimed = await statusCount(app, campaignId, 'sending');
  t.ok(claimed > 0, `the worker holds ${claimed} claimed, unsent recipients`);

  child.kill('SIGKILL');
  await exited;
  smtp.hanging = false;
  t.equal(smtp.messages.length, accepted, 'nothing accepted after the kill');
  t.ok(accepted < 240, `killed mid-campaign, after ${accepted} of 240`);

  // A fresh worker: BullMQ finds the killed worker's batch jobs stalled and runs them again.
  const restarted = Date.now();
  await app.startWorkers(['campaigns']);
  const done = await waitForCampaign(app, owner, campaignId, ['sent'], 120_000);
  t.comment(`resumed and finished in ${Date.now() - restarted} ms`);
  t.match(done, { recipients: 240, sent: 240, failed: 0, skipped: 0 });
  const got = deliveries(smtp);
  const consenting = Array.from({ length: 240 }, (_v, i) => `yes${i + 1}@example.com`);
  t.same(consenting.filter((email) => got.get(email) !== 1), [], 'every consenting recipient got exactly one message');
  t.equal(smtp.messages.length, 240, 'and nobody else got any');
  t.same(
    (await app.ctx.db('campaignRecipients').where({ campaignId }).select('status').count('* as n').groupBy('status')).map((r) => [r.status, Number(r.n)]),
    [['sent', 240]]
  );
});

t.test('a run still alive keeps its claims past the claim timeout: a second run of the same batch waits for them and sends no one twice', async (t) => {
  // Each message takes the server 2.5 s to accept, longer than the 1 s claim timeout.
  const { smtp, app, owner, as } = await smtpShop(t, { MARKETING_CLAIM_TIMEOUT_MS: '1000' }, { delayMs: 2_500 });
  await seedCustomers(app, owner.store.id, 6, { prefix: 'slow' });
  const campaignId = await newsletter(app, as);
  await startCampaign(app.ctx, campaignId);

  const first = sendCampaignBatch(app.ctx, campaignId, 0);
  t.ok(await until(async () => (await statusCount(app, campaignId, 'sending')) === 6, 5_000), 'the first run claimed all six');
  // BullMQ runs the job again (it judged it stalled) while the first run still waits on the server.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.equal(smtp.messages.length, 0, 'nothing accepted yet');
  const second = await sendCampaignBatch(app.ctx, campaignId, 0);
  t.equal(await statusCount(app, campaignId, 'sent'), 6, 'the second run ended only once the first had recorded all six');
  t.match(await first, { sent: 6 });
  t.match(second, { sent: 0 });
  t.equal(smtp.messages.length, 6, 'six messages');
  t.same([...deliveries(smtp).values()], [1, 1, 1, 1, 1, 1], 'one per recipient');
  t.match(await waitForCampaign(app, owner, campaignId, ['sent']), { recipients: 6, sent: 6, failed: 0 });
});

t.test('claims of a run that died go back to pending once they expire and are sent once; on a cancelled campaign they end cancelled', async (t) => {
  const { smtp, app, owner, as } = await smtpShop(t, {});
  await seedCustomers(app, owner.store.id, 10, { prefix: 'dead' });
  const campaignId = await newsletter(app, as);
  await startCampaign(app.ctx, campaignId);

  // A run that died held four: two claims already expired, two that expire in 1.5 s.
  const firstIds = async (id: string, n: number) =>
    (await app.ctx.db('campaignRecipients').where({ campaignId: id }).orderBy('customerId').limit(n).select('customerId')).map((r: { customerId: string }) => r.customerId);
  const ids = await firstIds(campaignId, 4);
  const claim = (customerIds: string[], expiresInMs: number) =>
    app.ctx.db.raw(
      `update campaign_recipients set status = 'sending', attempts = 1, claim_token = ?, claimed_at = now(),
              claim_expires_at = now() + ? * interval '1 millisecond' where campaign_id = ? and customer_id = any(?::uuid[])`,
      [randomUUID(), expiresInMs, campaignId, customerIds]
    );
  await claim(ids.slice(0, 2), -1_000);
  await claim(ids.slice(2), 1_500);

  const started = Date.now();
  const result = await sendCampaignBatch(app.ctx, campaignId, 0);
  t.ok(Date.now() - started >= 1_400, 'the run waited for the live claims to expire');
  t.match(result, { sent: 10 });
  t.equal(smtp.messages.length, 10);
  t.equal(new Set(smtp.messages.map((m) => m.envelopeTo[0])).size, 10, 'each recipient once, the four claimed ones included');
  t.match(await waitForCampaign(app, owner, campaignId, ['sent']), { recipients: 10, sent: 10, failed: 0 });

  // A cancelled campaign: the dead run's claims end cancelled, none stays `sending`.
  const other = await newsletter(app, as);
  await startCampaign(app.ctx, other);
  const otherIds = await firstIds(other, 2);
  await app.ctx.db.raw(
    `update campaign_recipients set status = 'sending', claim_token = ?, claim_expires_at = now() - interval '1 second' where campaign_id = ? and customer_id = any(?::uuid[])`,
    [randomUUID(), other, otherIds]
  );
  t.equal((await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${other}/cancel`, ...as })).status, 200);
  t.match(await sendCampaignBatch(app.ctx, other, 0), { sent: 0, stopped: 'cancelled' });
  t.same(
    (await app.ctx.db('campaignRecipients').where({ campaignId: other }).select('status').count('* as n').groupBy('status')).map((r) => [r.status, Number(r.n)]),
    [['cancelled', 10]]
  );
  t.equal(smtp.messages.length, 10, 'nothing sent for the cancelled campaign');
});
