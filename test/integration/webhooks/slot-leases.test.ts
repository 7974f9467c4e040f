import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { SlotStore } from '../../../src/adapters/slots/index.js';
import { SlotLeases, type ClaimStore } from '../../../src/services/webhooks/slot-leases.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { startReceiver, waitFor } from '../../helpers/webhook-receiver.js';
import { NO_REDIS_ENV, REDIS_ENV, redisConfigured } from '../../helpers/backends.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The real store, with its calls counted: what a lease saves is calls. */
function counted(store: SlotStore): ClaimStore & { takes: number; releases: number } {
  const counter = {
    takes: 0,
    releases: 0,
    take: (key: string, member: string, limit: number, claimMs: number) => {
      counter.takes += 1;
      return store.take(key, member, limit, claimMs);
    },
    release: (key: string, member: string) => {
      counter.releases += 1;
      return store.release(key, member);
    }
  };
  return counter;
}

const BACKENDS = [
  { kind: 'postgres', env: NO_REDIS_ENV, skip: false as const },
  { kind: 'redis', env: REDIS_ENV, skip: redisConfigured ? (false as const) : 'REDIS_URL is unset: the Redis slot store needs a Redis' }
];

/**
 * Webhook in-flight caps held as leases (src/services/webhooks/slot-leases.ts): each process keeps
 * the slots it claimed in the shared store and hands them from one attempt to the next. Two
 * SlotLeases on one store stand for two worker processes.
 */
for (const backend of BACKENDS) {
  t.test(`${backend.kind}: the cap holds across processes, a slot is reused without a call, and goes back after its linger`, { skip: backend.skip }, async (t) => {
    const app = await buildApp(t, { workers: false, env: backend.env });
    const store = counted(app.ctx.backends.slots);
    const one = new SlotLeases(store, { claimMs: 60_000, lingerMs: 300 });
    const two = new SlotLeases(store, { claimMs: 60_000, lingerMs: 300 });
    const key = `test-leases:${randomUUID()}`;

    const raced = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).acquire(key, 3)));
    const held = raced.filter((lease) => lease !== null);
    t.equal(held.length, 3, 'twenty attempts in two processes at once: exactly the cap');
    t.equal(one.heldUnder(key).held + two.heldUnder(key).held, 3, 'between them, three tokens');
    t.equal(await app.ctx.backends.slots.take(key, 'a-third-process', 3, 60_000), false, 'and the store counts them: a third process is refused');

    const holder = one.heldUnder(key).held > 0 ? one : two;
    const lease = raced.find((candidate, i) => candidate && (i % 2 ? one : two) === holder)!;
    lease.release();
    lease.release();
    const calls = store.takes;
    const again = await holder.acquire(key, 3);
    t.ok(again, 'the process that released a slot takes it again');
    t.equal(store.takes, calls, 'without asking the store');
    t.equal(await (holder === one ? two : one).acquire(key, 3), null, 'while the other process still finds the cap full');

    for (const each of [...held.filter((candidate) => candidate !== lease), again]) each!.release();
    await sleep(700);
    t.same([one.heldUnder(key), two.heldUnder(key)], [{ held: 0, busy: 0 }, { held: 0, busy: 0 }], 'unused past the linger: released');
    const others = await Promise.all(['x', 'y', 'z'].map((member) => app.ctx.backends.slots.take(key, member, 3, 60_000)));
    t.same(others, [true, true, true], 'to the store: another process takes the whole cap');
  });
}

t.test('a token reused after a quarter of its claim time renews its claim, so the claim outlives the attempts on it', async (t) => {
  const app = await buildApp(t, { workers: false, env: NO_REDIS_ENV });
  const store = counted(app.ctx.backends.slots);
  const leases = new SlotLeases(store, { claimMs: 800, lingerMs: 60_000 });
  const key = `test-leases:${randomUUID()}`;
  // Reused back to back for three claim times: without renewals its claim would lapse after 800 ms.
  for (let round = 0; round < 20; round++) {
    const lease = await leases.acquire(key, 1);
    t.ok(lease, `round ${round}: the token`);
    await sleep(120);
    lease!.release();
  }
  t.ok(store.takes >= 5 && store.takes < 20, `renewed every few reuses, not at each (${store.takes} claims for 20 attempts)`);
  t.equal(await app.ctx.backends.slots.take(key, 'elsewhere', 1, 800), false, 'the claim is live after 2.4 s: another process is refused');
});

