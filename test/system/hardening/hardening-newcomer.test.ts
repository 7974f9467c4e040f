import t from 'tap';
import { unsubscribeTokenFor } from '../../../src/services/customers/unsubscribe.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

t.test('unsubscribe link in a browser: a page with a button that POSTs; GET still changes nothing', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app, { storeName: 'Fern & <Co>' });
  const [customer] = await app.ctx.db('customers').insert({ storeId: owner.store.id, email: 'pat@example.com', emailMarketing: 'subscribed' }).returning('*');
  const token = unsubscribeTokenFor(app.ctx, customer.id);
  const state = async () => (await app.ctx.db('customers').where({ id: customer.id }).first()).emailMarketing;

  const page = await app.request({ url: `/public/unsubscribe?token=${token}`, headers: HTML });
  t.equal(page.status, 200);
  t.match(page.headers['content-type'], /text\/html/);
  t.match(page.raw, new RegExp(`<form method="post" action="/api/v1/public/unsubscribe\\?token=${token.replace('.', '\\.')}">`));
  t.match(page.raw, /Fern &amp; &lt;Co&gt;/, 'store name escaped');
  t.match(page.raw, /p\*\*\*@example\.com/);
  t.notMatch(page.raw, /<script/i);
  t.match(String(page.headers['content-security-policy']), /default-src 'none'/);
  t.equal(await state(), 'subscribed', 'GET changed nothing');

  const json = await app.request({ url: `/public/unsubscribe?token=${token}` });
  t.equal(json.body.data.emailMarketing, 'subscribed', 'API clients still get JSON');

  const pressed = await app.request({ method: 'POST', url: `/public/unsubscribe?token=${token}`, headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
  t.equal(pressed.status, 200, pressed.raw);
  t.match(pressed.raw, /You are unsubscribed/);
  t.equal(await state(), 'unsubscribed', 'the button unsubscribes');
  const bad = await app.request({ url: '/public/unsubscribe?token=nope.nope', headers: HTML });
  t.equal(bad.status, 422);
  t.match(bad.raw, /not valid/);
});

t.test('newsletter double opt-in: re-subscribe and, with the store setting, new addresses need the emailed link', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app, { storeName: 'Opt Inn' });
  const subscribe = (email: string) =>
    app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', payload: { email, firstName: 'Ann' }, storefrontToken: owner.storefrontToken });
  const marketing = async (email: string) => (await app.ctx.db('customers').where({ storeId: owner.store.id, email }).first())?.emailMarketing;
  const linkFor = async (email: string) => {
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(email) && /Confirm your subscription/.test(m.parsed.subject ?? ''));
    const url = new URL(/https?:\/\/\S+newsletter\/confirm\?token=[\w.-]+/.exec(mail.parsed.text ?? '')![0]);
    return `${url.pathname}${url.search}`;
  };

  // With the store setting off (new stores have it on): a new address subscribes at once.
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { newsletterDoubleOptIn: false }, ...admin(owner) })).status, 200);
  const direct = await subscribe('first@example.com');
  t.same(direct.body.data, { subscribed: true, email: 'first@example.com', emailMarketing: 'subscribed' });
  t.equal(await marketing('first@example.com'), 'subscribed');

  // An address that unsubscribed: pending until its owner confirms.
  await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'first@example.com' }).update({ emailMarketing: 'unsubscribed' });
  const again = await subscribe('first@example.com');
  t.equal(again.status, 200);
  t.same(again.body.data, { status: 'pending_confirmation', email: 'first@example.com' });
  t.equal(await marketing('first@example.com'), 'unsubscribed', 'not subscribed by the call');
  const link = await linkFor('first@example.com');
  const described = await app.request({ url: link });
  t.equal(described.status, 200);
  t.same(described.body.data, { email: 'f***@example.com', emailMarketing: 'unsubscribed', store: { name: 'Opt Inn' } });
  const page = await app.request({ url: link, headers: HTML });
  t.match(page.raw, /<form method="post" action="\/api\/v1\/public\/newsletter\/confirm\?token=/);
  t.equal(await marketing('first@example.com'), 'unsubscribed', 'GET changes nothing');
  const confirmed = await app.request({ method: 'POST', url: link });
  t.equal(confirmed.status, 200, confirmed.raw);
  t.match(confirmed.body.data, { subscribed: true, email: 'f***@example.com', emailMarketing: 'subscribed' });
  t.equal(await marketing('first@example.com'), 'subscribed');
  const row = await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'first@example.com' }).first();
  t.equal(row.emailMarketingSource, 'newsletter_confirmed');
  t.equal((await app.request({ method: 'POST', url: link })).status, 200, 'idempotent');

  // The store setting: every new address confirms first.
  const setting = await app.request({ method: 'PATCH', url: '/admin/store', payload: { newsletterDoubleOptIn: true }, ...admin(owner) });
  t.equal(setting.status, 200, setting.raw);
  const pending = await subscribe('second@example.com');
  t.equal(pending.body.data.status, 'pending_confirmation');
  t.equal(await marketing('second@example.com'), undefined, 'nothing stored before the confirmation');
  const secondLink = await linkFor('second@example.com');
  const html = await app.request({ method: 'POST', url: secondLink, headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
  t.match(html.raw, /You are subscribed/);
  t.equal(await marketing('second@example.com'), 'subscribed');
  t.equal((await subscribe('second@example.com')).body.data.subscribed, true, 'an already subscribed address is not asked again');

  // Tampered and expired links.
  const [body, sig] = secondLink.split('token=')[1]!.split('.');
  for (const bad of [`${body}.${sig}x`, `${body}x.${sig}`, 'nope', '']) {
    const response = await app.request({ method: 'POST', url: `/public/newsletter/confirm?token=${bad}` });
    t.equal(response.status, 422, `${bad}: ${response.raw}`);
  }
});

