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
