import t from 'tap';
import { sealAudit } from '../../helpers/audit.js';
import { buildApp, signupOwner, addMember, type Owner, type TestApp } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { orderOps } from '../../helpers/order-ops.js';
import { seedCustomers } from '../../helpers/marketing.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

t.setTimeout(300_000);

/** The id of the resource a create answered with (`{ data: { <resource>: { id } } }`). */
const firstId = (body: any): string => (Object.values(body?.data ?? {}).find((value: any) => value && typeof value === 'object' && typeof value.id === 'string') as { id: string } | undefined)?.id ?? '';
const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

/**
 * The write routes a successful call of which may leave its entry outside any change's
 * transaction (`outsideTransaction: true`): they change no row in a transaction of their own, so
 * there is no transaction to put the entry in. Each with why.
 */
const OUTSIDE_TRANSACTION: Record<string, string> = {
  'POST /api/v1/admin/marketing/templates/{templateId}/preview': 'renders a template, changes nothing',
  'POST /api/v1/admin/store/webhooks/{webhookId}/ping': 'enqueues a test delivery',
  'POST /api/v1/admin/store/domain/check': 'looks the domain up, changes nothing when unverified'
};

/** Write routes the walk below does not call successfully (they need a third party), each with why. */
const NOT_WALKED: Record<string, string> = {
  'POST /api/v1/admin/customers/import': 'CSV upload; covered by the import tests through the same wrapper',
  'POST /api/v1/admin/products/import': 'CSV upload; covered by the import tests through the same wrapper',
  'POST /api/v1/admin/products/bulk': 'bulk edits write per-product entries (catalog-scale helper)',
  'POST /api/v1/admin/store/media': 'multipart upload to the storage adapter',
  'POST /api/v1/admin/store/domain/onboarding-link': 'needs the hosted-domain provider',
  'POST /api/v1/admin/store/domain/check': 'needs a custom domain set first',
  'POST /api/v1/admin/store/email/test': 'needs an SMTP server',
  'POST /api/v1/admin/store/email/test-template': 'needs an SMTP server',
  'POST /api/v1/admin/store/external-system/connect': 'needs the external system server',
  'POST /api/v1/admin/store/external-system/disconnect': 'needs the external system server',
  'POST /api/v1/admin/store/external-system/preview': 'needs the external system server',
  'POST /api/v1/admin/store/external-system/sync': 'needs the external system server',
  'POST /api/v1/admin/store/payments/dashboard-link': 'needs the Stripe server',
  'POST /api/v1/admin/store/payments/onboarding-link': 'needs the Stripe server',
  'POST /api/v1/admin/store/payments/reset': 'needs the Stripe server',
  'POST /api/v1/admin/store/issues/{issueId}/resolve': 'needs a raised store issue',
  'POST /api/v1/admin/store/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver': 'needs a failed delivery',
  'PATCH /api/v1/admin/reviews/{reviewId}/moderation': 'needs a storefront review',
  'POST /api/v1/admin/marketing/campaigns/collection-announcement': 'campaign kinds share one service path with generic',
  'POST /api/v1/admin/marketing/campaigns/newsletter': 'campaign kinds share one service path with generic',
  'POST /api/v1/admin/marketing/campaigns/old-customers': 'campaign kinds share one service path with generic',
  'POST /api/v1/admin/marketing/campaigns/product-announcement': 'campaign kinds share one service path with generic',
  'POST /api/v1/admin/store/team/invites/{inviteId}/resend': 'needs mail delivery of the invite',
  'POST /api/v1/admin/draft-orders/{draftOrderId}/complete': 'makes an order (several entries: draft, order, payment); test/integration/orders/draft-orders',
  'POST /api/v1/admin/orders/{orderId}/edits': 'needs an unfulfilled paid order with stock; test/integration/orders/order-edits',
  'POST /api/v1/admin/orders/{orderId}/exchanges': 'needs a fulfilled order with stock; test/integration/orders/exchanges',
  'POST /api/v1/admin/orders/{orderId}/balance-invoices/{invoiceId}/void': 'needs an edit collected by payment link; test/integration/orders/edit-balance-invoice',
  'POST /api/v1/admin/orders/{orderId}/balance-invoices/{invoiceId}/mark-paid': 'needs an edit collected by payment link; test/integration/orders/balance-marked-paid (audited once there)',
  'POST /api/v1/admin/orders/{orderId}/refunds/{refundId}/retry': 'needs a refund Stripe left pending (the Stripe server); test/integration/orders/refund-payments'
};