t.test('a renewal refused (the limit fell under what others hold) gives the token back; a store away caps nothing', async (t) => {
  const app = await buildApp(t, { workers: false, env: NO_REDIS_ENV });
  const slots = app.ctx.backends.slots;
  const leases = new SlotLeases(slots, { claimMs: 400, lingerMs: 60_000 });
  const key = `test-leases:${randomUUID()}`;
  (await leases.acquire(key, 2))!.release();
  t.equal(await slots.take(key, 'elsewhere', 2, 60_000), true, 'another process holds the other slot');
  await sleep(150);
  t.equal(await leases.acquire(key, 1), null, 'the limit now 1, held elsewhere: the renewal is refused');
  t.same(leases.heldUnder(key), { held: 0, busy: 0 }, 'and the token is gone');
  await slots.release(key, 'elsewhere');
  t.equal(await slots.take(key, 'next', 1, 60_000), true, 'its claim was released in the store');

  const away = new SlotLeases(
    { take: () => Promise.reject(new Error('store away')), release: () => Promise.reject(new Error('store away')) },
    { claimMs: 400, lingerMs: 10 }
  );
  const leased = await Promise.all(Array.from({ length: 3 }, () => away.acquire(key, 1)));
  t.equal(leased.filter(Boolean).length, 1, 'store away: the process still keeps its own share of the cap');
  leased.forEach((lease) => lease?.release());
  await sleep(50);
  t.same(away.heldUnder(key), { held: 0, busy: 0 }, 'and a failed release drops the token all the same');
});

t.test('an attempt that finds every slot of this process in use waits for one to be handed back, within a bound', async (t) => {
  const app = await buildApp(t, { workers: false, env: NO_REDIS_ENV });
  const store = counted(app.ctx.backends.slots);
  const leases = new SlotLeases(store, { claimMs: 60_000, lingerMs: 60_000 });
  const key = `test-leases:${randomUUID()}`;
  const [first, second] = await Promise.all([leases.acquire(key, 2), leases.acquire(key, 2)]);
  t.ok(first && second, 'the two slots of the cap, in use');
  const calls = store.takes;

  const waiting = Array.from({ length: 5 }, () => leases.acquire(key, 2, { waitMs: 5_000 }));
  const refused = await Promise.race([waiting[4]!, new Promise((resolve) => setTimeout(resolve, 500, 'still waiting'))]);
  t.equal(refused, null, 'at most twice the cap wait: the fifth is refused at once');
  first!.release();
  const handed = await waiting[0]!;
  t.ok(handed, 'a release hands the slot to the first waiting');
  t.same(leases.heldUnder(key), { held: 2, busy: 2 }, 'still two slots, both in use: it never went back to the store');
  second!.release();
  handed!.release();
  const [third, fourth] = await Promise.all([waiting[1]!, waiting[2]!]);
  t.ok(third && fourth, 'the next two, in turn');
  t.equal(store.takes, calls, 'none of it asked the store');

  const late = await Promise.race([waiting[3]!, new Promise((resolve) => setTimeout(resolve, 100, 'waiting'))]);
  t.equal(late, 'waiting', 'the last waits while both are in use');
  third!.release();
  t.ok(await waiting[3]!, 'and gets one once released');

  const timedOut = Date.now();
  t.equal(await leases.acquire(key, 2, { waitMs: 300 }), null, 'nothing released within its wait: null');
  t.ok(Date.now() - timedOut >= 290, 'after waiting it out');

  const elsewhere = `test-leases:${randomUUID()}`;
  t.equal(await app.ctx.backends.slots.take(elsewhere, 'another-process', 1, 60_000), true);
  const asked = Date.now();
  t.equal(await leases.acquire(elsewhere, 1, { waitMs: 5_000 }), null, 'a cap held by another process: refused at once, no wait');
  t.ok(Date.now() - asked < 2_000);
});

t.test('a worker that closes hands the slots it kept back to the store at once: a clean stop leaves no claim to lapse', async (t) => {
  const app = await buildApp(t, { workers: false, env: { ...NO_REDIS_ENV, ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', OUTBOX_POLL_MS: '100', WEBHOOK_ENDPOINT_CONCURRENCY: '1' } });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: receiver.url, topics: ['product.created'] }, token: owner.accessToken, storeId: owner.store.id });
  const slot = `webhook-inflight:${created.body.data.webhook.id}`;
  const pool = await app.startWorkers(['webhooks']);
  await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Kept slot', variants: [{ price: 500 }] }, token: owner.accessToken, storeId: owner.store.id });
  // Its outcome recorded: the attempt has ended and handed its slot back to the process, which
  // keeps it 1 s for a next attempt.
  await waitFor('delivered and recorded', async () => (await app.ctx.db('webhookDeliveries').where({ storeId: owner.store.id, status: 'succeeded' }).first()) !== undefined);
  t.equal(await app.ctx.backends.slots.take(slot, 'another-process', 1, 60_000), false, 'after the delivery the worker keeps its slot for its next attempt');
  await pool.close();
  t.equal(await app.ctx.backends.slots.take(slot, 'another-process', 1, 60_000), true, 'closed: the slot is back in the store');
});
