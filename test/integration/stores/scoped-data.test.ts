import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { importAndWait, waitForJob } from '../../helpers/jobs.js';

async function createKey(app: TestApp, owner: Owner, scopes: string[]): Promise<string> {
  const created = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: scopes.join('+'), scopes }, ...admin(owner) });
  if (created.status !== 201) throw new Error(`key not created: ${created.status} ${created.raw}`);
  return created.body.data.secret;
}

const withKey = (app: TestApp, secret: string, options: { method?: string; url: string; payload?: unknown }) =>
  app.request({ ...options, headers: { authorization: `Bearer ${secret}` } });

/**
 * Issue #31 (3): a `read_jobs` key downloaded the customer export CSV. A job's result is the data
 * it worked on and needs that data's scope, as the job kind declares: an export's file and result
 * and an import's row errors (which quote the file's cells) need read_customers. read_jobs alone
 * still follows the job (status, progress), with the result withheld and the scope named.
 */

// One app for the tests without workers (issue #32); each signs up its own store, so none sees another's
// data. The job tests (workers from the start, or started mid-way) build their own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test("a job's result and file need the scope of its data, not only read_jobs", async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  await app.ctx.db('customers').insert([
    { storeId: owner.store.id, email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
    { storeId: owner.store.id, email: 'alan@example.com', firstName: 'Alan', lastName: 'Turing' }
  ]);
  const jobsOnly = await createKey(app, owner, ['read_jobs']);
  const jobsAndCustomers = await createKey(app, owner, ['read_jobs', 'read_customers']);

  const started = await app.request({ method: 'POST', url: '/admin/customers/export', ...admin(owner) });
  t.equal(started.status, 202);
  const exportJob = await waitForJob(app, owner, started.body.data.job.id);
  t.equal(exportJob.status, 'completed', exportJob.error ?? '');

  const refused = await withKey(app, jobsOnly, { url: `/admin/jobs/${exportJob.id}/download` });
  t.equal(refused.status, 403, 'read_jobs alone does not download the customers');
  t.equal(refused.body.error.code, 'insufficient_scope');
  t.same(refused.body.error.details, [{ path: 'scopes', message: 'requires read_customers' }]);
  t.notMatch(refused.raw, /ada@example\.com/);

  const followed = await withKey(app, jobsOnly, { url: `/admin/jobs/${exportJob.id}` });
  t.equal(followed.status, 200, 'read_jobs still follows the job');
  t.match(followed.body.data.job, { id: exportJob.id, status: 'completed', result: null, resultWithheld: 'read_customers' });
  const listed = await withKey(app, jobsOnly, { url: '/admin/jobs' });
  t.equal(listed.status, 200);
  t.match(listed.body.data.jobs, [{ id: exportJob.id, result: null, resultWithheld: 'read_customers' }], 'the list withholds it too');

  const downloaded = await withKey(app, jobsAndCustomers, { url: `/admin/jobs/${exportJob.id}/download` });
  t.equal(downloaded.status, 200, 'read_jobs with read_customers downloads it');
  t.match(downloaded.raw, /ada@example\.com/);
  const whole = await withKey(app, jobsAndCustomers, { url: `/admin/jobs/${exportJob.id}` });
  t.match(whole.body.data.job.result, { rows: 2 });
  t.notOk('resultWithheld' in whole.body.data.job, 'nothing withheld');
  t.equal((await app.request({ url: `/admin/jobs/${exportJob.id}/download`, ...admin(owner) })).status, 200, 'a member downloads it as before');

  // An import's row errors repeat the file's cells: customer data as well.
  const imported = await importAndWait(app, owner, 'email,first_name\nnot-an-email@,Grace\nlin@example.com,Lin\n');
  t.equal(imported.status, 'completed', imported.error ?? '');
  t.match(JSON.stringify(imported.result.errors), /not-an-email@/, 'the member sees the row errors');
  const importForKey = await withKey(app, jobsOnly, { url: `/admin/jobs/${imported.id}` });
  t.match(importForKey.body.data.job, { status: 'completed', result: null, resultWithheld: 'read_customers' });
  t.notMatch(importForKey.raw, /not-an-email@/);
  const importForReader = await withKey(app, jobsAndCustomers, { url: `/admin/jobs/${imported.id}` });
  t.match(JSON.stringify(importForReader.body.data.job.result.errors), /not-an-email@/);
});

/** Server-sent events as `{ event, data }`, from a stream that has ended. */
const eventsOf = (raw: string) =>
  raw
    .split('\n\n')
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }))
    .filter((e): e is { event: string; data: string } => Boolean(e.event && e.data))
    .map((e) => ({ event: e.event, data: JSON.parse(e.data) }));

