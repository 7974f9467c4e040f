import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * A compiled test file found by its name (`outbox` → `dist/test/…/outbox.test.js`), wherever its
 * tier folder puts it (issue #32: tests in tiers). The lists of files run again elsewhere (the
 * embedded run, the Redis Cluster run) name files, not folders, so moving a file between tiers
 * breaks no list. Names are unique across the tiers; a name found twice or never is an error.
 */
export function compiledTestFile(name: string, root = 'dist/test'): string {
  const wanted = `${name}.test.js`;
  const found = (readdirSync(root, { recursive: true }) as string[]).filter((file) => path.basename(file) === wanted);
  if (found.length !== 1) throw new Error(`${found.length ? 'more than one' : 'no'} ${wanted} under ${root}${found.length ? `: ${found.join(', ')}` : ''}`);
  return path.join(root, found[0]!);
}
