import type { Owner, TestApp } from './app.js';

/** Polls GET /admin/jobs/{id} until the job is completed or failed (or the deadline passes). */
export async function waitForJob(app: TestApp, owner: Owner, jobId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await app.request({ url: `/admin/jobs/${jobId}`, token: owner.accessToken, storeId: owner.store.id });
    if (response.status !== 200) throw new Error(`job lookup failed: ${response.status} ${response.raw}`);
    const job = response.body.data.job;
    if (job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function importCsv(app: TestApp, owner: Owner, csv: string | Buffer, query = '') {
  return app.request({
    method: 'POST',
    url: `/admin/customers/import${query}`,
    payload: csv,
    token: owner.accessToken,
    storeId: owner.store.id,
    headers: { 'content-type': 'text/csv' }
  });
}

/** Imports and waits: the finished job. */
export async function importAndWait(app: TestApp, owner: Owner, csv: string | Buffer, query = '') {
  const response = await importCsv(app, owner, csv, query);
  if (response.status !== 202) throw new Error(`import refused: ${response.status} ${response.raw}`);
  return waitForJob(app, owner, response.body.data.job.id);
}

export async function customerByEmail(app: TestApp, storeId: string, email: string) {
  return app.ctx.db('customers').where({ storeId }).whereRaw('lower(email) = ?', [email.toLowerCase()]).first();
}

type QueueName = Parameters<TestApp['ctx']['queues']['get']>[0];

/** Jobs of these queues still to run, running or delayed; the schedulers' next runs (`repeat:…`) aside. */
async function pendingJobs(app: TestApp, queues: readonly QueueName[]): Promise<number> {
  const lists = await Promise.all(queues.map((name) => app.ctx.queues.get(name).getJobs(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'])));
  return lists.flat().filter((job) => job && !String(job.id).startsWith('repeat:')).length;
}

/**
 * Waits until the work a test set off is done: nothing left in the outbox, and no job of `queues`
 * waiting, running or delayed. A job's own outbox rows commit before it completes, and a mail or
 * webhook is recorded by the test's server before the job completes, so once this resolves nothing
 * more arrives: a test asserts "no second email" on this instead of sleeping and hoping.
 */
export async function settled(app: TestApp, queues: readonly QueueName[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const before = await pendingJobs(app, queues);
    const relayed = await app.ctx.outbox.drain();
    const after = await pendingJobs(app, queues);
    const outbox = Number((await app.ctx.db('outbox').count('* as n').first())?.n ?? 0);
    if (!before && !relayed && !after && !outbox) return;
    if (Date.now() > deadline) throw new Error(`work still pending after ${timeoutMs} ms: ${after} job(s) in ${queues.join(', ')}, ${outbox} outbox row(s)`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
