import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { BulkPacer, MAX_PAUSE_MS, parseSchedstat, schedstatProbe, type CpuWait } from '../../src/platform/bulk-pacing.js';
import { lowerWorkerPriority } from '../../src/workers/priority.js';

/**
 * A pacer on a scripted clock and scripted run-queue readings: each batch says how long it took
 * (ms), how long the thread ran and how long it waited for a CPU meanwhile (ms); the pauses asked for
 * are recorded instead of slept.
 */
function scripted(busyPercent: number, probe: 'linux' | 'none' = 'linux') {
  let clock = 0;
  const reading: CpuWait = { runNs: 0, waitNs: 0 };
  const slept: number[] = [];
  const pacer = new BulkPacer({
    busyPercent,
    now: () => clock,
    probe: () => (probe === 'linux' ? { ...reading } : null),
    sleep: async (ms) => {
      slept.push(ms);
      clock += ms;
    }
  });
  const batch = async (ms: number, runMs: number, waitMs: number) => {
    pacer.begin();
    clock += ms;
    reading.runNs += runMs * 1e6;
    reading.waitNs += waitMs * 1e6;
    return pacer.end();
  };
  return { pacer, batch, slept };
}

t.test('on an idle machine a bulk job never pauses', async (t) => {
  const { pacer, batch, slept } = scripted(25);
  t.equal(await batch(150, 60, 3), 0, 'waited 5% of its runnable time');
  t.equal(await batch(150, 60, 50), 0, 'waited 45%: still below half');
  t.equal(await batch(150, 0.5, 1), 0, 'ran too little to tell (the thread waited on PostgreSQL)');
  t.same(slept, []);
  t.equal(pacer.pauses, 0);
});

t.test('on a busy machine a bulk job works BULK_JOB_BUSY_PERCENT of the time', async (t) => {
  const { pacer, batch, slept } = scripted(25);
  t.equal(await batch(200, 40, 60), 0, 'one batch that waited 60% for a CPU: maybe a burst (an ANALYZE), no pause yet');
  t.equal(await batch(200, 40, 60), 600, 'a second in a row: pauses three times the batch (works 25%)');
  t.equal(await batch(100, 40, 40), 100 * 3, 'exactly half counts as busy');
  t.equal(await batch(100, 60, 3), 0, 'the machine is idle again: no pause');
  t.equal(await batch(100, 10, 90), 0, 'busy again: one batch alone does not pause');
  t.same(slept, [600, 300]);
  t.equal(pacer.pauses, 2);
  t.equal(pacer.pausedMs, 900);

  const half = scripted(50);
  await half.batch(200, 10, 90);
  t.equal(await half.batch(200, 10, 90), 200, '50%: as long a pause as the batch');
  const off = scripted(100);
  await off.batch(200, 10, 90);
  t.equal(await off.batch(200, 10, 90), 0, '100: never pauses');
});

t.test('a pause is bounded, and ends at once on shutdown', async (t) => {
  const { batch } = scripted(1);
  await batch(5_000, 10, 90);
  t.equal(await batch(5_000, 10, 90), MAX_PAUSE_MS, 'at most MAX_PAUSE_MS whatever the share and the batch');

  let n = 0;
  const pacer = new BulkPacer({ busyPercent: 25, probe: () => ({ runNs: 0, waitNs: n++ * 50e6 }) });
  pacer.begin();
  t.equal(await pacer.end(), 0, 'a first busy batch');
  pacer.begin();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const shutdown = new AbortController();
  const started = performance.now();
  const pausing = pacer.end(shutdown.signal);
  shutdown.abort();
  t.ok((await pausing) > 0, 'a pause was due');
  t.ok(performance.now() - started < 100, 'and the abort ended it at once');
});

t.test('where the run-queue wait is unknown (not Linux), a bulk job never pauses', async (t) => {
  const { batch, slept } = scripted(25, 'none');
  await batch(200, 10, 90);
  t.equal(await batch(200, 10, 90), 0);
  t.same(slept, []);
  t.same(parseSchedstat('123 456 7\n'), { runNs: 123, waitNs: 456 });
  t.equal(parseSchedstat(''), null);
  const own = schedstatProbe();
  if (process.platform === 'linux') t.ok(own && own.runNs > 0, 'this thread has run on Linux');
  else t.equal(own, null);
});

t.test('BULK_JOB_BUSY_PERCENT and WORKER_NICE: defaults and bounds', async (t) => {
  t.equal(loadConfig({}).bulkJobBusyPercent, 25);
  t.equal(loadConfig({ BULK_JOB_BUSY_PERCENT: '100' }).bulkJobBusyPercent, 100);
  t.equal(loadConfig({ BULK_JOB_BUSY_PERCENT: '0' }).bulkJobBusyPercent, 1, 'a bulk job always makes progress');
  t.equal(loadConfig({ BULK_JOB_BUSY_PERCENT: '250' }).bulkJobBusyPercent, 100);
  t.equal(loadConfig({}).workerNice, 10);
  t.equal(loadConfig({ WORKER_NICE: '0' }).workerNice, 0);
  t.equal(loadConfig({ WORKER_NICE: '40' }).workerNice, 19);
});

t.test('the worker process lowers its OS priority once, never raises it', async (t) => {
  const logged: string[] = [];
  const log = { info: (_: unknown, message: string) => void logged.push(message), warn: (_: unknown, message: string) => void logged.push(message) };
  const system = (current: number, fails = false) => {
    const set: number[] = [];
    return {
      set,
      getPriority: () => current,
      setPriority: (nice: number) => {
        if (fails) throw new Error('EACCES');
        set.push(nice);
      }
    };
  };
  const normal = system(0);
  t.equal(lowerWorkerPriority({ workerNice: 10 }, log, normal), 10);
  t.same(normal.set, [10]);
  const nicer = system(15);
  t.equal(lowerWorkerPriority({ workerNice: 10 }, log, nicer), 15, 'a process already nicer keeps its priority');
  t.same(nicer.set, []);
  const off = system(0);
  t.equal(lowerWorkerPriority({ workerNice: 0 }, log, off), 0, 'WORKER_NICE=0 leaves it');
  t.same(off.set, []);
  t.equal(lowerWorkerPriority({ workerNice: 10 }, log, system(0, true)), 0, 'refused: logged, the worker still starts');
  t.same(logged, ['worker priority lowered', 'worker priority not lowered']);
});