t.test('search as you type: storefront prefix terms, admin customers inside emails and names', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  for (const title of ['Wool Sweaters', 'Summer Dress', 'Sweatband']) {
    const response = await app.request({ method: 'POST', url: '/admin/products', payload: { title, status: 'active', variants: [{ price: 100 }] }, ...admin(owner) });
    t.equal(response.status, 201);
  }
  const titles = async (q: string) =>
    ((await app.request({ url: `/storefront/products?q=${encodeURIComponent(q)}`, storefrontToken: owner.storefrontToken })).body.data.products as Array<{ title: string }>)
      .map((p) => p.title)
      .sort();
  t.same(await titles('swea'), ['Sweatband', 'Wool Sweaters'], 'swea finds Sweaters (and Sweatband)');
  t.same(await titles('wool swe'), ['Wool Sweaters'], 'every word is required');
  t.same(await titles("sum' & !dre:*|"), ['Summer Dress'], 'query syntax in q is just text');
  t.same(await titles('!!!'), [], 'no words, no matches (and no error)');

  await app.ctx.db('customers').insert([
    { storeId: owner.store.id, email: 'ann.smith@example.com', firstName: 'Ann', lastName: 'Smith' },
    { storeId: owner.store.id, email: 'bo@other.org', firstName: 'Bo', lastName: 'Johannson' },
    { storeId: owner.store.id, email: 'cy@example.com', firstName: null, lastName: null }
  ]);
  const emails = async (q: string) =>
    ((await app.request({ url: `/admin/customers?q=${encodeURIComponent(q)}`, ...admin(owner) })).body.data.customers as Array<{ email: string }>).map((c) => c.email).sort();
  t.same(await emails('example.com'), ['ann.smith@example.com', 'cy@example.com'], 'inside emails');
  t.same(await emails('hanns'), ['bo@other.org'], 'inside names');
  t.same(await emails('Ann Smi'), ['ann.smith@example.com'], 'full name');
  t.same(await emails('50%_'), [], 'LIKE syntax is literal');
  const plan = await app.ctx.db.raw(
    `explain select id from customers where store_id = ? and (lower(email) || ' ' || lower(coalesce(first_name, '')) || ' ' || lower(coalesce(last_name, ''))) like '%example.com%'`,
    [owner.store.id]
  );
  await app.ctx.db.raw('set enable_seqscan = off');
  const indexed = await app.ctx.db.raw(
    `explain select id from customers where (lower(email) || ' ' || lower(coalesce(first_name, '')) || ' ' || lower(coalesce(last_name, ''))) like '%example.com%'`
  );
  t.ok(plan.rows.length > 0);
  t.match(JSON.stringify(indexed.rows), /customers_search_trgm_idx/, 'the trigram index serves the search');
});