/** The job's event stream withholds the result from such a key too, while the job runs and once it ends. */
t.test("a job's event stream withholds its result from a key without the data's scope", async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  await app.ctx.db('customers').insert({ storeId: owner.store.id, email: 'ada@example.com', firstName: 'Ada' });
  const jobsOnly = await createKey(app, owner, ['read_jobs']);
  const started = await app.request({ method: 'POST', url: '/admin/customers/export', ...admin(owner) });
  const jobId = started.body.data.job.id as string;

  // Opened while the job waits for a worker: the stream follows it live, then ends with it.
  const live = withKey(app, jobsOnly, { url: `/admin/jobs/${jobId}/events` });
  const member = app.request({ url: `/admin/jobs/${jobId}/events`, ...admin(owner) });
  await app.startWorkers(['imports']);
  const keyEvents = eventsOf((await live).raw);
  t.equal(keyEvents.at(-1)?.event, 'end', 'the key saw the job end');
  t.match(keyEvents.at(-1)?.data.job, { status: 'completed', result: null, resultWithheld: 'read_customers' });
  t.notOk(keyEvents.some((e) => e.data.job.result !== null), 'no event carried the result');
  t.match(eventsOf((await member).raw).at(-1)?.data.job, { status: 'completed', result: { rows: 1 } }, 'the member saw it');

  // Opened once it is over: answered at once, withheld the same way.
  const finished = eventsOf((await withKey(app, jobsOnly, { url: `/admin/jobs/${jobId}/events` })).raw);
  t.same(finished.map((e) => e.event), ['progress', 'end']);
  t.match(finished[1]?.data.job, { result: null, resultWithheld: 'read_customers' });
});

/**
 * Issue #31 (3): a `marketing` key got customers' emails and names from the audience preview. The
 * count stays under marketing (sizing a campaign); the sample of customers needs read_customers.
 */
t.test("the audience preview's sample needs read_customers; the count does not", async (t) => {
  const owner = await signupOwner(app);
  await app.ctx.db('customers').insert([
    { storeId: owner.store.id, email: 'sub1@example.com', firstName: 'Sue', lastName: 'One', emailMarketing: 'subscribed' },
    { storeId: owner.store.id, email: 'sub2@example.com', firstName: 'Sam', lastName: 'Two', emailMarketing: 'subscribed' }
  ]);
  const preview = { method: 'POST', url: '/admin/marketing/audience/preview', payload: { audience: {} } };

  const marketingOnly = await withKey(app, await createKey(app, owner, ['marketing']), preview);
  t.equal(marketingOnly.status, 200);
  t.same(marketingOnly.body.data, { count: 2 }, 'the count alone');
  t.notMatch(marketingOnly.raw, /example\.com|Sue|Sam/);

  const withCustomers = await withKey(app, await createKey(app, owner, ['marketing', 'read_customers']), preview);
  t.equal(withCustomers.status, 200);
  t.equal(withCustomers.body.data.count, 2);
  t.same(withCustomers.body.data.sample.map((c: { email: string }) => c.email).sort(), ['sub1@example.com', 'sub2@example.com']);

  const member = await app.request({ ...preview, ...admin(owner) });
  t.equal(member.body.data.sample.length, 2, 'a member sees the sample as before');
});

/** A reviewer's email is customer data too: a read_products key moderates reviews without it. */
t.test("a review's email needs read_customers; moderation does not", async (t) => {
  const owner = await signupOwner(app);
  const product = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Kettle', variants: [{ price: 100 }] }, ...admin(owner) });
  const [review] = await app.ctx
    .db('reviews')
    .insert({ storeId: owner.store.id, productId: product.body.data.product.id, email: 'reviewer@example.com', rating: 5, title: 'Great', authorName: 'Rae' })
    .returning('id');

  const products = await createKey(app, owner, ['read_products', 'write_products']);
  const listed = await withKey(app, products, { url: '/admin/reviews' });
  t.equal(listed.status, 200);
  t.equal(listed.body.data.reviews.length, 1);
  t.notOk('email' in listed.body.data.reviews[0], 'no email in the list');
  t.equal(listed.body.data.reviews[0].authorName, 'Rae', 'the public fields stay');
  const moderated = await withKey(app, products, { method: 'PATCH', url: `/admin/reviews/${review.id}/moderation`, payload: { state: 'approved' } });
  t.equal(moderated.status, 200, 'moderates');
  t.equal(moderated.body.data.review.state, 'approved');
  t.notMatch(moderated.raw, /reviewer@example\.com/, 'no email in the answer');

  const readers = await createKey(app, owner, ['read_products', 'read_customers']);
  t.equal((await withKey(app, readers, { url: '/admin/reviews' })).body.data.reviews[0].email, 'reviewer@example.com');
  t.equal((await app.request({ url: '/admin/reviews', ...admin(owner) })).body.data.reviews[0].email, 'reviewer@example.com', 'members as before');
});
