#!/usr/bin/env node
// Zero-setup check (issue #23, "Done means"): drives a running `npm start` through HTTP only and
// prints PASS/FAIL per step. Plain Node 20 ESM, no dependencies, so it runs from a fresh clone.
//
//   BASE_URL     the running server (default http://127.0.0.1:3000)
//   STORAGE_DIR  the server's STORAGE_DIR (default .data/storage, as the server resolves it from its
//                own working directory): without SMTP_URL every mail is an .eml file in STORAGE_DIR/outbox
//   STATE_FILE   where a first run records what it created (default .data/zero-setup-check.json)
//   CHECK_TIMEOUT_MS  how long to wait for a job, a mail or a campaign (default 60000)
//
//   node scripts/zero-setup-check.mjs                # first run: creates and checks everything
//   node scripts/zero-setup-check.mjs --second-run   # after a restart: the first run's data is still there
//
// Exit code 0 when every step passed, 1 otherwise.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { check, expectStatus, httpCheck, sleep } from './lib/http-check.mjs';

const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const API = `${BASE_URL}/api/v1`;
const OUTBOX = path.join(path.resolve(process.env.STORAGE_DIR ?? '.data/storage'), 'outbox');
const STATE_FILE = path.resolve(process.env.STATE_FILE ?? '.data/zero-setup-check.json');
const TIMEOUT_MS = Number(process.env.CHECK_TIMEOUT_MS ?? 60_000);
const SECOND_RUN = process.argv.includes('--second-run');
const RECIPIENTS = 20;

const { step, call, poll, readOutbox, finish } = httpCheck({ api: API, outbox: OUTBOX, timeoutMs: TIMEOUT_MS });

async function health() {
  const response = await call('GET', '/health');
  const data = expectStatus(response, 200, 'GET /health');
  check(data.status === 'ok', `status ${data.status}`);
  return `database ${data.database}, queue ${data.queue} (backends ${JSON.stringify(data.backends)})`;
}