t.test('CSV import: unclosed quotes fail with the line, line numbers count blank lines, short rows reported', async (t) => {
  const { importAndWait } = await import('../../helpers/jobs.js');
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  const lines = ['email,first name,last name', 'a@example.com,Ann,One', '', 'b@example.com,"Bo', 'Two",Two', '', '', 'bad-email,C,Three', 'd@example.com,Dee'];
  const job = await importAndWait(app, owner, lines.join('\n'));
  t.equal(job.status, 'completed', job.error ?? '');
  t.same(
    job.result.errors.map((e: { row: number; column: string; message: string }) => [e.row, e.column]),
    [
      [8, 'email'],
      [9, '*']
    ],
    'rows are file lines: blank lines and the quoted newline counted'
  );
  t.match(job.result.errors[1].message, /2 of the header's 3 columns/);
  t.equal(await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first().then((r) => Number(r!.n)), 2);

  const broken = ['email,first name', 'x@example.com,X', 'y@example.com,"Never closed', ...Array.from({ length: 500 }, (_, i) => `z${i}@example.com,Z`)].join('\n');
  const failed = await importAndWait(app, owner, broken);
  t.equal(failed.status, 'failed', 'the import fails instead of swallowing 500 rows');
  t.match(failed.error, /Line 3: a quoted field is never closed/);
  t.equal(await app.ctx.db('customers').where({ storeId: owner.store.id }).whereRaw("email like 'z%'").count('* as n').first().then((r) => Number(r!.n)), 0);
});

t.test('knex warnings (a connection that cannot be acquired) become one JSON log line', async (t) => {
  const { createDb } = await import('../../../src/db/knex.js');
  const { createLogger, knexLog } = await import('../../../src/logger.js');
  const written: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
  const db = createDb('postgres://postgres@127.0.0.1:1/none', { max: 1 }, {}, knexLog(createLogger('warn')));
  try {
    await db.raw('select 1').catch(() => undefined);
  } finally {
    process.stdout.write = stdoutWrite;
    await db.destroy();
  }
  const lines = written.join('').split('\n').filter(Boolean);
  const knexLines = lines.filter((line) => line.includes('"component":"knex"'));
  t.ok(knexLines.length >= 1, `knex lines: ${knexLines.length}`);
  for (const line of knexLines) {
    const parsed = JSON.parse(line) as { err: { message: string } };
    t.notMatch(parsed.err.message, /\n|    at /, 'no stack trace');
  }
  t.ok(lines.every((line) => line.startsWith('{')), 'every line is JSON');
});

t.test('OpenAPI: real success statuses, error responses, error codes, response schemas from joi', async (t) => {
  const Joi = (await import('joi')).default;
  const app = await buildApp(t);
  app.server.route({
    method: 'POST',
    path: '/api/v1/documented',
    options: {
      auth: false,
      tags: ['api'],
      description: 'A route with a joi response schema',
      response: { status: { 201: Joi.object({ thing: Joi.object({ id: Joi.string().uuid().required() }) }) } },
      handler: (_request, h) => h.response({ thing: { id: '00000000-0000-0000-0000-000000000000' } }).code(201)
    }
  });
  const doc = (await app.request({ url: '/openapi.json' })).body;
  const responses = (path: string, method: string) => doc.paths[path][method].responses;
  t.ok(responses('/api/v1/admin/products', 'post')['201'], 'create answers 201');
  t.notOk(responses('/api/v1/admin/products', 'post')['200']);
  t.ok(responses('/api/v1/admin/customers/import', 'post')['202'], 'import answers 202');
  t.ok(responses('/api/v1/admin/products', 'get')['200']);
  for (const code of ['400', '401', '403', '422', '503']) t.ok(responses('/api/v1/admin/products', 'get')[code], `admin list documents ${code}`);
  t.ok(responses('/api/v1/admin/products/{productId}', 'get')['404']);
  t.ok(responses('/api/v1/storefront/products', 'get')['429']);
  t.ok(doc.components.schemas.ErrorCode.enum.includes('method_not_allowed'), '405 method_not_allowed is a listed code');
  t.ok(doc.components.schemas.ErrorCode.enum.includes('secret_unreadable'));
  const documented = responses('/api/v1/documented', 'post')['201'].content['application/json'].schema;
  t.equal(documented.properties.data.properties.thing.properties.id.format, 'uuid', 'the data schema comes from the joi response schema');
});
