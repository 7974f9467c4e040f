import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The failed tests of a tap run, read back from tap's own record of each file
 * (`.tap/test-results/<file>.tap`) and printed after everything else. tap's reporter names a
 * failure where it happens, but the coverage table that follows it is some 400 lines long, and a
 * CI log that shows only its tail then says "fail: 1" without saying what failed.
 */
export interface FailedTest {
  file: string;
  /** The failing test points, outermost first: "not ok 3 - name", indented as in the TAP. */
  lines: string[];
  /** The YAML diagnostic under the innermost failure, bounded. */
  diagnostic: string[];
}

const NOT_OK = /^(\s*)not ok \d+ - (.*)$/;
const DIAGNOSTIC_LINES = 25;

function tapFiles(dir: string, since: number): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry);
    const stat = statSync(full);
    if (stat.isDirectory()) files.push(...tapFiles(full, since));
    else if (entry.endsWith('.tap') && stat.mtimeMs >= since) files.push(full);
  }
  return files.sort();
}

/** A failure that is a TODO or a SKIP is not one. */
function counts(name: string): boolean {
  return !/#\s*(TODO|SKIP)\b/i.test(name);
}

export function failedTests(resultsDir: string, since = 0): FailedTest[] {
  const failed: FailedTest[] = [];
  for (const file of tapFiles(resultsDir, since)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const failures: string[] = [];
    let diagnostic: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const match = NOT_OK.exec(lines[i]!);
      if (!match || !counts(match[2]!)) continue;
      failures.push(lines[i]!);
      // The diagnostic of the first (innermost) failure says most: what was expected and where.
      if (diagnostic.length === 0 && lines[i + 1]?.trim() === '---') {
        const end = lines.findIndex((line, j) => j > i + 1 && line.trim() === '...');
        diagnostic = lines.slice(i + 2, end === -1 ? i + 2 + DIAGNOSTIC_LINES : Math.min(end, i + 2 + DIAGNOSTIC_LINES));
      }
    }
    if (failures.length) failed.push({ file: path.relative(resultsDir, file).replace(/\.tap$/, ''), lines: failures, diagnostic });
  }
  return failed;
}

/** Prints the run's failed tests; returns how many files had one. */
export function printFailedTests(resultsDir: string, since: number): number {
  const failed = failedTests(resultsDir, since);
  if (!failed.length) return 0;
  console.log(`# failed tests (${failed.length} file${failed.length === 1 ? '' : 's'}; tap's record: ${resultsDir})`);
  for (const { file, lines, diagnostic } of failed) {
    console.log(`# ${file}`);
    for (const line of lines.slice(0, 10)) console.log(`#   ${line.trimEnd()}`);
    for (const line of diagnostic) console.log(`#     ${line.trimEnd()}`);
  }
  return failed.length;
}
