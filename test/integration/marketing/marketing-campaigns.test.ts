import { simpleParser } from 'mailparser';
import t from 'tap';
import { unsubscribeTokenFor } from '../../../src/services/customers/unsubscribe.js';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { CampaignSmtp, campaignShop, seedCustomers, waitForCampaign } from '../../helpers/marketing.js';

function headersOf(raw: string) {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  return (name: string) => head.split(/\r?\n/).find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim();
}

async function create(app: TestApp, owner: Owner, type: string, payload: unknown) {
  const response = await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${type}`, token: owner.accessToken, storeId: owner.store.id, payload });
  if (response.status !== 202) throw new Error(`create ${type}: ${response.status} ${response.raw}`);
  return response.body.data.campaign;
}

/** Subject, text and html of a captured message, decoded. */
async function contentOf(raw: string) {
  const parsed = await simpleParser(raw);
  return { subject: parsed.subject ?? '', text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '' };
}

const recipientsOf = (smtp: CampaignSmtp, campaignId: string) =>
  smtp.accepted.filter((m) => headersOf(m.raw)('X-Campaign-Id') === campaignId).map((m) => m.to).sort();

t.test('each campaign type picks its audience; headers, footer, one-click unsubscribe, clicks and cancel', async (t) => {
  const { smtp, app, owner, as } = await campaignShop(t, 1000);

  await seedCustomers(app, owner.store.id, 3, { prefix: 'new' });
  await seedCustomers(app, owner.store.id, 2, { prefix: 'lapsed', ordersCount: 2, totalSpent: 5000, lastOrderDaysAgo: 200 });
  await seedCustomers(app, owner.store.id, 2, { prefix: 'recent', ordersCount: 1, totalSpent: 1000, lastOrderDaysAgo: 10 });
  await seedCustomers(app, owner.store.id, 1, { prefix: 'gone', emailMarketing: 'unsubscribed', ordersCount: 3, lastOrderDaysAgo: 300 });
  await seedCustomers(app, owner.store.id, 1, { prefix: 'never', emailMarketing: 'not_subscribed' });
  const everyone = ['lapsed1', 'lapsed2', 'new1', 'new2', 'new3', 'recent1', 'recent2'].map((p) => `${p}@example.com`);

  // Newsletter: every subscribed customer; html link tracked; headers and footer.
  const newsletter = await create(app, owner, 'newsletter', {
    subject: 'News for {{ customer.firstName }}',
    html: '<p>Hello {{ customer.firstName }}</p><p><a href="https://example.com/sale?a=1&b=2">Sale</a></p>',
    text: 'Hello {{ customer.firstName }}, the sale is on (https://example.com/sale?a=1&b=2).'
  });
  t.match(newsletter, { type: 'newsletter', status: 'scheduled' });
  const sentNewsletter = await waitForCampaign(app, owner, newsletter.id, ['sent']);
  t.match(sentNewsletter, { recipients: 7, sent: 7, failed: 0, skipped: 0, suppressed: 0, unsubscribes: 0, clicks: 0 });
  t.ok(sentNewsletter.startedAt && sentNewsletter.completedAt);
  t.same(recipientsOf(smtp, newsletter.id), everyone);

  const mail = smtp.accepted.find((m) => m.to === 'new1@example.com' && headersOf(m.raw)('X-Campaign-Id') === newsletter.id)!;
  const header = headersOf(mail.raw);
  t.match(header('Subject'), 'News for First1');
  const listUnsubscribe = String(header('List-Unsubscribe'));
  t.match(listUnsubscribe, /^<http:\/\/shop\.test\/api\/v1\/public\/unsubscribe\?token=[\w-]+\.[\w-]+>$/);
  t.equal(header('List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
  const unsubscribeUrl = new URL(listUnsubscribe.slice(1, -1));
  const content = await contentOf(mail.raw);
  const body = content.html;
  t.ok(content.text.includes(unsubscribeUrl.toString()), 'the text part links it too');
  t.ok(body.includes(unsubscribeUrl.toString()), 'footer links the same unsubscribe URL');
  t.notMatch(body, /https:\/\/example\.com\/sale/, 'the link is rewritten');
  const clickUrl = /href="(http:\/\/shop\.test\/api\/v1\/public\/c\/[^"]+)"/.exec(body)?.[1];
  t.ok(clickUrl, 'tracked link present');
  t.notMatch(content.text, /https:\/\/example\.com\/sale/, 'the text part link is rewritten too');
  const textClickUrl = /\((http:\/\/shop\.test\/api\/v1\/public\/c\/[^\s)]+)\)\./.exec(content.text)?.[1];
  t.ok(textClickUrl, 'tracked text link, the punctuation around it kept outside');
  const textClick = await app.request({ url: new URL(textClickUrl!).pathname });
  t.equal(textClick.status, 302);
  t.equal(textClick.headers.location, 'https://example.com/sale?a=1&b=2', 'the text link redirects to the same URL');

  const click = await app.request({ url: new URL(clickUrl!).pathname });
  t.equal(click.status, 302);
  t.equal(click.headers.location, 'https://example.com/sale?a=1&b=2', 'redirects to the signed URL only');
  // Link scanners probe with HEAD: the same answer, but no click.
  const probed = await app.request({ method: 'HEAD', url: new URL(clickUrl!).pathname });
  t.equal(probed.status, 302);
  t.equal(probed.headers.location, 'https://example.com/sale?a=1&b=2');
  t.equal((await app.request({ method: 'HEAD', url: '/public/c/garbage' })).status, 404);
  const token = new URL(clickUrl!).pathname.split('/').pop()!;
  const [payload, signature] = token.split('.') as [string, string];
  const forged = Buffer.from(JSON.stringify(JSON.parse(Buffer.from(payload, 'base64url').toString()).map((v: unknown, i: number) => (i === 2 ? 'https://evil.example' : v)))).toString('base64url');
  t.equal((await app.request({ url: `/public/c/${forged}.${signature}` })).status, 404, 'tampered URL');
  t.equal((await app.request({ url: `/public/c/${payload}.${signature.slice(0, -2)}AA` })).status, 404, 'tampered signature');
  t.equal((await app.request({ url: '/public/c/garbage' })).status, 404);

  // RFC 8058 one-click POST to the header's URL unsubscribes and is attributed to this campaign.
  const oneClick = await app.request({
    method: 'POST',
    url: `${unsubscribeUrl.pathname}${unsubscribeUrl.search}`,
    payload: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' }
  });
  t.equal(oneClick.status, 200, oneClick.raw);
  t.equal((await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'new1@example.com' }).first()).emailMarketing, 'unsubscribed');
  const afterResults = (await app.request({ url: `/admin/marketing/campaigns/${newsletter.id}`, ...as })).body.data.campaign;
  t.match(afterResults, { unsubscribes: 1, clicks: 2 }, "both clicks counted (html and text link), the HEAD not");

  // Old customers: orders, none in 90 days, still subscribed; the discount code is in the context.
  await app.request({ method: 'POST', url: '/admin/discounts', ...as, payload: { code: 'COMEBACK', type: 'percentage', value: 10 } });
  const oldCustomers = await create(app, owner, 'old-customers', { subject: 'We miss you', text: 'Use {{ discountCode }}', discountCode: 'comeback' });
  await waitForCampaign(app, owner, oldCustomers.id, ['sent']);
  t.same(recipientsOf(smtp, oldCustomers.id), ['lapsed1@example.com', 'lapsed2@example.com']);
  t.match((await contentOf(smtp.accepted.find((m) => headersOf(m.raw)('X-Campaign-Id') === oldCustomers.id)!.raw)).text, /Use COMEBACK/);
  const narrower = await create(app, owner, 'old-customers', { subject: 'x', text: 'x', inactiveDays: 365 });
  t.equal((await waitForCampaign(app, owner, narrower.id, ['sent'])).recipients, 0, 'nobody inactive that long');
  t.equal((await app.request({ method: 'POST', url: '/admin/marketing/campaigns/old-customers', ...as, payload: { subject: 'x', text: 'x', discountCode: 'NOPE' } })).status, 422);

  // Generic with a list and a filter, from a saved template.
  const newIds = (await app.ctx.db('customers').where({ storeId: owner.store.id }).whereIn('email', ['new2@example.com', 'recent1@example.com', 'gone1@example.com']).pluck('id')) as string[];
  const list = (await app.request({ method: 'POST', url: '/admin/marketing/lists', ...as, payload: { name: 'Picked', customerIds: newIds } })).body.data.list;
  const template = (await app.request({ method: 'POST', url: '/admin/marketing/templates', ...as, payload: { name: 'T', subject: 'Picked ✓ {{ customer.lastName }} — été, a long subject that needs more than one encoded word', text: 'Hi ✓' } })).body.data.template;
  const generic = await create(app, owner, 'generic', { templateId: template.id, audience: { listIds: [list.id] } });
  await waitForCampaign(app, owner, generic.id, ['sent']);
  t.same(recipientsOf(smtp, generic.id), ['new2@example.com', 'recent1@example.com'], 'list members, subscribed only');
  const unicode = await contentOf(smtp.accepted.find((m) => headersOf(m.raw)('X-Campaign-Id') === generic.id)!.raw);
  t.match(unicode.subject, /^Picked ✓ Last\d — été, a long subject that needs more than one encoded word$/, 'non-ASCII subject survives encoding');
  t.equal(unicode.text.split('\n')[0], 'Hi ✓');
  const filtered = await create(app, owner, 'generic', { subject: 's', text: 't', audience: { listIds: [list.id], filters: { minOrders: 1 } } });
  await waitForCampaign(app, owner, filtered.id, ['sent']);
  t.same(recipientsOf(smtp, filtered.id), ['recent1@example.com']);

  // Product and collection announcements put the catalog item in the context.
  const product = (await app.request({
    method: 'POST',
    url: '/admin/products',
    ...as,
    payload: { title: 'Blue Mug', status: 'active', variants: [{ title: 'Default', price: 1250, sku: 'MUG-1', inventoryQuantity: 5 }] }
  })).body.data.product;
  t.ok(product?.id, 'product created');
  const announcement = await create(app, owner, 'product-announcement', { productId: product.id, audience: { filters: { minOrders: 1 } } });
  await waitForCampaign(app, owner, announcement.id, ['sent']);
  t.same(recipientsOf(smtp, announcement.id), ['lapsed1@example.com', 'lapsed2@example.com', 'recent1@example.com', 'recent2@example.com']);
  const announced = smtp.accepted.find((m) => headersOf(m.raw)('X-Campaign-Id') === announcement.id)!;
  t.match(headersOf(announced.raw)('Subject'), /Blue Mug/);
  t.match((await contentOf(announced.raw)).text, /12\.50/);

  const collection = (await app.request({ method: 'POST', url: '/admin/collections', ...as, payload: { title: 'Mugs', productIds: [product.id], isPublished: true } })).body.data.collection;
  t.ok(collection?.id, 'collection created');
  const collectionCampaign = await create(app, owner, 'collection-announcement', { collectionId: collection.id, subject: 'See {{ collection.title }}', text: '{{ collection.products[0].title }}', audience: { listIds: [list.id] } });
  await waitForCampaign(app, owner, collectionCampaign.id, ['sent']);
  t.same(recipientsOf(smtp, collectionCampaign.id), ['new2@example.com', 'recent1@example.com']);
  const collectionMail = await contentOf(smtp.accepted.find((m) => headersOf(m.raw)('X-Campaign-Id') === collectionCampaign.id)!.raw);
  t.equal(collectionMail.subject, 'See Mugs');
  t.match(collectionMail.text, /Blue Mug/);
  t.equal((await app.request({ method: 'POST', url: '/admin/marketing/campaigns/product-announcement', ...as, payload: { productId: '00000000-0000-4000-8000-000000000000' } })).status, 404);

  // Validation: content is a template or inline; Liquid errors are 422; unknown keys are 422.
  t.equal((await app.request({ method: 'POST', url: '/admin/marketing/campaigns/generic', ...as, payload: { audience: {} } })).status, 422);
  t.equal((await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: { subject: '{% if %}', text: 'x' } })).status, 422);
  t.equal((await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: { subject: 's', text: 'x', audience: {} } })).status, 422);

  // Cancel: a scheduled campaign stops; a finished one is not cancellable.
  const later = await create(app, owner, 'newsletter', { subject: 'Later', text: 'x', sendAt: new Date(Date.now() + 3_600_000).toISOString() });
  t.equal(later.status, 'scheduled');
  t.ok(later.sendAt);
  const cancelled = await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${later.id}/cancel`, ...as });
  t.equal(cancelled.status, 200);
  t.equal(cancelled.body.data.campaign.status, 'cancelled');
  const again = await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${later.id}/cancel`, ...as });
  t.equal(again.status, 409);
  t.equal(again.body.error.code, 'campaign_not_cancellable');
  t.equal((await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${newsletter.id}/cancel`, ...as })).body.error.code, 'campaign_not_cancellable');

  const listed = await app.request({ url: '/admin/marketing/campaigns?limit=100', ...as });
  t.equal(listed.status, 200);
  t.equal(listed.body.data.campaigns.length, 8);
  t.equal((await app.request({ url: '/admin/marketing/campaigns?status=cancelled', ...as })).body.data.campaigns.length, 1);
  const other = await signupOwner(app);
  t.equal((await app.request({ url: `/admin/marketing/campaigns/${newsletter.id}`, token: other.accessToken, storeId: other.store.id })).status, 404);
  t.equal((await app.request({ method: 'POST', url: `/admin/marketing/campaigns/${later.id}/cancel`, token: other.accessToken, storeId: other.store.id })).status, 404);
});

