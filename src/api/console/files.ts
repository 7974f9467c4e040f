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

/** A built file's bytes, or null when absent; the name must stay inside the build folder. */
export async function readBuilt(name: string): Promise<Buffer | null> {
  const file = path.resolve(CONSOLE_DIST, name);
  if (!file.startsWith(CONSOLE_DIST + path.sep)) return null;
  try {
    return await readFile(file);
  } catch {
    return null;
  }
}
