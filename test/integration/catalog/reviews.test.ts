import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, setupShop, sellable, sf } from '../../helpers/checkout.js';

t.test('reviews: verified purchase, one per email, moderation, rating aggregate under concurrency', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  await setupShop(app, owner);
  const staff = await addMember(app, owner.store.id, 'staff');
  const kettle = await sellable(app, owner, 'Kettle', [{ price: 3000, stock: 100 }]);
  const toaster = await sellable(app, owner, 'Toaster', [{ price: 4000, stock: 100 }]);
  const { session } = await openSession(app, owner, [{ variantId: kettle.variants[0]!.id, quantity: 1 }], { email: 'rev@example.com' });
  const order = (await confirm(app, owner, session.body.data.checkoutSession.id)).body.data.order;
  // A manual-payment order: verified once the merchant records the payment.
  const markPaid = (orderId: string) => app.request({ method: 'POST', url: `/admin/orders/${orderId}/mark-paid`, ...admin(owner) });
  const url = `/storefront/products/${kettle.slug}/reviews`;
  const put = (payload: Record<string, unknown>, slugUrl = url, owner_ = owner) =>
    app.request({ method: 'PUT', url: slugUrl, payload: { orderNumber: order.number, email: 'rev@example.com', rating: 5, title: 'Great', body: 'Boils fast', authorName: 'Rev', ...payload }, ...sf(owner_) });

  for (const [payload, why] of [
    [{ email: 'someone@example.com' }, 'another email'],
    [{ orderNumber: 9999 }, 'unknown order'],
    [{}, 'an unpaid order']
  ] as const) {
    const refused = await put(payload);
    t.equal(refused.status, 422, why);
    t.equal(refused.body.error.code, 'review_not_verified');
  }
  t.equal((await markPaid(order.id)).status, 200);
  const wrongProduct = await put({}, `/storefront/products/${toaster.slug}/reviews`);
  t.equal(wrongProduct.body.error.code, 'review_not_verified', 'a product not in the order');
  const foreign = await put({}, url, other);
  t.equal(foreign.status, 404, "another store's token does not see the product");
  for (const payload of [{ rating: 0 }, { rating: 6 }, { rating: 4.5 }, { extra: true }]) {
    const bad = await put(payload);
    t.equal(bad.status, 422, JSON.stringify(payload));
    t.equal(bad.body.error.code, 'validation_failed');
  }

  const created = await put({ email: 'REV@example.com' });
  t.equal(created.status, 201, created.raw);
  t.match(created.body.data.review, { rating: 5, title: 'Great', state: 'pending' });
  const listedPending = await app.request({ url, ...sf(owner) });
  t.same(listedPending.body.data.reviews, [], 'pending reviews are not public');
  t.same(listedPending.body.meta.rating, { average: null, count: 0 });

  const queue = await app.request({ url: '/admin/reviews?state=pending', token: staff.accessToken, storeId: owner.store.id });
  t.equal(queue.status, 200);
  t.equal(queue.body.data.reviews.length, 1);
  const reviewId = queue.body.data.reviews[0].id;
  t.match(queue.body.data.reviews[0], { email: 'rev@example.com', productId: kettle.id, state: 'pending' });
  const dash = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(dash.body.data.stats.pendingReviews, 1);

  const approved = await app.request({ method: 'PATCH', url: `/admin/reviews/${reviewId}/moderation`, payload: { state: 'approved', note: 'ok' }, token: staff.accessToken, storeId: owner.store.id });
  t.equal(approved.status, 200);
  t.match(approved.body.data.review, { state: 'approved', moderationNote: 'ok' });
  const listed = await app.request({ url, ...sf(owner) });
  t.equal(listed.body.data.reviews.length, 1);
  t.notOk('email' in listed.body.data.reviews[0], 'no email on the public list');
  t.same(listed.body.meta.rating, { average: 5, count: 1 });

  const updated = await put({ rating: 2, title: 'Broke' });
  t.equal(updated.status, 200, 'same product and email: updated');
  t.equal(updated.body.data.review.state, 'pending', 'back to pending');
  const afterUpdate = await app.request({ url, ...sf(owner) });
  t.same(afterUpdate.body.meta.rating, { average: null, count: 0 });
  t.equal((await app.ctx.db('reviews').where({ storeId: owner.store.id })).length, 1);

  const badState = await app.request({ method: 'PATCH', url: `/admin/reviews/${reviewId}/moderation`, payload: { state: 'spam' }, ...admin(owner) });
  t.equal(badState.status, 422);
  const foreignModeration = await app.request({ method: 'PATCH', url: `/admin/reviews/${reviewId}/moderation`, payload: { state: 'approved' }, ...admin(other) });
  t.equal(foreignModeration.status, 404);

  // 12 buyers review at once, then all are approved at once: the aggregate is exact.
  const buyers = await Promise.all(
    Array.from({ length: 12 }, async (_, i) => {
      const email = `buyer${i}@example.com`;
      const opened = await openSession(app, owner, [{ variantId: kettle.variants[0]!.id, quantity: 1 }], { email });
      const placed = await confirm(app, owner, opened.session.body.data.checkoutSession.id);
      await markPaid(placed.body.data.order.id);
      return { email, number: placed.body.data.order.number as number, rating: (i % 5) + 1 };
    })
  );
  const writes = await Promise.all(buyers.map((b) => app.request({ method: 'PUT', url, payload: { orderNumber: b.number, email: b.email, rating: b.rating, title: 't', body: 'b', authorName: 'a' }, ...sf(owner) })));
  t.ok(writes.every((w) => w.status === 201));
  const pending = await app.request({ url: `/admin/reviews?state=pending&productId=${kettle.id}&limit=100`, ...admin(owner) });
  const moderations = await Promise.all(
    pending.body.data.reviews.map((r: any) => app.request({ method: 'PATCH', url: `/admin/reviews/${r.id}/moderation`, payload: { state: 'approved' }, ...admin(owner) }))
  );
  t.ok(moderations.every((m) => m.status === 200));
  const final = await app.request({ url: `${url}?limit=100`, ...sf(owner) });
  const ratings = [...buyers.map((b) => b.rating), 2];
  t.equal(final.body.meta.rating.count, 13);
  t.equal(final.body.meta.rating.average, Math.round((ratings.reduce((s, r) => s + r, 0) / 13) * 100) / 100);
  const stored = await app.ctx.db('productRatings').where({ productId: kettle.id }).first();
  t.match(stored, { approvedCount: 13, ratingSum: ratings.reduce((s, r) => s + r, 0) });
});
