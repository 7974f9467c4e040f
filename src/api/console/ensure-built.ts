import { spawn, type ChildProcess } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { CONSOLE_DIST, CONSOLE_SOURCES, consoleBuilding } from './files.js';

const SKIP = new Set(['dist', 'generated', 'node_modules', 'schema.d.ts']);

/** The newest modification time of the files under `dir` (the console's sources, the API's routes). */
async function newestChange(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    const time = entry.isDirectory() ? await newestChange(full) : (await stat(full)).mtimeMs;
    newest = Math.max(newest, time);
  }
  return newest;
}

/** True when the console build in `dist` is missing or older than a console source or an API route (its types). */
export async function consoleIsStale(dist: string = CONSOLE_DIST): Promise<boolean> {
  const stamp = path.join(dist, '.built-at');
  if (!existsSync(stamp)) return true;
  const built = (await stat(stamp)).mtimeMs;
  for (const dir of CONSOLE_SOURCES) if ((await newestChange(dir)) > built) return true;
  return false;
}

export interface ConsoleBuild {
  /** Settles when the build is done: `fresh` (nothing to build), `built`, `failed` or `stopped`. */
  done: Promise<'fresh' | 'built' | 'failed' | 'stopped'>;
  /** Ends a build still running (the process is stopping): its process group is killed. */
  stop(): void;
}

/**
 * `npm start`: builds the console (console/scripts/build.ts) in the background when missing or
 * stale, into `dist`, and returns at once: the API answers while the console builds (issue #38:
 * healthy within 5 s of a fresh clone's first start, where the build took 7 to 32 s). Meanwhile /app
 * answers a page saying it is building (src/api/console/routes.ts). A failed build (e.g. dev
 * dependencies not installed) is logged; /app then says how to build it. The build runs in a
 * process group of its own (tsc and vite under it), ended by `stop()` on shutdown.
 */
export function startConsoleBuild(
  log: Logger,
  dist: string = CONSOLE_DIST,
  { script = path.join(CONSOLE_SOURCES[0]!, 'scripts', 'build.ts'), after }: { script?: string; after?: Promise<unknown> } = {}
): ConsoleBuild {
  let child: ChildProcess | null = null;
  let stopped = false;
  consoleBuilding.start(dist);
  const done = (async () => {
    try {
      // The build (tsc, then vite: a core for 7 to 30 s) waits for the app's own start (`after`):
      // started beside migrations and the workers' start, it took one of two cores from them.
      await after?.catch(() => undefined);
      if (stopped) return 'stopped' as const;
      if (!(await consoleIsStale(dist))) return 'fresh' as const;
      if (stopped) return 'stopped' as const;
      log.info({ dist }, 'building the console in the background (console/dist is missing or stale); /app says so until it is built');
      const started = Date.now();
      const code = await new Promise<number | null>((resolve) => {
        const spawned = spawn(process.execPath, ['--import', 'tsx', script], { detached: true, env: { ...process.env, CONSOLE_DIST_DIR: dist }, stdio: ['ignore', 'inherit', 'inherit'] });
        child = spawned;
        // Below the API and the workers it shares the machine with: a request waits on no build.
        if (spawned.pid) {
          try {
            setPriority(spawned.pid, constants.priority.PRIORITY_BELOW_NORMAL);
          } catch {
            // not allowed here: the build runs at the app's priority
          }
        }
        spawned.on('error', () => resolve(-1));
        spawned.on('exit', resolve);
      });
      if (stopped) return 'stopped' as const;
      if (code !== 0) {
        log.warn({ code }, 'console build failed; /app will answer 503 until `npm run build` succeeds');
        return 'failed' as const;
      }
      log.info({ durationMs: Date.now() - started }, 'console built: /app serves it');
      return 'built' as const;
    } catch (error) {
      log.warn({ err: { message: (error as Error).message } }, 'console build not started; /app will answer 503 until `npm run build` succeeds');
      return 'failed' as const;
    } finally {
      consoleBuilding.end(dist);
    }
  })();
  return {
    done,
    stop: () => {
      stopped = true;
      const running = child as ChildProcess | null;
      if (running?.pid && running.exitCode === null && running.signalCode === null) {
        try {
          process.kill(-running.pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
    }
  };
}
