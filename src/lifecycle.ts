import type { Logger } from './logger.js';

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
      process.exit(0);
    } catch (error) {
      log.error({ err: { message: (error as Error).message } }, 'unclean shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Entry-point wrapper: a failure to start is printed and ends the process with status 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
