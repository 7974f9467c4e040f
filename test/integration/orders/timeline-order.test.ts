import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { ADDRESS, sellable, setupShop } from '../../helpers/checkout.js';

/**
 * Entries written in one transaction share its `now()`: a draft completed as paid writes `placed`
 * (the orders trigger), `draft_completed` and `paid` at one instant. The timeline lists them newest
 * first in the order they were written, not in the order of their random ids. Six drafts: a
 * timeline that fell back on the ids would list all six right by chance once in 6^6 runs.
 */
t.test('entries written in one transaction keep the order they were written in, on every page', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Mug', [{ price: 1200, stock: 50 }]);
  const variantId = product.variants[0]!.id;

  for (let n = 0; n < 6; n++) {
    const draft = await app.request({ method: 'POST', url: '/admin/draft-orders', payload: { email: `phone${n}@example.com`, lines: [{ variantId, quantity: 1 }], shippingAddress: ADDRESS }, ...admin(owner) });
    t.equal(draft.status, 201, draft.raw);
    const completed = await app.request({ method: 'POST', url: `/admin/draft-orders/${draft.body.data.draftOrder.id}/complete`, payload: { payment: 'mark_paid' }, ...admin(owner) });
    t.equal(completed.status, 200, completed.raw);
    const orderId = completed.body.data.order.id as string;

    const timeline = await app.request({ url: `/admin/orders/${orderId}/timeline`, ...admin(owner) });
    t.equal(timeline.status, 200, timeline.raw);
    const events = timeline.body.data.events as Array<{ type: string; createdAt: string }>;
    t.same(events.map((e) => e.type), ['paid', 'draft_completed', 'placed'], `order ${n + 1}: newest first, as written`);
    t.equal(new Set(events.map((e) => e.createdAt)).size, 1, 'the three share one instant (one transaction)');

    // One entry a page: the cursor carries the position within the instant, so nothing repeats or goes missing.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=1&cursor=${cursor}` : '?limit=1';
      const page = await app.request({ url: `/admin/orders/${orderId}/timeline${query}`, ...admin(owner) });
      t.equal(page.status, 200, page.raw);
      paged.push(...page.body.data.events.map((e: { type: string }) => e.type));
      cursor = page.body.meta.pagination.nextCursor;
    } while (cursor && paged.length < 10);
    t.same(paged, ['paid', 'draft_completed', 'placed'], `order ${n + 1}: the same order one page at a time`);
  }
});
