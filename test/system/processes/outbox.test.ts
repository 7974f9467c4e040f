import { spawn } from 'node:child_process';
import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { needsSingleRedis } from '../../helpers/backends.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';
import { OutboxRelay } from '../../../src/platform/outbox/relay.js';
import { enqueueJob } from '../../../src/platform/outbox/enqueue.js';
import { sendEmailJob } from '../../../src/jobs/send-email.js';
import type { Queues } from '../../../src/jobs/queues.js';

const REDIS = { host: '127.0.0.1', port: 6379 };

async function until(check: () => Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test('with Redis down, subscribe and forgot-password answer 200 and their mail goes out once Redis is back', { skip: needsSingleRedis }, async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const proxy = await new TcpProxy(REDIS).start();
  t.teardown(() => proxy.stop());
  const app = await buildApp(t, { workers: true, env: { SMTP_URL: smtp.url, REDIS_URL: proxy.url, OUTBOX_POLL_MS: '200' } });
  const owner = await signupOwner(app);

  await proxy.stop();
  const subscribe = await app.request({
    method: 'POST',
    url: '/storefront/newsletter/subscribe',
    storefrontToken: owner.storefrontToken,
    payload: { email: 'offline@example.com' }
  });
  t.equal(subscribe.status, 200, subscribe.raw);
  const forgot = await app.request({ method: 'POST', url: '/auth/forgot-password', payload: { email: owner.email } });
  t.equal(forgot.status, 200, forgot.raw);
  t.ok(Number((await app.ctx.db('outbox').count('* as n').first())?.n) >= 2, 'both job intents wait in the outbox');
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.equal(smtp.messages.length, 0, 'nothing can be sent while Redis is down');

  await proxy.start();
  await smtp.waitFor((m) => m.envelopeTo.includes('offline@example.com'));
  await smtp.waitFor((m) => m.envelopeTo.includes(owner.email));
  await until(async () => Number((await app.ctx.db('outbox').count('* as n').first())!.n) === 0, 20_000, 'the outbox to drain');
  const log = await app.ctx.db('emailLog').where({ toEmail: 'offline@example.com' }).first();
  await until(async () => (await app.ctx.db('emailLog').where({ id: log.id }).first()).status === 'sent', 10_000, 'the log row to say sent');
  const reset = smtp.messages.find((m) => m.envelopeTo.includes(owner.email))!;
  t.match(reset.parsed.text ?? '', /reset-password\?token=/);
  const jobs = await app.ctx.queues.get('email').getJobs(['completed', 'waiting', 'active', 'delayed', 'failed']);
  t.notOk(
    jobs.some((job) => JSON.stringify(job.data).includes('reset-password')),
    'the reset link (its plain token) never travelled through the queue'
  );
});

t.test('a test send whose queue hangs answers 503 before the route timeout, and is not sent when the queue comes back', { skip: needsSingleRedis }, async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const proxy = await new TcpProxy(REDIS).start();
  t.teardown(() => proxy.stop());
  const app = await buildApp(t, { workers: true, env: { SMTP_URL: smtp.url, REDIS_URL: proxy.url } });
  const owner = await signupOwner(app);
  await app.ctx.queues.eventsFor('email');

  // Redis takes requests and never answers: the relay's add hangs while it holds the outbox row.
  proxy.hold();
  const started = Date.now();
  const response = await app.request({
    method: 'POST',
    url: '/admin/store/email/test',
    token: owner.accessToken,
    storeId: owner.store.id,
    payload: { toEmail: 'held@example.com' }
  });
  const tookMs = Date.now() - started;
  t.equal(response.status, 503, response.raw);
  t.equal(response.body.error.code, 'service_unavailable', 'our answer, not hapi\'s route timeout');
  t.ok(tookMs < 20_000, `answered in ${tookMs} ms, before hapi's 25 s timeout`);
  const log = await app.ctx.db('emailLog').where({ toEmail: 'held@example.com' }).first();
  t.match(log, { status: 'withdrawn', error: /withdrawn/ });

  // Redis answers again: the stuck relay finishes its add, and the worker runs the job, which sends nothing.
  proxy.release();
  await until(async () => Number((await app.ctx.db('outbox').count('* as n').first())!.n) === 0, 20_000, 'the outbox to drain');
  const job = await app.ctx.queues.get('email').getJob(log.id);
  if (job) {
    await until(async () => (await job.getState()) === 'completed', 20_000, 'the relayed job to run');
    t.same(JSON.parse(JSON.stringify((await app.ctx.queues.get('email').getJob(log.id))!.returnvalue)), { messageId: '', acceptedCount: 0 }, 'the job ran and sent nothing');
  }
  // A later send goes through, so the worker was up all along: it had the chance to send and did not.
  const later = await app.request({
    method: 'POST',
    url: '/admin/store/email/test',
    token: owner.accessToken,
    storeId: owner.store.id,
    payload: { toEmail: 'later@example.com' }
  });
  t.equal(later.status, 200, later.raw);
  t.equal(smtp.messages.filter((m) => m.envelopeTo.includes('held@example.com')).length, 0, 'the withdrawn send never went out');
  t.equal((await app.ctx.db('emailLog').where({ id: log.id }).first()).status, 'withdrawn');
});

