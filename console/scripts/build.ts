/**
 * Builds the console: the service's OpenAPI document -> TypeScript types (openapi-typescript) ->
 * type-check of the console against them (an API change that breaks a screen fails here) -> vite
 * build into console/dist (or CONSOLE_DIST_DIR). `npm run build` runs it; `npm start` runs it in the
 * background when the build is missing or stale (src/api/console/ensure-built.ts).
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const consoleDir = path.resolve(here, '..');
const require = createRequire(import.meta.url);
const bin = (pkg: string, name: string) => {
  const manifest = require.resolve(`${pkg}/package.json`);
  const bins = (require(manifest) as { bin: string | Record<string, string> }).bin;
  return path.join(path.dirname(manifest), typeof bins === 'string' ? bins : bins[name]!);
};
const run = (file: string, args: string[]) => {
  try {
    execFileSync(process.execPath, [file, ...args], { cwd: consoleDir, stdio: 'inherit' });
  } catch {
    console.error(`console build failed at: ${path.basename(file)} ${args.join(' ')}`);
    process.exit(1);
  }
};

execFileSync(process.execPath, ['--import', 'tsx', path.join(here, 'write-openapi.ts')], { cwd: consoleDir, stdio: 'inherit' });
run(bin('openapi-typescript', 'openapi-typescript'), ['generated/openapi.json', '-o', 'src/api/schema.d.ts']);
run(bin('typescript', 'tsc'), ['-p', 'tsconfig.json']);
const outDir = process.env.CONSOLE_DIST_DIR ? path.resolve(process.env.CONSOLE_DIST_DIR) : path.join(consoleDir, 'dist');
run(bin('vite', 'vite'), ['build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir']);
await writeFile(path.join(outDir, '.built-at'), new Date().toISOString());
