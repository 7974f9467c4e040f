import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { QUEUE_NAMES } from '../../../src/jobs/queues.js';

/** The dashboard is outside /api/v1, so straight through server.inject. */
async function get(app: Awaited<ReturnType<typeof buildApp>>, options: { method?: string; url: string; headers?: Record<string, string> }) {
  const response = await app.server.inject({ method: options.method ?? 'GET', url: options.url, headers: options.headers });
  let body: any = response.payload;
  try {
    body = JSON.parse(response.payload);
  } catch {
    // HTML
  }
  return { status: response.statusCode, headers: response.headers, body, raw: response.payload };
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

t.test('bull-board at /admin/queues behind basic auth lists every queue; retry and clean work', async (t) => {
  const app = await buildApp(t, { workers: false, env: { QUEUE_DASHBOARD_USER: 'ops', QUEUE_DASHBOARD_PASSWORD: 'queue-dashboard-password-1234567890' } });
  const auth = { authorization: basic('ops', 'queue-dashboard-password-1234567890') };

  const anonymous = await get(app, { url: '/admin/queues' });
  t.equal(anonymous.status, 401);
  t.match(String(anonymous.headers['www-authenticate']), /^Basic/);
  const wrong = await get(app, { url: '/admin/queues', headers: { authorization: basic('ops', 'nope') } });
  t.equal(wrong.status, 401);
  const wrongUser = await get(app, { url: '/admin/queues/api/queues', headers: { authorization: basic('root', 'queue-dashboard-password-1234567890') } });
  t.equal(wrongUser.status, 401);

  const page = await get(app, { url: '/admin/queues', headers: auth });
  t.equal(page.status, 200);
  t.match(String(page.headers['content-type']), /text\/html/);
  t.match(page.raw, /Shopwright queues|bull/i);

  // Two jobs that fail for good (no processor for their name), to retry and clean from the dashboard.
  const queue = app.ctx.queues.get('maintenance');
  const pool = await app.startWorkers(['maintenance']);
  await queue.add('no-such-kind', {}, { attempts: 1 });
  await queue.add('no-such-kind', {}, { attempts: 1 });
  for (let i = 0; i < 100 && (await queue.getFailedCount()) < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  await pool.close();
  t.equal(await queue.getFailedCount(), 2);

  const list = await get(app, { url: '/admin/queues/api/queues?activeQueue=maintenance&status=latest&page=1', headers: auth });
  t.equal(list.status, 200, list.raw.slice(0, 300));
  t.notOk('success' in list.body, 'bull-board JSON is not wrapped in the API envelope');
  const names = list.body.queues.map((q: any) => q.name).sort();
  t.same(names, [...QUEUE_NAMES].sort(), 'every queue is listed');

  const failedJobs = await queue.getFailed();
  const retry = await get(app, { method: 'PUT', url: `/admin/queues/api/queues/maintenance/${failedJobs[0]!.id}/retry`, headers: auth });
  t.ok(retry.status < 300, `retry answered ${retry.status} ${retry.raw}`);
  t.equal(await queue.getFailedCount(), 1, 'one retried');
  t.equal(await queue.getWaitingCount(), 1);
  const cleanAll = await get(app, { method: 'PUT', url: '/admin/queues/api/queues/maintenance/clean/failed', headers: auth });
  t.ok(cleanAll.status < 300, `clean (older than bull-board's 5 s grace) answered ${cleanAll.status}`);
  const clean = await get(app, { method: 'PUT', url: `/admin/queues/api/queues/maintenance/${failedJobs[1]!.id}/clean`, headers: auth });
  t.ok(clean.status < 300, `clean answered ${clean.status} ${clean.raw}`);
  t.equal(await queue.getFailedCount(), 0, 'the failed job is cleaned');
});

t.test('not mounted without a password', async (t) => {
  const app = await buildApp(t, { workers: false, env: { QUEUE_DASHBOARD_PASSWORD: '' } });
  const response = await get(app, { url: '/admin/queues', headers: { authorization: basic('admin', '') } });
  t.equal(response.status, 404);
  const owner = await signupOwner(app);
  t.ok(owner.accessToken, 'the API is unaffected');
});
