import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { CONSOLE_DIST, CONSOLE_SOURCES } from './files.js';

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

/** True when console/dist is missing or older than a console source or an API route (its types). */
export async function consoleIsStale(): Promise<boolean> {
  const stamp = path.join(CONSOLE_DIST, '.built-at');
  if (!existsSync(stamp)) return true;
  const built = (await stat(stamp)).mtimeMs;
  for (const dir of CONSOLE_SOURCES) if ((await newestChange(dir)) > built) return true;
  return false;
}

/**
 * `npm start`: builds the console (console/scripts/build.ts) when missing or stale. A failed build
 * (e.g. dev dependencies not installed) is logged and the API starts anyway; /app then says so.
 */
export async function ensureConsoleBuilt(log: Logger): Promise<void> {
  if (!(await consoleIsStale())) return;
  const script = path.join(CONSOLE_SOURCES[0]!, 'scripts', 'build.ts');
  log.info('building the console (console/dist is missing or stale)');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', () => resolve(-1));
    child.on('exit', resolve);
  });
  if (code !== 0) log.warn({ code }, 'console build failed; /app will answer 503 until `npm run build` succeeds');
}
