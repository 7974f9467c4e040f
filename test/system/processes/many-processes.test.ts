import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { deleteRedisKeys } from '../../helpers/app.js';
import { createTestDatabase, dropTestDatabase } from '../../helpers/databases.js';
import { call, pidsConnectedTo, spawnProcess, until, waitHealthy, type AppProcess } from '../../helpers/processes.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

/**
 * Issue #27 part 4: two `web` and two `worker` processes (the Procfile's entry points, real child
 * processes) on one database and one Redis key prefix (whatever REDIS_URL this run has), driven
 * through HTTP only. Nothing here knows
 * how the processes share state (Redis keys, pub/sub, locks): only environment variables and the API.
 */

// Four processes boot on a 2-core machine that other work shares; the work itself takes well under a minute.
t.setTimeout(360_000);

const RECIPIENTS = 2_000;
const IMPORT_ROWS = 40_000;

const name = `sw_test_procs_${process.pid}`;
const databaseUrl = await createTestDatabase(name);
const storageDir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-procs-'));
const smtp = await new SmtpCapture().start();
const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const env: Record<string, string> = {
  NODE_ENV: 'test',
  DATABASE_URL: databaseUrl,
  REDIS_PREFIX: `swt:${name}`,
  STORAGE_DIR: storageDir,
  SMTP_URL: smtp.url,
  ALLOW_PRIVATE_SMTP_HOSTS: 'true',
  APP_URL: 'http://shop.test',
  PASSWORD_HASH_COST: '1024',
  // A killed worker's jobs are found stalled within a few seconds, not half a minute.
  JOB_LOCK_MS: '2000',
  // Campaign batches small enough that both workers take some.
  MARKETING_BATCH_SIZE: '100',
  MARKETING_CLAIM_TIMEOUT_MS: '5000',
  // The shared limit under test: 4 sign-ups of one address an hour, from any client, on any web process.
  RATE_LIMIT_NEWSLETTER_PER_EMAIL: '4',
  TRUST_PROXY: '1',
  // Each web process keeps storefront tokens in its own cache this long: only the revoke reaching the
  // other process (not expiry) can make it refuse the token within a second.
  STOREFRONT_CACHE_TTL_MS: '60000'
};
const processes: AppProcess[] = [];
t.teardown(async () => {
  for (const p of processes) await p.kill('SIGKILL');
  await db.end();
  await smtp.stop();
  await dropTestDatabase(name);
  // The children inherit REDIS_URL as it is (unset: the default Redis here; with the PostgreSQL
  // adapters, their shared state lives in the test database, which is dropped above).
  await deleteRedisKeys(process.env.REDIS_URL ?? '', `swt:${name}:*`);
  await rm(storageDir, { recursive: true, force: true });
});

const bootStarted = Date.now();
const webA = await spawnProcess('web', 'web A', env);
const webB = await spawnProcess('web', 'web B', env);
const workerA = await spawnProcess('worker', 'worker A', env);
const workerB = await spawnProcess('worker', 'worker B', env);
processes.push(webA, webB, workerA, workerB);
await Promise.all([waitHealthy(webA), waitHealthy(webB)]);
t.comment(`2 web + 2 worker processes up in ${Date.now() - bootStarted} ms`);

interface Owner {
  accessToken: string;
  storefrontToken: string;
  store: { id: string };
}

let owners = 0;
async function signup(web: AppProcess): Promise<Owner & { as: { token: string; storeId: string } }> {
  owners += 1;
  const tag = `${process.pid}x${owners}`;
  const response = await call(web, {
    method: 'POST',
    path: '/auth/signup',
    body: { firstName: 'Olivia', lastName: 'Owner', email: `owner${tag}@example.com`, password: 'correct horse battery', storeName: `Store ${tag}`, storeSlug: `store-${tag}` }
  });
  if (response.status !== 201) throw new Error(`signup: ${response.status} ${response.text}`);
  const owner = response.body.data as Owner;
  return { ...owner, as: { token: owner.accessToken, storeId: owner.store.id } };
}

const count = async (sql: string, params: unknown[]) => Number((await db.query(sql, params)).rows[0].n);