interface Call {
  method: string;
  /** As registered, without /api/v1, e.g. /admin/products/{productId}. */
  route: string;
  url: string | (() => string);
  payload?: unknown | (() => unknown);
  /** The action the entry must name (default: any `<resource>.<verb>`). */
  action?: string | RegExp;
  /** A call that makes two recorded changes: their actions, in order (instead of one entry). */
  actions?: string[];
  /** Whether the entry's resource id must be this (default: the first path parameter's value, when there is one). */
  resourceId?: string | null | (() => string | null);
  after?: (body: any) => void;
  /** Call with the API key (its entry must name the key and its creator). */
  byKey?: boolean;
}

t.test('each successful state-changing admin call leaves exactly one entry, with the actor, the action and the resource', async (t) => {
  const app = await buildApp(t, { workers: false, env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true' } });
  const receiver = await startReceiver(t);
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Walked', [{ price: 1000, stock: 50 }]);
  const spare = await sellable(app, owner, 'Spare', [{ price: 500, stock: 5 }]);
  const ops = orderOps(app, owner);
  const order = await ops.paidOrder([{ variantId: product.variants[0]!.id, quantity: 3 }], 'walk@example.com');
  const cancelled = await ops.paidOrder([{ variantId: product.variants[0]!.id, quantity: 1 }], 'walk2@example.com');
  const { session } = await openSession(app, owner, [{ variantId: spare.variants[0]!.id, quantity: 1 }], { email: 'unpaid@example.com' });
  const unpaid = (await confirm(app, owner, session.body.data.checkoutSession.id)).body.data.order as { id: string };
  const customerIds = await seedCustomers(app, owner.store.id, 3, { prefix: 'seeded' });
  const staff = await addMember(app, owner.store.id, 'staff');
  const revoked = await addMember(app, owner.store.id, 'staff');
  const keyResponse = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'walker', scopes: ['write_products', 'write_orders', 'write_customers'] }, ...admin(owner) });
  t.equal(keyResponse.status, 201, keyResponse.raw);
  const key = { id: keyResponse.body.data.apiKey.id as string, secret: keyResponse.body.data.secret as string };

  const ids: Record<string, string> = {};
  const set = (name: string, value: string) => (ids[name] = value);
  const id = (name: string) => {
    if (!ids[name]) throw new Error(`no ${name} yet`);
    return ids[name]!;
  };

  const calls: Call[] = [
    { method: 'POST', route: '/admin/products', url: '/admin/products', payload: { title: 'New', variants: [{ price: 100 }] }, action: 'product.created', resourceId: null, after: (b) => set('product', firstId(b)) },
    { method: 'PATCH', route: '/admin/products/{productId}', url: () => `/admin/products/${id('product')}`, payload: { title: 'New v2' }, action: 'product.updated', byKey: true },
    { method: 'PATCH', route: '/admin/products/{productId}/status', url: () => `/admin/products/${id('product')}`.concat('/status'), payload: { status: 'draft' }, action: 'product.updated' },
    { method: 'POST', route: '/admin/products/{productId}/variants/{variantId}/inventory', url: `/admin/products/${spare.id}/variants/${spare.variants[0]!.id}/inventory`, payload: { delta: 2 }, byKey: true },
    { method: 'POST', route: '/admin/products/export', url: '/admin/products/export', payload: {}, resourceId: null },
    { method: 'POST', route: '/admin/collections', url: '/admin/collections', payload: { title: 'Summer' }, resourceId: null, after: (b) => set('collection', firstId(b)) },
    { method: 'PATCH', route: '/admin/collections/{collectionId}', url: () => `/admin/collections/${id('collection')}`, payload: { title: 'Summer 2', productIds: [product.id] } },
    { method: 'POST', route: '/admin/discounts', url: '/admin/discounts', payload: { code: 'WALK10', type: 'percentage', value: 10 }, resourceId: null, after: (b) => set('discount', firstId(b)) },
    { method: 'PUT', route: '/admin/discounts/{discountId}', url: () => `/admin/discounts/${id('discount')}`, payload: { code: 'WALK15', type: 'percentage', value: 15 } },
    { method: 'DELETE', route: '/admin/discounts/{discountId}', url: () => `/admin/discounts/${id('discount')}`, action: 'discount.deleted' },
    { method: 'DELETE', route: '/admin/collections/{collectionId}', url: () => `/admin/collections/${id('collection')}`, action: 'collection.deleted' },
    { method: 'PATCH', route: '/admin/customers/{customerId}', url: `/admin/customers/${customerIds[0]}`, payload: { firstName: 'Walked', tags: ['vip'] }, byKey: true },
    { method: 'POST', route: '/admin/customers', url: '/admin/customers', payload: { email: 'walked-by-hand@example.com', firstName: 'Hand' }, resourceId: null, after: (b) => set('customer', firstId(b)) },
    { method: 'DELETE', route: '/admin/customers/{customerId}', url: () => `/admin/customers/${id('customer')}` },
    { method: 'POST', route: '/admin/shipping-zones', url: '/admin/shipping-zones', payload: { name: 'Walk zone', countries: ['US'], rates: [{ name: 'Standard', type: 'flat', price: 500 }] }, resourceId: null, after: (b) => set('zone', firstId(b)) },
    { method: 'PATCH', route: '/admin/shipping-zones/{zoneId}', url: () => `/admin/shipping-zones/${id('zone')}`, payload: { name: 'Walk zone 2' } },
    { method: 'DELETE', route: '/admin/shipping-zones/{zoneId}', url: () => `/admin/shipping-zones/${id('zone')}` },
    { method: 'POST', route: '/admin/tax-regions', url: '/admin/tax-regions', payload: { country: 'US', region: 'CA', name: 'California', rate: 725, taxShipping: false }, resourceId: null, after: (b) => set('taxRegion', firstId(b)) },
    { method: 'PATCH', route: '/admin/tax-regions/{regionId}', url: () => `/admin/tax-regions/${id('taxRegion')}`, payload: { rate: 750 } },
    { method: 'DELETE', route: '/admin/tax-regions/{regionId}', url: () => `/admin/tax-regions/${id('taxRegion')}` },
    { method: 'POST', route: '/admin/reports/tax', url: '/admin/reports/tax', payload: {}, resourceId: null },
    { method: 'POST', route: '/admin/draft-orders', url: '/admin/draft-orders', payload: { email: 'phone@example.com', lines: [{ title: 'Engraving', price: 1500, quantity: 1 }] }, resourceId: null, after: (b) => set('draft', firstId(b)) },
    { method: 'PATCH', route: '/admin/draft-orders/{draftOrderId}', url: () => `/admin/draft-orders/${id('draft')}`, payload: { note: 'by phone' } },
    { method: 'DELETE', route: '/admin/draft-orders/{draftOrderId}', url: () => `/admin/draft-orders/${id('draft')}` },
    { method: 'POST', route: '/admin/customers/export', url: '/admin/customers/export', payload: {}, resourceId: null, after: (b) => set('exportJob', firstId(b)) },
    // No worker runs here: the export stays queued, so it can be cancelled and then retried.
    { method: 'POST', route: '/admin/jobs/{jobId}/cancel', url: () => `/admin/jobs/${id('exportJob')}/cancel`, payload: {}, action: 'job.cancelled' },
    { method: 'POST', route: '/admin/jobs/{jobId}/retry', url: () => `/admin/jobs/${id('exportJob')}/retry`, payload: {}, action: 'job.retried' },
    { method: 'POST', route: '/admin/orders/{orderId}/notes', url: `/admin/orders/${order.id}/notes`, payload: { body: 'called the buyer' }, after: (b) => set('note', firstId(b)), byKey: true },
    { method: 'PATCH', route: '/admin/orders/{orderId}/notes/{noteId}', url: () => `/admin/orders/${order.id}/notes/${id('note')}`, payload: { body: 'called twice' } },
    { method: 'DELETE', route: '/admin/orders/{orderId}/notes/{noteId}', url: () => `/admin/orders/${order.id}/notes/${id('note')}` },
    { method: 'POST', route: '/admin/orders/{orderId}/mark-paid', url: `/admin/orders/${unpaid.id}/mark-paid` },
    { method: 'POST', route: '/admin/orders/{orderId}/fulfillments', url: `/admin/orders/${order.id}/fulfillments`, payload: { notifyCustomer: false }, action: 'order.fulfilled' },
    { method: 'POST', route: '/admin/orders/{orderId}/refunds', url: `/admin/orders/${order.id}/refunds`, payload: { items: [{ orderItemId: order.items[0]!.id, quantity: 1, restock: true }], reason: 'walk', notifyCustomer: false }, action: 'order.refunded' },
    { method: 'POST', route: '/admin/orders/{orderId}/returns', url: `/admin/orders/${order.id}/returns`, payload: { items: [{ orderItemId: order.items[0]!.id, quantity: 1 }], reason: 'walk' }, after: (b) => set('return', firstId(b)) },
    { method: 'POST', route: '/admin/returns/{returnId}/receive', url: () => `/admin/returns/${id('return')}/receive`, payload: { restock: true, notifyCustomer: false } },
    { method: 'POST', route: '/admin/returns/{returnId}/close', url: () => `/admin/returns/${id('return')}/close`, payload: {} },
    { method: 'POST', route: '/admin/orders/{orderId}/returns', url: `/admin/orders/${order.id}/returns`, payload: { items: [{ orderItemId: order.items[0]!.id, quantity: 1 }], reason: 'walk again' }, after: (b) => set('return2', firstId(b)) },
    { method: 'POST', route: '/admin/returns/{returnId}/cancel', url: () => `/admin/returns/${id('return2')}/cancel`, payload: {} },
    { method: 'POST', route: '/admin/orders/{orderId}/cancel', url: `/admin/orders/${cancelled.id}/cancel`, payload: { reason: 'walk', notifyCustomer: false }, actions: ['order.refunded', 'order.cancelled'] },
    { method: 'DELETE', route: '/admin/products/{productId}', url: () => `/admin/products/${id('product')}`, action: 'product.deleted' },
    { method: 'POST', route: '/admin/marketing/lists', url: '/admin/marketing/lists', payload: { name: 'VIP', customerIds: [customerIds[0], customerIds[1]] }, resourceId: null, after: (b) => set('list', firstId(b)) },
    { method: 'PUT', route: '/admin/marketing/lists/{listId}', url: () => `/admin/marketing/lists/${id('list')}`, payload: { name: 'VIP+', customerIds: [customerIds[2]] } },
    { method: 'POST', route: '/admin/marketing/templates', url: '/admin/marketing/templates', payload: { key: 'walk_sale', name: 'Walk', subject: 'Hi', text: 'Sale' }, resourceId: null, after: (b) => set('template', firstId(b)) },
    { method: 'PUT', route: '/admin/marketing/templates/{templateId}', url: () => `/admin/marketing/templates/${id('template')}`, payload: { name: 'Walk 2', subject: 'Hi', text: 'Sale!' } },
    { method: 'POST', route: '/admin/marketing/templates/{templateId}/preview', url: () => `/admin/marketing/templates/${id('template')}/preview`, payload: {} },
    { method: 'POST', route: '/admin/marketing/audience/preview', url: '/admin/marketing/audience/preview', payload: { audience: {} }, action: 'audience.sampled', resourceId: null },
    { method: 'POST', route: '/admin/marketing/campaigns/generic', url: '/admin/marketing/campaigns/generic', payload: { subject: 'Hi', text: 'x', audience: { listIds: [] }, sendAt: new Date(Date.now() + 86_400_000).toISOString() }, resourceId: null, after: (b) => set('campaign', firstId(b)) },
    { method: 'POST', route: '/admin/marketing/campaigns/{campaignId}/cancel', url: () => `/admin/marketing/campaigns/${id('campaign')}/cancel`, payload: {} },
    { method: 'DELETE', route: '/admin/marketing/templates/{templateId}', url: () => `/admin/marketing/templates/${id('template')}` },
    { method: 'DELETE', route: '/admin/marketing/lists/{listId}', url: () => `/admin/marketing/lists/${id('list')}` },
    { method: 'PATCH', route: '/admin/store', url: '/admin/store', payload: { name: 'Walked store' }, action: 'store.settings_updated', resourceId: owner.store.id },
    { method: 'POST', route: '/admin/store/api-keys', url: '/admin/store/api-keys', payload: { name: 'second', scopes: ['read_products'] }, action: 'api_key.created', resourceId: null, after: (b) => set('key', firstId(b)) },
    { method: 'DELETE', route: '/admin/store/api-keys/{keyId}', url: () => `/admin/store/api-keys/${id('key')}`, action: 'api_key.revoked' },
    { method: 'POST', route: '/admin/store/storefront-tokens', url: '/admin/store/storefront-tokens', payload: { name: 'Kiosk' }, resourceId: null, after: (b) => set('token', firstId(b)) },
    { method: 'POST', route: '/admin/store/storefront-tokens/{tokenId}/rotate', url: () => `/admin/store/storefront-tokens/${id('token')}/rotate`, payload: {} },
    { method: 'POST', route: '/admin/store/storefront-tokens/{tokenId}/revoke', url: () => `/admin/store/storefront-tokens/${id('token')}/revoke`, payload: {} },
    { method: 'POST', route: '/admin/store/webhooks', url: '/admin/store/webhooks', payload: { url: receiver.url, topics: ['order.created'] }, action: 'webhook.created', resourceId: null, after: (b) => set('webhook', firstId(b)) },
    { method: 'PATCH', route: '/admin/store/webhooks/{webhookId}', url: () => `/admin/store/webhooks/${id('webhook')}`, payload: { topics: ['order.created', 'order.paid'] }, action: 'webhook.updated' },
    { method: 'POST', route: '/admin/store/webhooks/{webhookId}/rotate-secret', url: () => `/admin/store/webhooks/${id('webhook')}/rotate-secret`, payload: {}, action: 'webhook.secret_rotated' },
    { method: 'POST', route: '/admin/store/webhooks/{webhookId}/ping', url: () => `/admin/store/webhooks/${id('webhook')}/ping`, payload: {} },
    { method: 'DELETE', route: '/admin/store/webhooks/{webhookId}', url: () => `/admin/store/webhooks/${id('webhook')}`, action: 'webhook.deleted' },
    { method: 'POST', route: '/admin/store/team/invites', url: '/admin/store/team/invites', payload: { email: 'newcomer-walk@example.com', role: 'staff' }, resourceId: null },
    { method: 'PATCH', route: '/admin/store/team/members/{userId}', url: `/admin/store/team/members/${staff.user.id}`, payload: { role: 'admin' }, action: 'member.role_changed' },
    { method: 'POST', route: '/admin/store/team/members/{userId}/revoke', url: `/admin/store/team/members/${revoked.user.id}/revoke`, payload: {} },
    { method: 'POST', route: '/admin/store/audit-log/export', url: '/admin/store/audit-log/export', payload: {}, action: 'audit_log.exported' }
  ];

  const walked = new Set<string>();
  const outside = new Set<string>();
  for (const call of calls) {
    const label = `${call.method} ${call.route}`;
    const url = typeof call.url === 'function' ? call.url() : call.url;
    const payload = typeof call.payload === 'function' ? (call.payload as () => unknown)() : call.payload;
    await sealAudit(app, owner.store.id);
    const head = Number((await app.ctx.db('auditLog').where({ storeId: owner.store.id }).max('seq as seq').first())?.seq ?? 0);
    const auth = call.byKey ? { headers: { authorization: `Bearer ${key.secret}` } } : admin(owner);
    const response = await app.request({ method: call.method, url, ...(payload === undefined ? {} : { payload }), ...auth });
    if (!t.ok(response.status >= 200 && response.status < 300, `${label}: ${response.status} ${response.status >= 300 ? response.raw : ''}`)) continue;
    call.after?.(response.body);
    walked.add(`${call.method} /api/v1${call.route}`);
    await sealAudit(app, owner.store.id);
    const rows = await app.ctx.db('auditLog').where({ storeId: owner.store.id }).where('seq', '>', head).orderBy('seq');
    if (call.actions) {
      // Cancelling a paid order refunds it: the refund and the cancellation are each an entry.
      t.same(rows.map((row) => row.action), call.actions, `${label}: its entries`);
      for (const row of rows) t.same([row.actorType, row.actorUserId, row.resourceId], ['user', owner.user.id, cancelled.id], `${label}: ${row.action} by the member, on the order`);
      continue;
    }
    t.equal(rows.length, 1, `${label}: exactly one entry (${rows.map((row) => row.action).join(', ')})`);
    const [row] = rows;
    if (!row) continue;
    if (call.byKey) t.same([row.actorType, row.actorApiKeyId, row.actorUserId], ['api_key', key.id, owner.user.id], `${label}: the key and its creator`);
    else t.same([row.actorType, row.actorUserId], ['user', owner.user.id], `${label}: the member`);
    if (call.action) t.match(row.action, call.action instanceof RegExp ? call.action : new RegExp(`^${call.action.replace('.', '\\.')}$`), `${label}: action`);
    else t.match(row.action, /^(request\.(post|put|patch|delete)|[a-z_]+\.[a-z_]+)$/, `${label}: action ${row.action}`);
    if (row.action.startsWith('request.')) {
      t.equal(row.resourceType, `/api/v1${call.route}`, `${label}: the route as the resource`);
      if (row.changes?.outsideTransaction) outside.add(`${call.method} /api/v1${call.route}`);
      if (payload && typeof payload === 'object' && Object.keys(payload).length) t.ok(row.changes?.body ?? row.changes?.fields, `${label}: what the request set`);
    }
    const firstParam = /\{[^}]+\}/.test(call.route) ? url.split('/').filter((_, index) => call.route.split('/')[index]?.startsWith('{'))[0] ?? null : null;
    const wanted = call.resourceId === undefined ? firstParam : typeof call.resourceId === 'function' ? call.resourceId() : call.resourceId;
    if (wanted) t.equal(row.resourceId, wanted, `${label}: the resource id`);
    else t.ok(row.resourceId || row.action.startsWith('request.') || row.resourceType, `${label}: a resource`);
  }

  t.same([...outside].filter((route) => !OUTSIDE_TRANSACTION[route]), [], 'no route leaves its entry outside the change\'s transaction unless listed');
  const table = app.server.table().filter((route) => route.settings.tags?.includes('admin') && route.method !== 'get').map((route) => `${route.method.toUpperCase()} ${route.path}`);
  const missed = table.filter((route) => !walked.has(route) && !NOT_WALKED[route]);
  t.same(missed, [], 'every state-changing admin route is walked or listed with why not');
  t.ok(walked.size >= 45, `${walked.size} of ${table.length} state-changing admin routes walked`);
});

