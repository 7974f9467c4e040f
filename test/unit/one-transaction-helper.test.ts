import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

// Sources are read from the repository (tests run from its root), not from dist/.
const ROOT = process.cwd();

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** Where a transaction may be opened other than through `withTransaction`. */
const PRIMITIVE_USERS = new Set([
  'src/db/transaction.ts', // the primitive itself
  'src/platform/with-transaction.ts', // the one helper of the services
  'src/platform/outbox/relay.ts' // the relay runs beside the services with a bare pool, no context
]);
/** Infrastructure below the services (adapters) uses the primitive too, never knex's. */
const usesPrimitive = (file: string) => PRIMITIVE_USERS.has(file) || file.startsWith('src/adapters/');

t.test('one way to open a transaction: withTransaction in services, transaction() underneath, never knex’s', async (t) => {
  const offenders: string[] = [];
  for (const file of sourceFiles('src')) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    if (file !== 'src/db/transaction.ts' && /\.transaction\(|Knex\.Transaction\b|transactionProvider/.test(text)) offenders.push(`${file}: knex's transaction`);
    if (!usesPrimitive(file) && /\btransaction\(\s*[a-zA-Z.]+\s*,/.test(text.replace(/withTransaction\(/g, ''))) {
      offenders.push(`${file}: opens transaction() directly (use withTransaction)`);
    }
  }
  t.same(offenders, [], 'every other file goes through withTransaction(ctx, (trx, emit) => …)');
});
