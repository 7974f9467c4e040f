import { randomUUID } from 'node:crypto';
import t from 'tap';
import { buildApp } from '../../helpers/app.js';
import { NO_REDIS_ENV, REDIS_ENV, redisConfigured } from '../../helpers/backends.js';

/**
 * The slot store (src/adapters/slots/) on both backends: claims under a limit, a holder renewing
 * its own, releases, lapses, and racing claims never past the limit. On PostgreSQL, also that a
 * busy key leaves no trail: claims made and released by the thousand must not grow its indexes
 * (a row per claim left an index entry per claim until a vacuum, read by every later take).
 */
const BACKENDS = [
  { kind: 'postgres', env: NO_REDIS_ENV, skip: false as const },
  { kind: 'redis', env: REDIS_ENV, skip: redisConfigured ? (false as const) : 'REDIS_URL is unset: the Redis slot store needs a Redis' }
];

for (const backend of BACKENDS) {
  t.test(`${backend.kind}: claims under a limit, renewals, releases, lapses and races`, { skip: backend.skip }, async (t) => {
    const app = await buildApp(t, { workers: false, env: backend.env });
    const slots = app.ctx.backends.slots;
    const key = `test-slots:${randomUUID()}`;
    const members = ['a', 'b', 'c', 'd', 'e'];
    const CLAIM_MS = 60_000;

    for (const member of members.slice(0, 4)) t.equal(await slots.take(key, member, 4, CLAIM_MS), true, `${member} takes a slot`);
    t.equal(await slots.take(key, 'e', 4, CLAIM_MS), false, 'the fifth is refused');
    t.equal(await slots.take(key, 'b', 4, CLAIM_MS), true, 'a holder renews its own claim when the others fill the rest');
    await slots.release(key, 'b');
    t.equal(await slots.take(key, 'e', 4, CLAIM_MS), true, 'a release frees one');
    t.equal(await slots.take(key, 'b', 4, CLAIM_MS), false, 'and only one');

    const other = `${key}:host`;
    t.equal(await slots.take(other, 'a', 1, CLAIM_MS), true);
    await slots.releaseAll([key, other], 'a');
    t.equal(await slots.take(other, 'z', 1, CLAIM_MS), true, 'releaseAll frees the member under each key');
    t.equal(await slots.take(key, 'z', 4, CLAIM_MS), true);
    t.equal(await slots.take(key, 'y', 4, CLAIM_MS), false);

    const lapsing = `${key}:lapse`;
    for (const member of members.slice(0, 2)) t.equal(await slots.take(lapsing, member, 2, 200), true);
    t.equal(await slots.take(lapsing, 'c', 2, 200), false);
    await new Promise((resolve) => setTimeout(resolve, 400));
    t.equal(await slots.take(lapsing, 'c', 2, 200), true, 'claims older than the claim time lapse');

    const raced = `${key}:race`;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => slots.take(raced, `m${i}`, 4, CLAIM_MS)));
    t.equal(answers.filter(Boolean).length, 4, 'forty at once: exactly the limit');
    const fresh = await Promise.all(Array.from({ length: 20 }, (_, i) => slots.take(`${key}:new${i % 2}`, `n${i}`, 3, CLAIM_MS)));
    t.equal(fresh.filter(Boolean).length, 6, "racing first claims of new keys: each key's limit");
  });
}

t.test('postgres: a key claimed and released thousands of times does not grow the store', async (t) => {
  const app = await buildApp(t, { workers: false, env: NO_REDIS_ENV });
  const slots = app.ctx.backends.slots;
  const indexBytes = async () =>
    Number(
      (await app.ctx.db.raw(`select coalesce(sum(pg_relation_size(i.indexrelid)), 0) as bytes from pg_index i join pg_class c on c.oid = i.indrelid where c.relname like 'backend_slot%'`)).rows[0].bytes
    );
  const before = await indexBytes();
  // Four workers' worth of deliveries through one endpoint key and one host key, as a burst of webhooks makes them.
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 500; i++) {
        const member = randomUUID();
        const keys = ['webhook-inflight:endpoint', 'webhook-host:example.com'];
        for (const key of keys) await slots.take(key, member, 1000, 60_000);
        await slots.releaseAll(keys, member);
      }
    })
  );
  const after = await indexBytes();
  t.ok(after - before <= 32 * 1024, `2,000 claims and releases grew the slot store's indexes by ${after - before} bytes (at most 32 kB)`);
  t.equal(await slots.take('webhook-host:example.com', 'last', 1, 60_000), true, 'every claim was released');
});

t.test('postgres: an idle key\'s row is swept, and a take never counts on a row swept under it', async (t) => {
  const app = await buildApp(t, { workers: false, env: NO_REDIS_ENV });
  const slots = app.ctx.backends.slots;
  const db = app.ctx.db;
  const prefix = `test-sweep:${randomUUID()}`;
  const rowOf = async (key: string) => (await db('backend_slot_claims').where({ key }).first()) as { claims: Record<string, number> } | undefined;
  const now = Date.now();
  await db('backend_slot_claims').insert([
    { key: `${prefix}:empty`, claims: {} },
    { key: `${prefix}:lapsed`, claims: { a: now - 2 * 3_600_000, b: now - 3_600_001 } },
    { key: `${prefix}:recent`, claims: { a: now - 2 * 3_600_000, b: now - 60_000 } }
  ]);

  // The process's first take sweeps, in the background (then at most once a minute).
  t.equal(await slots.take(`${prefix}:live`, 'a', 1, 60_000), true);
  const until = Date.now() + 10_000;
  while ((await rowOf(`${prefix}:lapsed`)) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  t.notOk(await rowOf(`${prefix}:lapsed`), 'a row whose claims all lapsed over an hour ago is swept');
  t.notOk(await rowOf(`${prefix}:empty`), 'as is an empty one');
  t.ok(await rowOf(`${prefix}:recent`), 'a row with a claim from the last hour stays');
  t.same(Object.keys((await rowOf(`${prefix}:live`))!.claims), ['a'], 'as does a held claim');
  t.equal(await slots.take(`${prefix}:lapsed`, 'c', 1, 60_000), true, 'a swept key is claimed again');
  t.same(Object.keys((await rowOf(`${prefix}:lapsed`))!.claims), ['c'], 'on a row made again');

  // Sweeps racing takes of emptied keys: each key's one slot goes to exactly one taker, and a take
  // that answers true holds its claim in the row (never a claim written to a row swept away).
  const { sweepStatement } = await import('../../../src/adapters/sweep.js');
  const keys = Array.from({ length: 60 }, (_, i) => `${prefix}:race${i}`);
  for (const key of keys) {
    await slots.take(key, 'first', 1, 60_000);
    await slots.release(key, 'first');
  }
  const answers = await Promise.all(
    keys.map(async (key) => {
      const [, second, third] = await Promise.all([db.raw(sweepStatement('backend_slot_claims')), slots.take(key, 'second', 1, 60_000), slots.take(key, 'third', 1, 60_000)]);
      return { key, winners: [second && 'second', third && 'third'].filter(Boolean) as string[] };
    })
  );
  t.same(answers.filter((a) => a.winners.length !== 1), [], 'one taker per key');
  const held = await db('backend_slot_claims').whereIn('key', keys).select('key', 'claims');
  const claimsOf = new Map(held.map((row: { key: string; claims: Record<string, number> }) => [row.key, Object.keys(row.claims)]));
  t.same(answers.filter((a) => JSON.stringify(claimsOf.get(a.key)) !== JSON.stringify(a.winners)).map((a) => a.key), [], 'and the row holds the winner\'s claim');
});