async function firstRun() {
  const run = Date.now().toString(36);
  const state = { run, createdAt: new Date().toISOString(), baseUrl: BASE_URL };
  const owner = {};
  const admin = () => ({ token: owner.accessToken, storeId: owner.storeId });

  await step('health', health);

  if (
    !(await step('signup (POST /auth/signup)', async () => {
      state.email = `zero-${run}@example.com`;
      state.password = 'zero setup check password';
      const data = expectStatus(
        await call('POST', '/auth/signup', {
          body: { firstName: 'Zero', lastName: 'Setup', email: state.email, password: state.password, storeName: `Zero ${run}`, storeSlug: `zero-${run}` }
        }),
        201,
        'signup'
      );
      check(data.accessToken && data.store?.id && data.storefrontToken, 'signup answer lacks accessToken, store or storefrontToken');
      owner.accessToken = data.accessToken;
      owner.storeId = state.storeId = data.store.id;
      return `store ${data.store.id}`;
    }))
  ) {
    return state; // nothing else can run without an account
  }

  await step('create a product (POST /admin/products)', async () => {
    const data = expectStatus(
      await call('POST', '/admin/products', { ...admin(), body: { title: `Zero Mug ${run}`, status: 'active', variants: [{ sku: `ZM-${run}`, price: 1999, inventoryQuantity: 5 }] } }),
      201,
      'create product'
    );
    state.productId = data.product.id;
    state.productSlug = data.product.slug;
    const read = expectStatus(await call('GET', `/admin/products/${state.productId}`, admin()), 200, 'read product back');
    check(read.product.title === `Zero Mug ${run}`, `read back title ${read.product.title}`);
    return `product ${state.productId} (${state.productSlug})`;
  });

  await step('create a storefront token (POST /admin/store/storefront-tokens)', async () => {
    const data = expectStatus(await call('POST', '/admin/store/storefront-tokens', { ...admin(), body: { name: `zero check ${run}` } }), 201, 'create token');
    check(/^swsf_[\w-]{32,}$/.test(data.secret ?? ''), `secret looks wrong: ${data.secret}`);
    state.storefrontTokenId = data.token.id;
    state.storefrontSecret = data.secret;
    return `token ${data.token.id}`;
  });

  await step('storefront product list with ETag, then 304 on If-None-Match', async () => {
    check(state.storefrontSecret, 'no storefront token from the previous step');
    const first = await call('GET', '/storefront/products', { storefront: state.storefrontSecret });
    const data = expectStatus(first, 200, 'GET /storefront/products');
    check(data.products.some((p) => p.slug === state.productSlug), `the new product (${state.productSlug}) is not listed`);
    const etag = first.headers.get('etag');
    check(etag, 'no ETag header');
    const again = await call('GET', '/storefront/products', { storefront: state.storefrontSecret, headers: { 'if-none-match': etag } });
    check(again.status === 304, `If-None-Match ${etag}: expected 304, got ${again.status}`);
    state.storefrontEtag = etag;
    return `ETag ${etag} -> 304`;
  });

  await step(`customer CSV import of ${RECIPIENTS} subscribers completes (POST /admin/customers/import, GET /admin/jobs/{id})`, async () => {
    state.tag = `zero-${run}`;
    state.importedEmails = Array.from({ length: RECIPIENTS }, (_, i) => `zero-${run}-${i + 1}@example.com`);
    const csv = ['email,firstName,lastName,tags,emailMarketing', ...state.importedEmails.map((e, i) => `${e},Zero${i + 1},Check,${state.tag},subscribed`)].join('\n');
    const accepted = expectStatus(await call('POST', '/admin/customers/import', { ...admin(), raw: csv, contentType: 'text/csv' }), 202, 'import');
    state.importJobId = accepted.job.id;
    const job = await poll('import job', async () => {
      const j = expectStatus(await call('GET', `/admin/jobs/${state.importJobId}`, admin()), 200, 'GET job').job;
      return { done: j.status === 'completed' || j.status === 'failed', value: j, state: j.status };
    });
    check(job.status === 'completed', `job ${job.status}: ${job.error ?? ''}`);
    check(job.result?.created === RECIPIENTS && job.result?.invalidRows === 0, `result ${JSON.stringify(job.result)}`);
    const list = expectStatus(await call('GET', `/admin/customers?tag=${encodeURIComponent(state.tag)}&limit=100`, admin()), 200, 'list imported');
    check(list.customers.length === RECIPIENTS, `${list.customers.length} customers carry tag ${state.tag}`);
    return `job ${state.importJobId} completed, ${job.result.created} created`;
  });

  await step('newsletter subscribe; its mail lands in the local outbox (STORAGE_DIR/outbox)', async () => {
    check(state.storefrontSecret, 'no storefront token');
    state.subscriberEmail = `zero-${run}-news@example.com`;
    const seen = new Set((await readOutbox()).map((m) => m.name));
    /** Waits for exactly one new .eml to the subscriber; returns it. */
    const nextMail = async () => {
      const found = await poll(`a new .eml to ${state.subscriberEmail} in ${OUTBOX}`, async () => {
        const mails = (await readOutbox()).filter((m) => !seen.has(m.name) && m.to.includes(state.subscriberEmail));
        return { done: mails.length > 0, value: mails, state: `${mails.length} files` };
      });
      check(found.length === 1, `${found.length} new mails to ${state.subscriberEmail}`);
      seen.add(found[0].name);
      return found[0];
    };
    const data = expectStatus(
      await call('POST', '/storefront/newsletter/subscribe', { storefront: state.storefrontSecret, body: { email: state.subscriberEmail, firstName: 'News' } }),
      200,
      'subscribe'
    );
    const mails = [];
    if (data.status === 'pending_confirmation') {
      // Double opt-in (on by default for new stores): the mail carries the confirm link; POSTing it subscribes.
      const confirmMail = await nextMail();
      mails.push(confirmMail);
      const link = /https?:\/\/\S+?\/api\/v1(\/public\/newsletter\/confirm\?token=[\w.-]+)/.exec(confirmMail.body)?.[1];
      check(link, `no confirm link in ${confirmMail.name}`);
      expectStatus(await call('POST', link), 200, `POST ${link.slice(0, 40)}...`);
    } else {
      check(data.emailMarketing === 'subscribed', `answer ${JSON.stringify(data)}`);
    }
    mails.push(await nextMail()); // the welcome mail
    const list = expectStatus(await call('GET', `/admin/customers?q=${encodeURIComponent(state.subscriberEmail)}`, admin()), 200, 'search subscriber');
    const customer = list.customers.find((c) => c.email === state.subscriberEmail);
    check(customer?.emailMarketing === 'subscribed', `customer ${JSON.stringify(customer)}`);
    state.subscriberMails = mails.map((m) => m.name);
    return `${data.status === 'pending_confirmation' ? 'double opt-in confirmed; ' : ''}${mails.map((m) => `"${m.subject}"`).join(', ')} in ${OUTBOX}`;
  });

  await step(`campaign to ${RECIPIENTS} subscribers delivered exactly once (${RECIPIENTS} new .eml, each recipient once)`, async () => {
    check(state.importedEmails && state.tag, 'no imported subscribers');
    const audience = { filters: { tags: [state.tag] } };
    const preview = expectStatus(await call('POST', '/admin/marketing/audience/preview', { ...admin(), body: { audience } }), 200, 'audience preview');
    check(preview.count === RECIPIENTS, `audience preview counts ${preview.count}`);
    const created = expectStatus(
      await call('POST', '/admin/marketing/campaigns/generic', {
        ...admin(),
        headers: { 'idempotency-key': `zero-${run}` },
        body: { subject: `Zero setup ${run} for {{ customer.firstName }}`, text: 'Hello {{ customer.firstName }}, nothing was installed.', audience }
      }),
      202,
      'create campaign'
    );
    state.campaignId = created.campaign.id;
    const campaign = await poll('campaign', async () => {
      const c = expectStatus(await call('GET', `/admin/marketing/campaigns/${state.campaignId}`, admin()), 200, 'GET campaign').campaign;
      return { done: ['sent', 'failed', 'cancelled'].includes(c.status), value: c, state: `${c.status} (${c.sent}/${c.recipients})` };
    });
    check(campaign.status === 'sent', `campaign ${campaign.status}: ${JSON.stringify(campaign)}`);
    check(campaign.recipients === RECIPIENTS && campaign.sent === RECIPIENTS && campaign.failed === 0, `counts ${JSON.stringify(campaign)}`);
    await poll('campaign mail in the outbox', async () => {
      const n = (await readOutbox()).filter((m) => m.campaignId === state.campaignId).length;
      return { done: n >= RECIPIENTS, state: `${n} files` };
    });
    await sleep(3_000); // a duplicate would arrive late: give it time
    const mails = (await readOutbox()).filter((m) => m.campaignId === state.campaignId);
    const to = mails.flatMap((m) => m.to).sort();
    check(mails.length === RECIPIENTS, `${mails.length} .eml files carry X-Campaign-Id ${state.campaignId}`);
    check(new Set(to).size === to.length, `a recipient got more than one: ${to.join(' ')}`);
    check(JSON.stringify(to) === JSON.stringify([...state.importedEmails].sort()), `recipients differ from the imported subscribers: ${to.join(' ')}`);
    check(!to.includes(state.subscriberEmail), 'the newsletter subscriber (outside the audience) got the campaign');
    state.campaignMails = mails.map((m) => m.name).sort();
    return `campaign ${state.campaignId}: ${mails.length} files, ${new Set(to).size} distinct recipients`;
  });

  return state;
}

