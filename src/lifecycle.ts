import type { Logger } from './logger.js';

const exitTasks: (() => Promise<void>)[] = [];

/**
 * Work for the very end of the process, after `stop` (signals) or after a failed start: leaving the
 * embedded PostgreSQL, which the last process to leave stops. Runs in reverse order of registration.
 */
export function atExit(task: () => Promise<void>): void {
  exitTasks.unshift(task);
}

async function runExitTasks(log?: Logger): Promise<void> {
  for (const task of exitTasks.splice(0)) {
    try {
      await task();
    } catch (error) {
      if (log) log.error({ err: { message: (error as Error).message } }, 'exit task failed');
      else console.error(error);
    }
  }
}

/** Errors whose message says it all (a paragraph naming the variable to set): printed without a stack. */
const PLAIN_ERRORS = new Set(['ConfigError', 'DatabaseUnavailable']);

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits 0; exits 1 if stopping takes longer than
 * `deadlineMs` (Heroku kills a dyno 30 s after SIGTERM).
 */
export function stopOnSignals(log: Logger, stop: () => Promise<void>, deadlineMs = 28_000): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), deadlineMs).unref();
    try {
      await stop();
      await runExitTasks(log);
      process.exit(0);
    } catch (error) {
      log.error({ err: { message: (error as Error).message } }, 'unclean shutdown');
      await runExitTasks(log);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Entry-point wrapper: a failure to start is printed and ends the process with status 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch(async (error: unknown) => {
    console.error(error instanceof Error && PLAIN_ERRORS.has(error.name) ? error.message : error);
    await runExitTasks();
    process.exit(1);
  });
}