t.test('a relay that dies between adding to BullMQ and deleting its rows loses nothing and doubles nothing', async (t) => {
  const app = await buildApp(t);
  await app.ctx.outbox.stop(); // this test drives relays by hand
  const ids: string[] = [];
  await app.ctx.db.transaction(async (trx) => {
    for (let i = 0; i < 30; i++) {
      const { jobId } = await enqueueJob(trx, sendEmailJob, {
        emailLogId: crypto.randomUUID(),
        storeId: null,
        templateKey: 'password_reset'
      });
      ids.push(jobId);
    }
  });

  // The dying relay: its adds reach Redis, then the process is gone before the delete commits.
  const dying = {
    get: (name: 'email') => {
      const queue = app.ctx.queues.get(name);
      return {
        addBulk: async (jobs: Parameters<typeof queue.addBulk>[0]) => {
          await queue.addBulk(jobs.slice(0, 17));
          throw new Error('killed mid-way');
        }
      };
    }
  } as unknown as Queues;
  const killed = new OutboxRelay(app.ctx.db, dying, app.ctx.config.databaseUrl, app.ctx.log, { pollMs: 60_000, batchSize: 500 });
  await t.rejects(killed.drain(), /killed mid-way/);
  t.equal(Number((await app.ctx.db('outbox').count('* as n').first())!.n), 30, 'every row is still in the outbox');

  const survivor = new OutboxRelay(app.ctx.db, app.ctx.queues, app.ctx.config.databaseUrl, app.ctx.log, { pollMs: 60_000, batchSize: 7 });
  t.equal(await survivor.drain(), 30);
  t.equal(Number((await app.ctx.db('outbox').count('* as n').first())!.n), 0);
  const queued = await app.ctx.queues.get('email').getJobs(['waiting', 'prioritized', 'delayed']);
  t.equal(queued.length, 30, 'one BullMQ job per row: the 17 added twice were not doubled');
  t.same(new Set(queued.map((job) => job.id)), new Set(ids));
});

t.test('a write that rolls back leaves no job behind', async (t) => {
  const app = await buildApp(t);
  await t.rejects(
    app.ctx.db.transaction(async (trx) => {
      await enqueueJob(trx, sendEmailJob, { emailLogId: crypto.randomUUID(), storeId: null, templateKey: 'password_reset' });
      throw new Error('the order could not be saved');
    })
  );
  await app.ctx.outbox.drain();
  t.equal(Number((await app.ctx.db('outbox').count('* as n').first())!.n), 0);
  t.equal((await app.ctx.queues.get('email').getJobs(['waiting', 'prioritized'])).length, 0);
});

t.test('a payload that does not fit its job kind is refused at the producer', async (t) => {
  const app = await buildApp(t);
  await t.rejects(enqueueJob(app.ctx.db, sendEmailJob, { to: 'x@example.com' } as never), /invalid payload for job send-email/);
  await t.rejects(
    enqueueJob(app.ctx.db, sendEmailJob, { emailLogId: crypto.randomUUID(), storeId: null, templateKey: null, to: 'x@example.com' }),
    /invalid payload for job send-email/,
    'an address in the clear is refused: email jobs carry ids and a sealed message'
  );
  await t.rejects(
    enqueueJob(app.ctx.db, sendEmailJob, { emailLogId: crypto.randomUUID(), storeId: null, templateKey: null }, { jobId: 'a:b' }),
    /cannot contain ':'/
  );
});

t.test('the producing process relays its job at commit, long before the poll', async (t) => {
  const app = await buildApp(t, { env: { OUTBOX_POLL_MS: '60000' } });
  const owner = await signupOwner(app);
  const started = Date.now();
  const response = await app.request({ method: 'POST', url: '/admin/customers/export', token: owner.accessToken, storeId: owner.store.id });
  t.equal(response.status, 202);
  await until(async () => Boolean(await app.ctx.queues.get('imports').getJob(response.body.data.job.id)), 5_000, 'the export job in BullMQ');
  t.ok(Date.now() - started < 5_000);
});

t.test('schedules: registering twice keeps one scheduler per kind, and stale ones are removed', async (t) => {
  const app = await buildApp(t);
  const { registerSchedules } = await import('../../../src/workers/schedules.js');
  const queue = app.ctx.queues.get('maintenance');
  await queue.upsertJobScheduler('a-kind-that-was-removed', { every: 60_000 }, { name: 'a-kind-that-was-removed', data: {} });
  await registerSchedules(app.ctx, ['maintenance']);
  await registerSchedules(app.ctx, ['maintenance']);
  const schedulers = await queue.getJobSchedulers();
  const { JOB_KINDS } = await import('../../../src/jobs/registry.js');
  const scheduled = JOB_KINDS.filter((kind) => kind.schedule && kind.queue === 'maintenance').map((kind) => kind.name);
  t.same(schedulers.map((s) => s.key).sort(), scheduled.sort(), 'one scheduler per scheduled kind; the removed kind is gone');
  const next = await queue.getJobs(['delayed', 'waiting', 'prioritized']);
  t.equal(next.filter((job) => job.name === 'job-runs-sweep').length, 1, 'one pending run, not one per registration');
});