t.test('a storefront token revoked through one web process is refused by the other within a second', async (t) => {
  const owner = await signup(webA);
  const created = await call(webA, { method: 'POST', path: '/admin/store/storefront-tokens', body: { name: 'Mobile app' }, ...owner.as });
  t.equal(created.status, 201, created.text);
  const { secret } = created.body.data;
  const tokenId = created.body.data.token.id;
  // Web B has seen the token work (and so may hold it in its own cache) before it is revoked.
  for (let i = 0; i < 3; i++) t.equal((await call(webB, { path: '/storefront/store', storefrontToken: secret })).status, 200, 'web B accepts it');

  const revoked = await call(webA, { method: 'POST', path: `/admin/store/storefront-tokens/${tokenId}/revoke`, ...owner.as });
  t.equal(revoked.status, 200, revoked.text);
  const at = Date.now();
  let status = 200;
  while (status === 200 && Date.now() - at < 5_000) {
    status = (await call(webB, { path: '/storefront/store', storefrontToken: secret })).status;
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const took = Date.now() - at;
  t.equal(status, 401, 'web B refuses the revoked token');
  t.ok(took < 1_000, `within a second of the revoke (${took} ms)`);
  t.equal((await call(webA, { path: '/storefront/store', storefrontToken: secret })).status, 401, 'and so does web A');
  t.equal((await call(webB, { path: '/storefront/store', storefrontToken: owner.storefrontToken })).status, 200, "the store's other token still works on web B");
});

t.test('a rate limit holds across both web processes: the newsletter per-address limit counts sign-ups on either', async (t) => {
  const owner = await signup(webB);
  // The limit counts in fixed one-hour windows: do not straddle the turn of one.
  const intoHour = (Date.now() / 1000) % 3600;
  if (intoHour > 3590) await new Promise((resolve) => setTimeout(resolve, (3600 - intoHour) * 1000 + 100));
  const subscribe = (web: AppProcess, i: number) =>
    call(web, { method: 'POST', path: '/storefront/newsletter/subscribe', body: { email: 'shared.limit@example.com' }, storefrontToken: owner.storefrontToken, headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } });
  const statuses: string[] = [];
  const order = [webA, webB, webA, webB, webA, webB];
  for (const [i, web] of order.entries()) statuses.push(`${web.name}:${(await subscribe(web, i)).status}`);
  t.same(
    statuses,
    ['web A:200', 'web B:200', 'web A:200', 'web B:200', 'web A:429', 'web B:429'],
    'four sign-ups of one address an hour in all: each process saw only two when both refused'
  );
  const other = await subscribe(webA, 9);
  t.equal(other.status, 429, 'still refused');
  const fresh = await call(webB, { method: 'POST', path: '/storefront/newsletter/subscribe', body: { email: 'another@example.com' }, storefrontToken: owner.storefrontToken });
  t.equal(fresh.status, 200, 'another address is not limited');
});

t.test(`a campaign to ${RECIPIENTS} recipients, with both workers taking its batches, reaches each exactly once`, async (t) => {
  const owner = await signup(webA);
  t.equal((await call(webB, { method: 'PATCH', path: '/admin/store', body: { marketingSendRate: 2_000 }, ...owner.as })).status, 200);
  await db.query(
    `insert into customers (store_id, email, first_name, last_name, email_marketing)
     select $1, 'rcpt' || n || '@example.com', 'First' || n, 'Last' || n, 'subscribed' from generate_series(1, $2::int) as n`,
    [owner.store.id, RECIPIENTS]
  );
  await db.query(
    `insert into customers (store_id, email, first_name, last_name, email_marketing)
     select $1, 'nope' || n || '@example.com', 'No', 'Consent', 'unsubscribed' from generate_series(1, 50) as n`,
    [owner.store.id]
  );
  const started = Date.now();
  const created = await call(webB, { method: 'POST', path: '/admin/marketing/campaigns/newsletter', body: { subject: 'Spring news for {{ customer.firstName }}', text: 'Hello' }, ...owner.as });
  t.equal(created.status, 202, created.text);
  const campaignId = created.body.data.campaign.id;

  let campaign: any;
  const webs = [webA, webB];
  let polls = 0;
  // Which worker processes hold SMTP connections while it sends (their pools stay open between batches).
  const senders = new Set<number>();
  let ssWorks = true;
  const done = await until(async () => {
    const pids = await pidsConnectedTo(smtp.port);
    if (pids === null) ssWorks = false;
    for (const pid of pids ?? []) senders.add(pid);
    // Progress read through either web process in turn.
    const response = await call(webs[polls++ % 2]!, { path: `/admin/marketing/campaigns/${campaignId}`, ...owner.as });
    campaign = response.body.data?.campaign;
    return campaign?.status === 'sent';
  }, 150_000, 250);
  t.ok(done, `the campaign finished (${JSON.stringify(campaign)})`);
  t.comment(`${RECIPIENTS} messages in ${Date.now() - started} ms`);
  t.match(campaign, { recipients: RECIPIENTS, sent: RECIPIENTS, failed: 0, skipped: 0 });
  if (ssWorks) {
    t.same([workerA, workerB].filter((w) => !senders.has(w.child.pid!)).map((w) => w.name), [], 'both worker processes were sending');
  } else {
    t.comment('`ss` is not available here: which workers sent is not checked (delivery counts still are)');
  }

  // The SMTP sink: every consenting customer exactly once, nobody else.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const perAddress = new Map<string, number>();
  for (const mail of smtp.messages) {
    if (!/^Spring news/.test(mail.parsed.subject ?? '')) continue;
    for (const to of mail.envelopeTo) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
  }
  const missing: string[] = [];
  const doubled: string[] = [];
  for (let n = 1; n <= RECIPIENTS; n++) {
    const got = perAddress.get(`rcpt${n}@example.com`) ?? 0;
    if (got === 0) missing.push(`rcpt${n}`);
    if (got > 1) doubled.push(`rcpt${n}×${got}`);
  }
  t.same(missing, [], 'nothing lost');
  t.same(doubled, [], 'nothing doubled');
  t.equal([...perAddress.values()].reduce((a, b) => a + b, 0), RECIPIENTS, 'and nobody else got one');
  t.equal(await count(`select count(*) as n from campaign_recipients where campaign_id = $1 and status = 'sent'`, [campaignId]), RECIPIENTS, 'every recipient recorded sent');
});

