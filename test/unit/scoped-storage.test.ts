import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { ScopedStorage } from '../../src/platform/scoped-storage.js';

t.test('a run’s store is read across its awaits, and by no one else', async (t) => {
  const storage = new ScopedStorage<string>();
  const seen: Array<string | undefined> = [];
  const outside = (async () => {
    await sleep(5);
    seen.push(`outside:${storage.getStore()}`);
  })();
  await storage.run('a', async () => {
    seen.push(storage.getStore());
    await sleep(10);
    seen.push(storage.getStore());
  });
  await outside;
  t.same(seen, ['a', 'outside:undefined', 'a']);
  t.equal(storage.getStore(), undefined, 'nothing after the run');
});

t.test('overlapping runs keep their own stores until each settles', async (t) => {
  const storage = new ScopedStorage<string>();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const late: Array<string | undefined> = [];
  const long = storage.run('long', async () => {
    await held;
    late.push(storage.getStore());
  });
  await storage.run('short', async () => {
    await sleep(1);
  });
  release();
  await long;
  t.same(late, ['long'], 'the short run settling first did not take the long run’s store away');
});

t.test('the instance turns off when its last run settles: what a run left running reads no store', async (t) => {
  const storage = new ScopedStorage<string>();
  let detached!: Promise<string | undefined>;
  t.equal(storage.enabled, false, 'off before any run');
  await storage.run('request', async () => {
    t.equal(storage.enabled, true, 'on during the run');
    detached = sleep(20).then(() => storage.getStore());
  });
  t.equal(storage.enabled, false, 'off once the run settled');
  t.equal(await detached, undefined, 'a plain AsyncLocalStorage would still answer "request" here');
  // And it turns on again for the next run.
  t.equal(await storage.run('next', async () => storage.getStore()), 'next');
});

t.test('a thenable that is not a promise (a knex builder) is resolved once', async (t) => {
  const storage = new ScopedStorage<true>();
  let executions = 0;
  const builder = {
    then<R>(resolve: (value: number) => R) {
      executions += 1;
      return Promise.resolve(resolve(executions));
    }
  };
  const value = await storage.run(true, () => builder);
  t.equal(value, 1);
  t.equal(executions, 1, 'ran once: awaiting what run returned did not run the builder again');
});

t.test('a run that throws or rejects still settles; request scopes are counted', async (t) => {
  const request = new ScopedStorage<string>({ requestScope: true });
  t.throws(() => request.run('x', () => {
    throw new Error('sync');
  }));
  await t.rejects(request.run('y', async () => {
    throw new Error('async');
  }));
  t.equal(ScopedStorage.requestScopesInFlight(), false);
  let inside = false;
  await request.run('z', async () => {
    inside = ScopedStorage.requestScopesInFlight();
  });
  t.equal(inside, true);
  t.equal(ScopedStorage.requestScopesInFlight(), false);
  t.equal(request.exit(() => request.getStore()), undefined);
});
