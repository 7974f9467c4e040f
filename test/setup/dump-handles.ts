/**
 * Loaded (`--import`) into the cluster run's child test files: on SIGUSR2 it prints what keeps the
 * process alive, so a file that passes but never exits says why before it is killed. Timers are
 * not handles, so the ones still referenced are printed with where they were made: setTimeout and
 * setInterval are wrapped here to remember each timer's stack (the cluster children only).
 */
const made = new Map<NodeJS.Timeout, string>();

function remembered<A extends unknown[]>(original: (...args: A) => NodeJS.Timeout) {
  return (...args: A): NodeJS.Timeout => {
    const timer = original(...args);
    if (made.size >= 5_000) for (const [old] of made) if (isDone(old)) made.delete(old);
    made.set(timer, (new Error().stack ?? '').split('\n').slice(2, 9).join(' | '));
    return timer;
  };
}

const isDone = (timer: NodeJS.Timeout) => Boolean((timer as unknown as { _destroyed?: boolean })._destroyed);

globalThis.setTimeout = Object.assign(remembered(globalThis.setTimeout as unknown as (...args: unknown[]) => NodeJS.Timeout), globalThis.setTimeout) as typeof setTimeout;
globalThis.setInterval = Object.assign(remembered(globalThis.setInterval as unknown as (...args: unknown[]) => NodeJS.Timeout), globalThis.setInterval) as typeof setInterval;

process.on('SIGUSR2', () => {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().map((handle) => {
    const h = handle as { constructor?: { name?: string }; remoteAddress?: string; remotePort?: number; localPort?: number; pid?: number; spawnargs?: string[] };
    const name = h.constructor?.name ?? typeof handle;
    if (name === 'Socket') return `Socket to ${h.remoteAddress}:${h.remotePort} (local port ${h.localPort})`;
    if (name === 'ChildProcess') return `ChildProcess ${h.pid} ${h.spawnargs?.join(' ')}`;
    return name;
  });
  const timers = [...made].filter(([timer]) => !isDone(timer) && timer.hasRef()).map(([timer, stack]) => `${(timer as unknown as { _idleTimeout?: number })._idleTimeout} ms: ${stack}`);
  process.stderr.write(`\n# still alive, holding: ${JSON.stringify(process.getActiveResourcesInfo())}\n# handles: ${JSON.stringify(handles)}\n# referenced timers: ${JSON.stringify(timers.slice(0, 10))}\n`);
});
