import { randomUUID } from 'node:crypto';
import t from 'tap';
import { eventStreamStats } from '../../../src/api/event-stream.js';
import { addMember, buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';

/**
 * Issue #31, item 6: event streams are capped per user or key and per store (429 past either), end
 * when their credential stops holding, and are all fed by one poller per process.
 */

interface Stream {
  status: number;
  body: any;
  headers: Headers;
  events: Array<{ event: string; data: any }>;
  /** Resolves once an event matching `test` has arrived (rejects if the stream ends first, or after 15 s). */
  until(test: (e: { event: string; data: any }) => boolean): Promise<{ event: string; data: any }>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens an event stream over real HTTP and reads its events in the background. */
async function open(app: TestApp, path: string, headers: Record<string, string>): Promise<Stream> {
  const abort = new AbortController();
  const response = await fetch(`${app.server.info.uri}/api/v1${path}`, { headers, signal: abort.signal });
  const events: Array<{ event: string; data: any }> = [];
  const waiters = new Set<() => void>();
  let finished = false;
  const notify = () => waiters.forEach((w) => w());
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: response.status, body: await response.json(), headers: response.headers, events, until: () => Promise.reject(new Error('no stream')), ended: Promise.resolve(), close: () => undefined };
  }
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
        notify();
      }
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
    } finally {
      finished = true;
      notify();
    }
  })();
  const until = (test: (e: { event: string; data: any }) => boolean) =>
    new Promise<{ event: string; data: any }>((resolve, reject) => {
      // A bound, so that a stream that never says it (the defect) fails the test instead of hanging it.
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no such event within 15 s: ${JSON.stringify(events)}`));
      }, 15_000);
      const check = () => {
        const found = events.find(test);
        if (found) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        } else if (finished) {
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`the stream ended first: ${JSON.stringify(events)}`));
        }
      };
      waiters.add(check);
      check();
    });
  return { status: response.status, body: null, headers: response.headers, events, until, ended, close: () => abort.abort() };
}

/** A job row of the store, live until the test says otherwise (no worker runs it). */
async function liveJob(app: TestApp, storeId: string): Promise<string> {
  const id = randomUUID();
  await app.ctx.db('jobs').insert({ id, storeId, type: 'customers.export', queue: 'exports', status: 'active', progress: { percent: 0 } });
  return id;
}

const person = (who: { accessToken: string }, owner: Owner) => ({ authorization: `Bearer ${who.accessToken}`, 'x-store-id': owner.store.id });

/** Waits (bounded) for a condition the server reaches on its own: a slot given back after a disconnect. */
async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean, withinMs = 5_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  let value = await attempt();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await attempt();
  }
  return value;
}

t.test('a sixth stream per user is refused with 429, as is one past the store cap; closing one frees its place', async (t) => {
  const app = await buildApp(t, { listen: true, env: { EVENT_STREAMS_PER_STORE: '7' } });
  const owner = await signupOwner(app);
  const admin = await addMember(app, owner.store.id, 'admin');
  const jobs = await Promise.all(Array.from({ length: 8 }, () => liveJob(app, owner.store.id)));
  const streams: Stream[] = [];
  t.teardown(() => streams.forEach((s) => s.close()));

  for (const jobId of jobs.slice(0, 5)) {
    const stream = await open(app, `/admin/jobs/${jobId}/events`, person(owner, owner));
    t.equal(stream.status, 200, 'one of five');
    await stream.until((e) => e.event === 'progress');
    streams.push(stream);
  }
  const sixth = await open(app, `/admin/jobs/${jobs[5]}/events`, person(owner, owner));
  t.equal(sixth.status, 429, 'the sixth is refused');
  t.match(sixth.body, { success: false, error: { code: 'rate_limited', details: [{ path: 'streams', message: 'at most 5 open per user' }] }, meta: {} });
  t.ok(Number(sixth.headers.get('retry-after')) > 0, 'with Retry-After');

  // A finished job is answered at once and needs no place.
  await app.ctx.db('jobs').where({ storeId: owner.store.id, id: jobs[7] }).update({ status: 'completed', progress: { percent: 100 } });
  const finished = await open(app, `/admin/jobs/${jobs[7]}/events`, person(owner, owner));
  t.equal(finished.status, 200);
  await finished.ended;
  t.same(finished.events.map((e) => e.event), ['progress', 'end'], 'a finished job streams at once, past the cap');

  // Another person has their own five, within the store's seven.
  for (const jobId of jobs.slice(5, 7)) {
    const stream = await open(app, `/admin/jobs/${jobId}/events`, person(admin, owner));
    t.equal(stream.status, 200, "another member's stream");
    streams.push(stream);
  }
  const pastStore = await open(app, `/admin/jobs/${jobs[0]}/events`, person(admin, owner));
  t.equal(pastStore.status, 429, 'the eighth stream of the store is refused');
  t.equal(pastStore.body.error.details[0].message, 'at most 7 open per store');

  streams[0]!.close();
  const reopened = await eventually(
    () => open(app, `/admin/jobs/${jobs[5]}/events`, person(owner, owner)),
    (s) => s.status === 200 || (s.close(), false)
  );
  t.equal(reopened.status, 200, 'closing a stream frees its place');
  streams.push(reopened);
  t.equal((await open(app, `/admin/jobs/${jobs[6]}/events`, person(owner, owner))).status, 429, 'and only that one');
});

t.test("a stream ends once its credential stops holding: key revoked, member removed, role lowered", async (t) => {
  const app = await buildApp(t, { listen: true });
  const owner = await signupOwner(app);
  const admin = await addMember(app, owner.store.id, 'admin');
  const keyHolder = await addMember(app, owner.store.id, 'admin');
  const jobId = await liveJob(app, owner.store.id);
  const streams: Stream[] = [];
  t.teardown(() => streams.forEach((s) => s.close()));
  const createKey = async (creator: { accessToken: string }) => {
    const created = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'Stream', scopes: ['read_jobs'] }, token: creator.accessToken, storeId: owner.store.id });
    return created.body.data as { apiKey: { id: string }; secret: string };
  };

  const key = await createKey(owner);
  const byKey = await open(app, `/admin/jobs/${jobId}/events`, { authorization: `Bearer ${key.secret}` });
  t.equal(byKey.status, 200);
  const byMember = await open(app, `/admin/jobs/${jobId}/events`, person(admin, owner));
  t.equal(byMember.status, 200);
  const lowered = await createKey(keyHolder);
  const byLoweredKey = await open(app, `/admin/jobs/${jobId}/events`, { authorization: `Bearer ${lowered.secret}` });
  t.equal(byLoweredKey.status, 200);
  const byOwner = await open(app, `/admin/jobs/${jobId}/events`, person(owner, owner));
  streams.push(byKey, byMember, byLoweredKey, byOwner);
  await Promise.all(streams.map((s) => s.until((e) => e.event === 'progress')));

  t.equal((await app.request({ method: 'DELETE', url: `/admin/store/api-keys/${key.apiKey.id}`, token: owner.accessToken, storeId: owner.store.id })).status, 200);
  const keyError = await byKey.until((e) => e.event === 'error');
  t.match(keyError.data, { success: false, error: { code: 'unauthenticated' } }, "the revoked key's stream says why");
  await byKey.ended;
  t.pass("the revoked key's stream ended");

  t.equal((await app.request({ method: 'POST', url: `/admin/store/team/members/${admin.user.id}/revoke`, token: owner.accessToken, storeId: owner.store.id })).status, 200);
  t.match((await byMember.until((e) => e.event === 'error')).data, { error: { code: 'unauthenticated' } });
  await byMember.ended;
  t.pass("the removed member's stream ended");

  const demoted = await app.request({ method: 'PATCH', url: `/admin/store/team/members/${keyHolder.user.id}`, payload: { role: 'staff' }, token: owner.accessToken, storeId: owner.store.id });
  t.equal(demoted.status, 200);
  t.match((await byLoweredKey.until((e) => e.event === 'error')).data, { error: { code: 'forbidden' } });
  await byLoweredKey.ended;
  t.pass('the stream of a key whose creator became staff ended (staff may not follow jobs)');

  await app.ctx.db('jobs').where({ storeId: owner.store.id, id: jobId }).update({ progress: { percent: 40 } });
  await byOwner.until((e) => e.data.job.progress.percent === 40);
  t.notOk(byOwner.events.some((e) => e.event === 'error'), "the owner's stream goes on");
  t.equal(eventStreamStats(app.server).open, 1, 'only it is still open');
});

t.test('one poller feeds every stream of a process: statements per poll grow with the stores watched, not the streams', async (t) => {
  const app = await buildApp(t, { listen: true, env: { EVENT_STREAMS_PER_PRINCIPAL: '20' } });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const mine = await Promise.all(Array.from({ length: 12 }, () => liveJob(app, owner.store.id)));
  const theirs = await Promise.all(Array.from({ length: 3 }, () => liveJob(app, other.store.id)));
  t.equal(eventStreamStats(app.server).pollers, 0, 'no poller while nothing streams');

  const streams = [
    ...(await Promise.all(mine.map((id) => open(app, `/admin/jobs/${id}/events`, person(owner, owner))))),
    ...(await Promise.all(theirs.map((id) => open(app, `/admin/jobs/${id}/events`, person(other, other)))))
  ];
  // Two streams on one job share its read.
  streams.push(await open(app, `/admin/jobs/${mine[0]}/events`, person(owner, owner)));
  t.teardown(() => streams.forEach((s) => s.close()));
  t.same(streams.map((s) => s.status), streams.map(() => 200), '16 streams open');
  await Promise.all(streams.map((s) => s.until((e) => e.event === 'progress')));
  t.match(eventStreamStats(app.server), { open: 16, pollers: 1 }, 'one poller for all of them');

  let jobStatements = 0;
  app.ctx.db.on('query', (query: { sql: string }) => {
    if (/\bfrom "jobs"/i.test(query.sql)) jobStatements += 1;
  });
  const before = eventStreamStats(app.server);
  await app.ctx.db('jobs').where({ storeId: owner.store.id }).whereIn('id', mine).update({ progress: { percent: 50 } });
  await app.ctx.db('jobs').where({ storeId: other.store.id }).whereIn('id', theirs).update({ progress: { percent: 50 } });
  await Promise.all(streams.map((s) => s.until((e) => e.data.job.progress.percent === 50)));
  t.pass('every stream received the change');
  // A few more polls, so that the counts cover whole ticks.
  await eventually(async () => eventStreamStats(app.server).ticks, (ticks) => ticks >= before.ticks + 4);
  const after = eventStreamStats(app.server);
  const ticks = after.ticks - before.ticks;
  t.ok(ticks >= 1, `${ticks} polls`);
  t.ok(after.reads - before.reads <= 2 * ticks, `one read per store per poll (${after.reads - before.reads} reads in ${ticks} polls)`);
  t.ok(jobStatements <= 2 * (ticks + 1), `${jobStatements} statements on jobs in ${ticks} polls, for 16 streams`);
  t.equal(after.credentialChecks - before.credentialChecks, ticks, 'one credential check per poll for all streams');

  for (const stream of streams) stream.close();
  const idle = await eventually(async () => eventStreamStats(app.server), (s) => s.open === 0 && s.pollers === 0);
  t.match(idle, { open: 0, pollers: 0 }, 'the poller stops with the last stream');
});

t.test('the OpenAPI document lists the 429 of the event streams', async (t) => {
  const app = await buildApp(t);
  const doc = (await app.request({ url: '/openapi.json' })).body;
  for (const path of ['/api/v1/admin/jobs/{jobId}/events', '/api/v1/admin/marketing/campaigns/{campaignId}/events']) {
    t.ok(doc.paths[path].get.responses['429'], `${path}: 429`);
    t.match(doc.paths[path].get.responses['200'].description, /error/, `${path}: says a stream can end with an error event`);
  }
});