function customersCsv(prefix: string, rows: number): string {
  const lines = ['email,firstName,lastName,tags'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}${i}@example.com,First${i},Last${i},t${i % 7}`);
  return lines.join('\n') + '\n';
}

t.test('two CSV imports, one worker killed (SIGKILL) mid-way: both complete with exactly the right customers', async (t) => {
  const shops = [await signup(webA), await signup(webB)];
  const started = Date.now();
  const jobs: string[] = [];
  for (const [i, shop] of shops.entries()) {
    const response = await call(i === 0 ? webA : webB, { method: 'POST', path: '/admin/customers/import', raw: customersCsv(`imp${i}-`, IMPORT_ROWS), contentType: 'text/csv', ...shop.as });
    t.equal(response.status, 202, response.text);
    jobs.push(response.body.data.job.id);
  }
  const job = async (i: number) => (await call(i === 0 ? webB : webA, { path: `/admin/jobs/${jobs[i]}`, ...shops[i]!.as })).body.data.job;

  // An import runs one at a time per worker: both active means each worker holds one. Kill one of
  // them once both have applied some rows and neither has finished.
  let states: any[] = [];
  const midway = await until(async () => {
    states = [await job(0), await job(1)];
    return states.every((s) => s.status === 'active' && Number(s.progress.processedRows ?? 0) > 0);
  }, 90_000, 25);
  t.ok(midway, `both imports under way (${JSON.stringify(states.map((s) => [s.status, s.progress]))})`);
  await workerA.kill('SIGKILL');
  const atKill = [await job(0), await job(1)];
  t.comment(`killed worker A at ${atKill.map((s) => `${s.status} ${s.progress.processedRows ?? 0}/${IMPORT_ROWS}`).join(', ')}`);
  t.ok(atKill.some((s) => s.status !== 'completed'), 'the kill landed before both imports were done');

  const finished: any[] = [];
  for (const i of [0, 1]) {
    let state: any;
    await until(async () => {
      state = await job(i);
      return state.status === 'completed' || state.status === 'failed';
    }, 120_000, 200);
    finished.push(state);
  }
  t.comment(`both imports done ${Date.now() - started} ms after upload`);
  for (const [i, state] of finished.entries()) {
    t.equal(state.status, 'completed', state.error ?? '');
    t.match(state.result, { totalRows: IMPORT_ROWS, validRows: IMPORT_ROWS, invalidRows: 0, created: IMPORT_ROWS, updated: 0, unchanged: 0 }, `import ${i + 1}: every row applied once`);
    const storeId = shops[i]!.store.id;
    t.equal(await count('select count(*) as n from customers where store_id = $1', [storeId]), IMPORT_ROWS, `store ${i + 1} has exactly the imported customers`);
    t.equal(await count(`select count(distinct lower(email)) as n from customers where store_id = $1 and email like $2`, [storeId, `imp${i}-%`]), IMPORT_ROWS, 'one per email, all from its own file');
    const last = await call(webA, { path: `/admin/customers?q=${encodeURIComponent(`imp${i}-${IMPORT_ROWS - 1}@example.com`)}`, ...shops[i]!.as });
    t.equal(last.status, 200, last.text);
    t.equal(last.body.data.customers?.length, 1, 'the last row is found through the API');
  }
});