t.test('an unsubscribe counts for the campaign whose link was used, once, and survives a re-subscribe', async (t) => {
  const { smtp, app, owner, as } = await campaignShop(t, 1000);
  const [customerId] = await seedCustomers(app, owner.store.id, 2, { prefix: 'attr' });

  const first = await create(app, owner, 'newsletter', { subject: 'First', text: 'one' });
  await waitForCampaign(app, owner, first.id, ['sent']);
  const second = await create(app, owner, 'newsletter', { subject: 'Second', text: 'two' });
  await waitForCampaign(app, owner, second.id, ['sent']);
  const linkOf = (campaignId: string) => {
    const mail = smtp.accepted.find((m) => m.to === 'attr1@example.com' && headersOf(m.raw)('X-Campaign-Id') === campaignId)!;
    const url = new URL(String(headersOf(mail.raw)('List-Unsubscribe')).slice(1, -1));
    return `${url.pathname}${url.search}`;
  };
  t.not(linkOf(first.id), linkOf(second.id), "each campaign's email carries its own link");
  const unsubscribes = async (campaignId: string) => (await app.request({ url: `/admin/marketing/campaigns/${campaignId}`, ...as })).body.data.campaign.unsubscribes;
  const oneClick = (url: string) =>
    app.request({ method: 'POST', url, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });

  // The older email's link, used after the newer one arrived: the older campaign gets it.
  t.equal((await oneClick(linkOf(first.id))).status, 200);
  t.equal((await oneClick(linkOf(first.id))).status, 200, 'repeated');
  t.equal(await unsubscribes(first.id), 1, 'credited to the campaign whose link was used, once');
  t.equal(await unsubscribes(second.id), 0, 'not to the last campaign received');

  const resubscribed = await app.request({ method: 'PATCH', url: `/admin/customers/${customerId}`, ...as, payload: { emailMarketing: 'subscribed' } });
  t.equal(resubscribed.status, 200, resubscribed.raw);
  t.equal(await unsubscribes(first.id), 1, 'a re-subscribe does not take it back');
  t.equal((await oneClick(linkOf(first.id))).status, 200, 'the same link again, after the re-subscribe');
  t.equal((await app.ctx.db('customers').where({ id: customerId }).first()).emailMarketing, 'unsubscribed');
  t.equal(await unsubscribes(first.id), 1, 'still counted once');

  // A link that names no campaign (older emails, the welcome email) still unsubscribes, crediting none.
  await app.request({ method: 'PATCH', url: `/admin/customers/${customerId}`, ...as, payload: { emailMarketing: 'subscribed' } });
  const plain = await app.request({ method: 'POST', url: '/public/unsubscribe', payload: { token: unsubscribeTokenFor(app.ctx, customerId!) } });
  t.equal(plain.status, 200, plain.raw);
  t.equal((await app.ctx.db('customers').where({ id: customerId }).first()).emailMarketing, 'unsubscribed');
  t.same([await unsubscribes(first.id), await unsubscribes(second.id)], [1, 0]);

  // A campaign link signed for another customer or campaign is refused.
  const [body, signature] = linkOf(second.id).split('token=')[1]!.split('.') as [string, string];
  const swapped = Buffer.concat([Buffer.from(body, 'base64url').subarray(0, 16), Buffer.from(first.id.replace(/-/g, ''), 'hex')]).toString('base64url');
  t.equal((await app.request({ method: 'POST', url: '/public/unsubscribe', payload: { token: `${swapped}.${signature}` } })).status, 422);
});