async function secondRun() {
  let state;
  if (!(await step(`read the first run's state (${STATE_FILE})`, async () => void (state = JSON.parse(await readFile(STATE_FILE, 'utf8')))))) return false;
  console.log(`second run: checking what the run of ${state.createdAt} (${state.run}) created`);
  const owner = {};
  const admin = () => ({ token: owner.accessToken, storeId: state.storeId });
  await step('health after restart', health);
  if (
    !(await step('log in as the first run\'s owner (POST /auth/login)', async () => {
      const data = expectStatus(await call('POST', '/auth/login', { body: { email: state.email, password: state.password } }), 200, 'login');
      check(data.memberships.some((m) => m.storeId === state.storeId), 'the store is not among the memberships');
      owner.accessToken = data.accessToken;
    }))
  ) {
    return true;
  }
  await step('the product still exists (admin and storefront)', async () => {
    check(state.productId, 'the first run created no product');
    const data = expectStatus(await call('GET', `/admin/products/${state.productId}`, admin()), 200, 'GET product');
    check(data.product.slug === state.productSlug, `slug ${data.product.slug}`);
    const sf = await call('GET', `/storefront/products/${state.productSlug}`, { storefront: state.storefrontSecret });
    expectStatus(sf, 200, 'storefront product with the first run\'s token');
    const list = await call('GET', '/storefront/products', { storefront: state.storefrontSecret, headers: { 'if-none-match': state.storefrontEtag } });
    check([200, 304].includes(list.status), `storefront list: ${list.status}`);
    return `storefront list with the first run's ETag: ${list.status}${list.status === 304 ? ' (ETag stable across restart)' : ''}`;
  });
  await step('the import job and its customers still exist', async () => {
    const job = expectStatus(await call('GET', `/admin/jobs/${state.importJobId}`, admin()), 200, 'GET job').job;
    check(job.status === 'completed', `job ${job.status}`);
    const list = expectStatus(await call('GET', `/admin/customers?tag=${encodeURIComponent(state.tag)}&limit=100`, admin()), 200, 'list');
    check(list.customers.length === state.importedEmails.length, `${list.customers.length} customers with tag ${state.tag}`);
  });
  await step('the newsletter subscriber is still subscribed; its mail is still in the outbox', async () => {
    const list = expectStatus(await call('GET', `/admin/customers?q=${encodeURIComponent(state.subscriberEmail)}`, admin()), 200, 'search');
    const customer = list.customers.find((c) => c.email === state.subscriberEmail);
    check(customer, `${state.subscriberEmail} not found`);
    check(customer.emailMarketing === 'subscribed', `emailMarketing ${customer.emailMarketing}`);
    const names = new Set((await readOutbox()).map((m) => m.name));
    const gone = (state.subscriberMails ?? []).filter((n) => !names.has(n));
    check(state.subscriberMails?.length && !gone.length, `mail gone from ${OUTBOX}: ${gone.join(' ')}`);
  });
  await step('the campaign is still sent, and the restart delivered nothing again', async () => {
    const campaign = expectStatus(await call('GET', `/admin/marketing/campaigns/${state.campaignId}`, admin()), 200, 'GET campaign').campaign;
    check(campaign.status === 'sent' && campaign.sent === RECIPIENTS, `campaign ${JSON.stringify(campaign)}`);
    await sleep(5_000); // let restarted workers pick up anything they (wrongly) think is pending
    const names = (await readOutbox()).filter((m) => m.campaignId === state.campaignId).map((m) => m.name).sort();
    check(JSON.stringify(names) === JSON.stringify(state.campaignMails), `${names.length} campaign files now, ${state.campaignMails?.length} after the first run`);
  });
  return true;
}

console.log(`zero-setup check against ${API}; outbox ${OUTBOX}; state ${STATE_FILE}${SECOND_RUN ? ' (second run)' : ''}`);
if (SECOND_RUN) {
  await secondRun();
} else {
  const state = await firstRun();
  await mkdir(path.dirname(STATE_FILE), { recursive: true });
  await writeFile(STATE_FILE, JSON.stringify(state, null, 2));
}
finish();
