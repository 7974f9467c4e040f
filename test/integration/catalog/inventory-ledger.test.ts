import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { waitForJob } from '../../helpers/jobs.js';
import { orderOps } from '../../helpers/order-ops.js';

t.test('after racing sales, cancels, admin deltas, counts and a bulk adjustment, the ledger explains every unit of stock', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Raced', [
    { price: 500, stock: 40 },
    { price: 700, stock: 40, policy: 'continue' }
  ]);
  const [a, b] = product.variants;
  const adjust = (variantId: string, payload: Record<string, unknown>) =>
    app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${variantId}/inventory`, payload, ...admin(owner) });

  const sales = Array.from({ length: 8 }, async () => {
    const { session } = await openSession(app, owner, [
      { variantId: a!.id, quantity: 2 },
      { variantId: b!.id, quantity: 1 }
    ]);
    return session.status === 201 ? confirm(app, owner, session.body.data.checkoutSession.id) : session;
  });
  const deltas = Array.from({ length: 10 }, (_, i) => adjust(i % 2 ? a!.id : b!.id, { delta: i % 3 ? 3 : -2, reason: 'shelf' }));
  const counts = [adjust(a!.id, { quantity: 30 }), adjust(b!.id, { quantity: 25 })];
  const bulk = app
    .request({ method: 'POST', url: '/admin/products/bulk', payload: { ids: [product.id], action: { type: 'adjustStock', delta: 4 } }, ...admin(owner) })
    .then((r) => waitForJob(app, owner, r.body.data.job.id));
  const settled = await Promise.all([...sales, ...deltas, ...counts, bulk]);
  const orders = settled.filter((r) => (r as { body?: { data?: { order?: { id: string } } } }).body?.data?.order).map((r) => (r as { body: { data: { order: { id: string } } } }).body.data.order.id);
  t.ok(orders.length > 0, 'some sales went through');
  const ops = orderOps(app, owner);
  await Promise.all(orders.slice(0, 3).map((id) => ops.cancel(id, { restock: true })));

  const db = app.ctx.db;
  for (const variant of [a!, b!]) {
    const stock = (await db('productVariants').where({ id: variant.id }).first()).inventoryQuantity;
    const sum = Number((await db('inventoryLedger').where({ storeId: owner.store.id, variantId: variant.id }).sum('delta as s').first())!.s);
    t.equal(sum, stock, 'the ledger sums to the stock column');
    const last = await db('inventoryLedger').where({ variantId: variant.id }).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).first();
    t.ok(last, 'the variant has ledger rows');
  }
  const reasons = ((await db('inventoryLedger').where({ storeId: owner.store.id }).distinct('reasonCode')) as Array<{ reasonCode: string }>).map((r) => r.reasonCode).sort();
  t.same(reasons, ['bulk', 'cancel', 'manual', 'sale'], 'each kind of move has its reason code');
  const cancelled = await db('inventoryLedger').where({ storeId: owner.store.id, reasonCode: 'cancel' }).whereNotNull('orderId').count('* as n').first();
  t.ok(Number(cancelled!.n) > 0, 'a cancel names its order');

  // The history route pages through the same rows, newest first.
  const total = Number((await db('inventoryLedger').where({ storeId: owner.store.id }).count('* as n').first())!.n);
  const seen: Array<{ id: string; createdAt: string; reason: string }> = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; raw: string; body: any } = await app.request({ url: `/admin/products/${product.id}/inventory-history?limit=7${cursor ? `&cursor=${cursor}` : ''}`, ...admin(owner) });
    t.equal(page.status, 200, page.raw);
    seen.push(...page.body.data.entries);
    cursor = page.body.meta.pagination.nextCursor;
  } while (cursor);
  t.equal(seen.length, total);
  t.equal(new Set(seen.map((e) => e.id)).size, total, 'no entry twice across pages');
  t.ok(seen.every((e, i) => i === 0 || e.createdAt <= seen[i - 1]!.createdAt), 'newest first');
  const one = await app.request({ url: `/admin/products/${product.id}/inventory-history?variantId=${a!.id}&limit=100`, ...admin(owner) });
  t.ok(one.body.data.entries.every((e: { variantId: string }) => e.variantId === a!.id));
  const manual = one.body.data.entries.find((e: { note: string }) => e.note === 'shelf');
  t.match(manual, { reason: 'manual', actor: { type: 'user', userId: owner.user.id } });
  t.equal((await app.request({ url: `/admin/products/${product.id}/inventory-history`, ...admin(await signupOwner(app)) })).status, 404, "another store's product is 404");
});
