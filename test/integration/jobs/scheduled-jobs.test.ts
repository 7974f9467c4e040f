import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { JOB_KINDS } from '../../../src/jobs/registry.js';
import { QUEUE_NAMES } from '../../../src/jobs/queues.js';
import { registerSchedules } from '../../../src/workers/schedules.js';

/**
 * GET /admin/jobs/scheduled (issue #37): every kind declared with a schedule, its interval or cron
 * pattern, and its next run from the queue's job scheduler (null until a worker registered it);
 * `scheduled` is not read as a job id; owners and admins only; an API key needs read_jobs.
 */
t.test('scheduled job kinds with their next run', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const declared = JOB_KINDS.filter((kind) => kind.schedule).map((kind) => kind.name).sort();
  t.ok(declared.length >= 5, `${declared.length} scheduled kinds`);

  const before = await app.request({ url: '/admin/jobs/scheduled', ...admin(owner) });
  t.equal(before.status, 200, before.raw);
  const listed = before.body.data.scheduledJobs as Array<{ name: string; every: number | null; pattern: string | null; nextRunAt: string | null; registered: boolean }>;
  t.same(listed.map((job) => job.name).sort(), declared, 'every declared schedule, no other kind');
  t.ok(listed.every((job) => (job.every === null) !== (job.pattern === null)), 'an interval or a cron pattern, one of the two');
  t.match(listed.find((job) => job.name === 'external-system-nightly-sync'), { pattern: '0 3 * * *', every: null });
  t.ok(listed.every((job) => job.nextRunAt === null && !job.registered), 'before a worker registers them, the next run is not known');

  await registerSchedules(app.ctx, QUEUE_NAMES);
  const after = (await app.request({ url: '/admin/jobs/scheduled', ...admin(owner) })).body.data.scheduledJobs as typeof listed;
  for (const job of after) {
    t.ok(job.registered, `${job.name} registered`);
    t.ok(job.nextRunAt && !Number.isNaN(Date.parse(job.nextRunAt)), `${job.name} has a next run`);
    if (job.every) t.ok(Date.parse(job.nextRunAt!) <= Date.now() + job.every + 1_000, `${job.name} runs within its interval`);
  }
  const nightly = after.find((job) => job.name === 'external-system-nightly-sync')!;
  t.equal(new Date(nightly.nextRunAt!).getUTCHours(), 3, 'the nightly sync next runs at 03:00 UTC');

  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ url: '/admin/jobs/scheduled', token: staff.accessToken, storeId: owner.store.id })).status, 403, 'staff: 403');
  const member = await addMember(app, owner.store.id, 'admin');
  t.equal((await app.request({ url: '/admin/jobs/scheduled', token: member.accessToken, storeId: owner.store.id })).status, 200, 'an admin reads it');
  const key = async (scope: string) => {
    const created = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: scope, scopes: [scope] }, ...admin(owner) });
    t.equal(created.status, 201, created.raw);
    return created.body.data.secret as string;
  };
  t.equal((await app.request({ url: '/admin/jobs/scheduled', token: await key('read_jobs') })).status, 200, 'a read_jobs key reads it');
  t.equal((await app.request({ url: '/admin/jobs/scheduled', token: await key('read_products') })).status, 403, 'another scope: 403');
  t.equal((await app.request({ url: '/admin/jobs/not-a-uuid', ...admin(owner) })).status, 422, 'other words are still job ids');
});
