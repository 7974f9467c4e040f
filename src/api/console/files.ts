import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the nearest folder above this file with a package.json (src/ under tsx, dist/src/ once built). */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

/** Where `vite build` puts the console (console/vite.config.ts). */
export const CONSOLE_DIST = path.join(projectRoot(), 'console', 'dist');
export const CONSOLE_SOURCES = [path.join(projectRoot(), 'console'), path.join(projectRoot(), 'src', 'api')];

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json'
};

export const contentTypeOf = (file: string) => TYPES[path.extname(file)] ?? 'application/octet-stream';

/** The folder the console is served from: CONSOLE_DIST_DIR, or console/dist. */
export const consoleDistOf = (config: { consoleDistDir: string | null }): string => config.consoleDistDir ?? CONSOLE_DIST;

/**
 * The console folders a build of this process is writing now (`npm start` builds in the background,
 * src/api/console/ensure-built.ts): /app says "building" there instead of "not built".
 */
const building = new Set<string>();
export const consoleBuilding = {
  start: (dist: string) => void building.add(dist),
  end: (dist: string) => void building.delete(dist),
  has: (dist: string) => building.has(dist)
};

/** A built file's bytes, or null when absent; the name must stay inside the build folder. */
export async function readBuilt(name: string, dist: string = CONSOLE_DIST): Promise<Buffer | null> {
  const file = path.resolve(dist, name);
  if (!file.startsWith(dist + path.sep)) return null;
  try {
    return await readFile(file);
  } catch {
    return null;
  }
}