t.test('a failing audit insert rolls the change back: no change exists without its entry', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const product = (await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Kept', variants: [{ price: 100 }] }, ...admin(owner) })).body.data.product;
  const collection = (await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Kept' }, ...admin(owner) })).body.data.collection;
  await app.ctx.db.raw(`create function audit_insert_fails() returns trigger language plpgsql as $$ begin raise exception 'audit insert refused (test)'; end $$`);
  await app.ctx.db.raw(`create trigger audit_insert_fails before insert on audit_pending for each row execute function audit_insert_fails()`);
  t.teardown(() => undefined);

  // A route whose service records its own entry, and routes on the generic entry.
  const edit = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Changed' }, ...admin(owner) });
  t.equal(edit.status, 500);
  const renamed = await app.request({ method: 'PATCH', url: `/admin/collections/${collection.id}`, payload: { title: 'Changed' }, ...admin(owner) });
  t.equal(renamed.status, 500, 'the request fails with its entry');
  const created = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Never' }, ...admin(owner) });
  t.equal(created.status, 500);
  const note = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'NEVER', type: 'percentage', value: 5 }, ...admin(owner) });
  t.equal(note.status, 500);

  t.equal((await app.ctx.db('products').where({ id: product.id }).first()).title, 'Kept', 'the product edit rolled back');
  t.equal((await app.ctx.db('collections').where({ id: collection.id }).first()).title, 'Kept', 'the collection rename rolled back');
  t.equal(Number((await app.ctx.db('collections').where({ storeId: owner.store.id, title: 'Never' }).count('* as n').first())?.n), 0, 'no collection without its entry');
  t.equal(Number((await app.ctx.db('discounts').where({ storeId: owner.store.id }).count('* as n').first())?.n), 0, 'no discount without its entry');

  await app.ctx.db.raw(`drop trigger audit_insert_fails on audit_pending`);
  const again = await app.request({ method: 'PATCH', url: `/admin/collections/${collection.id}`, payload: { title: 'Changed' }, ...admin(owner) });
  t.equal(again.status, 200, again.raw);
  await sealAudit(app, owner.store.id);
  const rows = await app.ctx.db('auditLog').where({ storeId: owner.store.id, resourceId: collection.id });
  t.equal(rows.length, 1, 'one entry for the rename that committed');
  t.same(rows[0]!.changes.body, { title: 'Changed' }, 'with what the request set');
  t.notOk(rows[0]!.changes.outsideTransaction, 'written in the change\'s transaction');
});