t.test('the sweep fails job runs whose BullMQ job is gone, and leaves live ones alone', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const lost = await app.request({ method: 'POST', url: '/admin/customers/export', token: owner.accessToken, storeId: owner.store.id });
  const live = await app.request({ method: 'POST', url: '/admin/customers/export', token: owner.accessToken, storeId: owner.store.id });
  await app.ctx.outbox.drain();
  await app.ctx.queues.get('imports').remove(lost.body.data.job.id);
  const { sweepLostJobRuns } = await import('../../../src/services/job-history/sweep.js');
  t.same(await sweepLostJobRuns(app.ctx, { quietForMs: -1_000 }), { failed: 1 });
  const rows = await app.ctx.db('jobs').whereIn('id', [lost.body.data.job.id, live.body.data.job.id]);
  t.match(rows.find((r) => r.id === lost.body.data.job.id), { status: 'failed', error: /lost by the queue/ });
  t.match(rows.find((r) => r.id === live.body.data.job.id), { status: 'queued' });
});

t.test('a producer without a running relay wakes the relay of another process by NOTIFY', async (t) => {
  const app = await buildApp(t, { env: { OUTBOX_POLL_MS: '60000' } });
  const owner = await signupOwner(app);
  // A second process on the same database: its own pool and relay.
  const { createContext, openContext, closeContext } = await import('../../../src/context.js');
  const { MODULES } = await import('../../../src/installed-modules.js');
  const other = createContext(app.ctx.config, { modules: MODULES, dbPoolMax: 2 });
  await openContext(other);
  t.teardown(() => closeContext(other));
  await app.ctx.outbox.stop();
  const response = await app.request({ method: 'POST', url: '/admin/customers/export', token: owner.accessToken, storeId: owner.store.id });
  t.equal(response.status, 202);
  await until(async () => Boolean(await app.ctx.queues.get('imports').getJob(response.body.data.job.id)), 5_000, 'the other relay to move the job');
});

t.test('an invite link travels sealed: neither the outbox nor the queue holds it, the mail does', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url, OUTBOX_POLL_MS: '60000' } });
  const owner = await signupOwner(app);
  await app.ctx.outbox.stop(); // hold the job in the outbox to look at it
  const invited = await app.request({
    method: 'POST',
    url: '/admin/store/team/invites',
    token: owner.accessToken,
    storeId: owner.store.id,
    payload: { email: 'newcomer@example.com', role: 'staff' }
  });
  t.equal(invited.status, 201, invited.raw);
  const rows = await app.ctx.db('outbox').select('payload');
  t.equal(rows.length, 1);
  t.notMatch(JSON.stringify(rows[0].payload), /accept-invite/, 'the outbox row holds no link');
  const relay = new OutboxRelay(app.ctx.db, app.ctx.queues, app.ctx.config.databaseUrl, app.ctx.log, { pollMs: 60_000, batchSize: 10 });
  await relay.drain();
  const [job] = await app.ctx.queues.get('email').getJobs(['waiting', 'prioritized']);
  t.notMatch(JSON.stringify(job!.data), /accept-invite/, 'the queued job holds no link');
  await app.startWorkers(['email']);
  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('newcomer@example.com'));
  t.match(mail.parsed.text ?? '', /accept-invite\?token=/);
});

t.test('a relay process killed (SIGKILL) mid-way loses nothing and doubles nothing', async (t) => {
  const app = await buildApp(t);
  await app.ctx.outbox.stop(); // only the child relays until it dies
  const ids: string[] = [];
  await app.ctx.db.transaction(async (trx) => {
    for (let i = 0; i < 2_000; i++) {
      const { jobId } = await enqueueJob(trx, sendEmailJob, { emailLogId: crypto.randomUUID(), storeId: null, templateKey: 'password_reset' });
      ids.push(jobId);
    }
  });
  const child = spawn(process.execPath, ['dist/test/helpers/relay-child.js'], {
    env: { ...process.env, DATABASE_URL: app.ctx.config.databaseUrl, REDIS_PREFIX: app.ctx.config.redisPrefix, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit']
  });
  const queue = app.ctx.queues.get('email');
  const queued = () => queue.getJobCountByTypes('waiting', 'prioritized');
  await until(async () => (await queued()) >= 300, 20_000, 'the child to relay a part');
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const left = Number((await app.ctx.db('outbox').count('* as n').first())?.n);
  t.ok(left > 0 && left < 2_000, `killed mid-way (${left} rows left)`);

  const survivor = new OutboxRelay(app.ctx.db, app.ctx.queues, app.ctx.config.databaseUrl, app.ctx.log, { pollMs: 60_000, batchSize: 500 });
  await survivor.drain();
  t.equal(Number((await app.ctx.db('outbox').count('* as n').first())?.n), 0);
  t.equal(await queued(), 2_000, 'exactly one job per row');
  const jobs = await queue.getJobs(['waiting', 'prioritized'], 0, 2_000);
  t.same(new Set(jobs.map((job) => job.id)), new Set(ids));
});
