/**
 * `npm start`: runs src/start.ts from one bundled file of our own code (esbuild; packages stay in
 * node_modules), rebuilt only when a source it holds changed. Under tsx, the start loaded 551
 * TypeScript files one at a time through tsx's loader thread: 2.1 s and 3.1 s of CPU on this
 * kind of machine before the app could do anything, against 1.1-1.2 s from the bundle (issue #38:
 * healthy within 5 s of a fresh clone's first `npm start`). The bundle is imported here, in this
 * process, so signals, exit codes and the log are the app's own, as before.
 *
 * Where a bundle cannot be built or written (esbuild missing, a read-only checkout), it runs
 * src/start.ts under tsx as before. `SHOPWRIGHT_START_TSX=1` asks for that path.
 * `node scripts/start.mjs --build-only` (npm's postinstall) builds the bundle and exits, so a fresh
 * clone's first start finds it built, as every later start does.
 */
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'src', 'start.ts');
// In the project (ignored by git), not under node_modules, which a worktree may share by a
// symlink: from here the packages the bundle leaves external resolve to the project's own.
// SHOPWRIGHT_START_CACHE: elsewhere in the project (the launcher's own tests).
const cacheDir = process.env.SHOPWRIGHT_START_CACHE ? path.resolve(process.env.SHOPWRIGHT_START_CACHE) : path.join(root, '.cache', 'start');
const bundle = path.join(cacheDir, 'start.mjs');
const manifestFile = path.join(cacheDir, 'start.json');
/** Bumped when the build options below change: a bundle of other options is rebuilt. */
const FORMAT = 1;

/** Each source file the bundle holds, by its size and modification time when it was built. */
async function fingerprint(file) {
  const info = await stat(path.join(root, file));
  return `${info.size}:${info.mtimeMs}`;
}

async function bundleIsCurrent() {
  let manifest;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    await stat(bundle);
  } catch {
    return false;
  }
  if (manifest.format !== FORMAT || manifest.node !== process.version) return false;
  const files = Object.entries(manifest.inputs);
  const now = await Promise.all(files.map(([file]) => fingerprint(file).catch(() => null)));
  return files.every(([, was], i) => now[i] === was);
}

async function buildBundle() {
  const { build } = await import('esbuild');
  await mkdir(cacheDir, { recursive: true });
  // In memory, named as it will be (its source map comment and the map's paths name the final
  // files), then written under names of this process and moved into place.
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: bundle,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'silent'
  });
  const inputs = {};
  for (const file of Object.keys(result.metafile.inputs)) inputs[file] = await fingerprint(file);
  const files = [
    // The map first: the bundle names it.
    ...result.outputFiles.filter((file) => file.path.endsWith('.map')),
    ...result.outputFiles.filter((file) => !file.path.endsWith('.map')),
    { path: manifestFile, contents: JSON.stringify({ format: FORMAT, node: process.version, inputs }) }
  ];
  // Two starts at once each write their own files, then move them into place: a start never reads
  // a half-written bundle (a rename replaces the old file whole).
  const unique = `${process.pid}.${Date.now()}`;
  for (const file of files) {
    await writeFile(`${file.path}.${unique}`, file.contents);
    await rename(`${file.path}.${unique}`, file.path);
  }
}

async function runUnderTsx() {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/start.ts');
}

if (process.argv.includes('--build-only')) {
  // At install: a failure here is no failure of the install (the start falls back to tsx).
  try {
    if (!(await bundleIsCurrent())) await buildBundle();
  } catch (error) {
    console.warn(`start bundle not built (npm start will run under tsx): ${error instanceof Error ? error.message : error}`);
  }
} else if (process.env.SHOPWRIGHT_START_TSX === '1') {
  await runUnderTsx();
} else {
  let ready = false;
  try {
    if (!(await bundleIsCurrent())) await buildBundle();
    ready = true;
  } catch (error) {
    console.error(`npm start: running under tsx (no bundle: ${error instanceof Error ? error.message : error})`);
  }
  if (ready) {
    // Stack traces name the TypeScript sources, as they did under tsx.
    process.setSourceMapsEnabled(true);
    await import(pathToFileURL(bundle).href);
  } else {
    await runUnderTsx();
  }
}