t.test("a store's template overrides a transactional key and adds its own keys (module registry)", async (t) => {
  const smtp = await new CampaignSmtp().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  await app.request({ method: 'POST', url: '/admin/marketing/templates', ...as, payload: { key: 'newsletter_welcome', name: 'Welcome', subject: 'Our own welcome to {{ store.name }}', text: 'Hi {{ customer.firstName }}' } });
  await app.request({ method: 'POST', url: '/admin/marketing/templates', ...as, payload: { key: 'vip_note', name: 'VIP', subject: 'VIP {{ customer.firstName }}', text: 'x' } });

  const overridden = await app.request({ method: 'POST', url: '/admin/store/email/test-template', ...as, payload: { toEmail: 'me@example.com', templateKey: 'newsletter_welcome' } });
  t.equal(overridden.status, 200, overridden.raw);
  const own = await app.request({ method: 'POST', url: '/admin/store/email/test-template', ...as, payload: { toEmail: 'me@example.com', templateKey: 'vip_note' } });
  t.equal(own.status, 200, own.raw);
  const subjects = await Promise.all(smtp.accepted.map(async (m) => (await contentOf(m.raw)).subject));
  t.same(subjects.sort(), [`Our own welcome to ${owner.store.name}`, 'VIP Jane'].sort());
  const unknown = await app.request({ method: 'POST', url: '/admin/store/email/test-template', ...as, payload: { toEmail: 'me@example.com', templateKey: 'nope' } });
  t.equal(unknown.status, 422);
  t.match(unknown.body.error.message, /vip_note/);
});
