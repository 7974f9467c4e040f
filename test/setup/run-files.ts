import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The tiers' runner (`npm run test:quick` and friends): each test file in a plain `node` process, N at
 * a time, longest first. Why not tap's runner here: tap starts every file with two module-loader hooks
 * (@tapjs/processinfo, for coverage, and @tapjs/mock) and source maps, and with those importing the
 * app's ~1,800 modules takes 3-5 s per file instead of ~1 s; over 120 files on two cores that was
 * half of the quick tier's wall time. The files are the same tap files (each prints TAP and exits
 * non-zero on a failure); only coverage, which the tiers do not measure, is left out. `npm test`
 * still runs everything through tap with coverage.
 */

export interface FileResult {
  file: string;
  ok: boolean;
  ms: number;
  output: string;
}

export interface RunFilesOptions {
  jobs: number;
  /** The limit each file's tap applies to itself (TAP_TIMEOUT), as .taprc's `timeout` does under tap's runner. */
  timeoutSeconds: number;
  /** Last runs' durations, read to start the longest files first and written back. */
  timesFile: string;
  env: NodeJS.ProcessEnv;
  /** Called as each file's process exits, with its pid (what it released is complete then). */
  onFileDone?: (pid: number) => void;
}

/** The test files named: files as given, folders searched for `*.test.js`. */
export function collectTestFiles(targets: string[]): string[] {
  const files: string[] = [];
  const walk = (entry: string) => {
    if (statSync(entry).isDirectory()) {
      for (const name of readdirSync(entry).sort()) walk(path.join(entry, name));
    } else if (entry.endsWith('.test.js')) files.push(entry);
  };
  for (const target of targets) walk(target);
  return [...new Set(files)];
}

function readTimes(timesFile: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(timesFile, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** The longest a file's process may run before the runner kills it, whatever limit it set itself. */
const HARD_STOP_SECONDS = 600;

function runOne(file: string, options: RunFilesOptions): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], {
      env: { ...options.env, TAP_TIMEOUT: String(options.timeoutSeconds) },
      stdio: ['ignore', 'pipe', 'pipe']
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A file whose process does not exit (an open handle after its tap timed out) is stopped here,
    // as tap's runner would; late enough for a file that sets a longer limit on itself
    // (t.setTimeout: many-processes asks for 360 s, which a loaded machine needs).
    const hardStop = setTimeout(() => child.kill('SIGKILL'), Math.max(options.timeoutSeconds + 30, HARD_STOP_SECONDS) * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(hardStop);
      if (child.pid !== undefined) options.onFileDone?.(child.pid);
      const output = Buffer.concat(chunks).toString('utf8') + (signal ? `\n# killed by ${signal}\n` : '');
      resolve({ file, ok: code === 0 && !signal, ms: Date.now() - started, output });
    });
  });
}

/** Runs the files, printing one TAP line per file and a failing file's whole output; resolves to the results. */
export async function runFiles(files: string[], options: RunFilesOptions): Promise<FileResult[]> {
  const times = readTimes(options.timesFile);
  // Unknown files first (they may be long), then the longest: the last slot to finish is then a short file.
  const queue = [...files].sort((a, b) => (times[b] ?? Infinity) - (times[a] ?? Infinity) || a.localeCompare(b));
  const results: FileResult[] = [];
  console.log('TAP version 14');
  console.log(`1..${files.length}`);
  const worker = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const result = await runOne(file, options);
      results.push(result);
      const line = `${result.ok ? 'ok' : 'not ok'} ${results.length} - ${file} # time=${(result.ms / 1000).toFixed(1)}s`;
      if (!result.ok) console.log(result.output.replace(/^/gm, '    '));
      console.log(line);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  for (const result of results) times[result.file] = result.ms;
  mkdirSync(path.dirname(options.timesFile), { recursive: true });
  writeFileSync(options.timesFile, JSON.stringify(times, null, 1));
  return results;
}

/**
 * One file more than cores: a file spends part of its time waiting on PostgreSQL, Redis and timers
 * (on two quiet cores the quick tier took 5 min 18 s two at a time, 4 min 44 s three at a time).
 */
export const defaultJobs = () => os.availableParallelism() + 1;
