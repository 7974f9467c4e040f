#!/usr/bin/env node
// Issue #32, item 5: tests in tiers. Moves each test file from the flat test/ folder into its tier
//
//   test/unit/                 no database, no process: node and the code under test
//   test/integration/<module>/ one module through the HTTP API, its jobs and its tables (DB + queue)
//   test/system/<kind>/        processes, browsers, clusters, hardening, the embedded server
//
// with `git mv`, then rewrites what the move breaks: relative imports in the moved files, the
// `test/<name>.test.ts` and `dist/test/<name>.test.js` paths that documents, comments and scripts
// name, and dependency-cruiser's pattern for test files. Lists that run files again by name (the
// embedded run, the Redis Cluster run) find them in any folder (test/helpers/test-files.ts).
//
// Idempotent: a file already in its tier is left there, an import that resolves is left alone,
// and a second run changes nothing. Plain Node ESM, no dependencies: run it from the repository root
//
//   node scripts/tier-tests.mjs            # move and rewrite
//   node scripts/tier-tests.mjs --dry-run  # print what it would do
//
// A test file in test/ that the plan below does not name is reported and the exit code is 1:
// put it in the plan (or move it by hand) and run again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Tier folder (under test/) → the test files it holds, by name (`carts` is test/carts.test.ts). */
export const PLAN = {
  unit: ['address-ranges', 'config', 'csv-quotes', 'logger', 'one-transaction-helper', 'readme-facts', 'start-addresses', 'table-ownership'],

  'integration/api': ['event-streams', 'health', 'list-order', 'openapi-and-queues', 'openapi-contract', 'openapi-operations', 'role-matrix', 'scope-matrix', 'tenancy', 'www-authenticate'],
  'integration/platform': ['citus-rules', 'db-statement', 'db-transaction', 'idempotency-purge', 'jobs-failure', 'prepared-statements', 'private-files', 'queue-dashboard', 'queue-postgres-pool'],
  'integration/stores': ['api-keys', 'api-keys-creator-rights', 'auth-signup', 'auth-tokens', 'email-link-pages', 'scoped-data', 'store-settings', 'team'],
  'integration/catalog': [
    'catalog-collections',
    'catalog-inventory',
    'catalog-media',
    'catalog-products',
    'catalog-storefront',
    'reviews',
    'stock-count-holds',
    'storefront-byte-equivalence',
    'storefront-compression',
    'storefront-documents-fresh',
    'storefront-http-cache',
    'storefront-prepared-plans',
    'storefront-rate-limit',
    'storefront-search-fresh',
    'storefront-tokens',
    'variant-low-stock',
    'inventory-ledger',
    'products-bulk',
    'products-import',
    'products-import-retry'
  ],
  'integration/checkout': ['cart-add-race', 'cart-session-race', 'carts', 'checkout', 'checkout-malformed', 'checkout-multi-variant-race', 'checkout-session-refusal', 'discounts'],
  'integration/orders': ['manual-payments', 'orders', 'orders-lifecycle', 'orders-restock-once', 'orders-restock-races', 'payments', 'stripe-event-trust', 'stripe-webhooks', 'webhook-reconcile'],
  'integration/customers': ['customers-admin', 'customers-export', 'customers-import', 'customers-import-repeats', 'customers-import-retry'],
  'integration/marketing': [
    'campaign-sweep',
    'marketing-api',
    'marketing-campaigns',
    'marketing-delivery',
    'marketing-purchases',
    'marketing-rate',
    'newsletter-subscribe-limits',
    'newsletter-unsubscribe'
  ],
  'integration/email': ['email', 'issues', 'issues-raised'],
  'integration/audit': ['audit-log'],
  'integration/webhooks': ['webhooks-standard', 'webhook-host-concurrency', 'webhook-limits', 'webhook-ssrf', 'webhook-sweep', 'webhook-topics', 'webhook-topics-stripe', 'webhooks'],
  'integration/domains': ['domains', 'domains-recheck'],
  'integration/integrations': ['external-system'],

  'system/processes': [
    'backends-campaign-rate',
    'backends-shared-state',
    'many-processes',
    'marketing-crash',
    'npm-script-signals',
    'outbox',
    'shutdown',
    'template-db-per-run',
    'webhooks-crash'
  ],
  'system/browsers': ['console-auth', 'console-flow', 'console-serving', 'console-settings'],
  'system/clusters': ['redis-cluster', 'replica-routing'],
  // Hostile input: every route walked with malformed input (2 min alone on a busy machine), store
  // templates that try files, huge loops and slow renders, the outside hardening steps.
  'system/hardening': ['hardening-bounds', 'hardening-input', 'hardening-newcomer', 'hardening-security', 'queue-dashboard-hardening', 'route-walk', 'templates-sandbox'],
  'system/embedded': ['embedded-postgres']
};

const ROOT = process.cwd();
const TEST = path.join(ROOT, 'test');
const dryRun = process.argv.includes('--dry-run');
const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/');

if (!existsSync(path.join(ROOT, 'package.json')) || !existsSync(TEST)) {
  console.error('run from the repository root (no package.json or test/ here)');
  process.exit(2);
}

/** name → tier, refusing a name planned twice. */
const tierOf = new Map();
for (const [tier, names] of Object.entries(PLAN)) {
  for (const name of names) {
    if (tierOf.has(name)) throw new Error(`${name} is planned in ${tierOf.get(name)} and ${tier}`);
    tierOf.set(name, tier);
  }
}

/** Every *.test.ts under test/ (helpers and setup hold none), as name → path. */
function testFiles() {
  const found = new Map();
  for (const entry of readdirSync(TEST, { recursive: true })) {
    const file = path.join(TEST, entry);
    if (!entry.endsWith('.test.ts') || !statSync(file).isFile()) continue;
    const name = path.basename(entry, '.test.ts');
    if (found.has(name)) throw new Error(`two test files named ${name}: ${rel(found.get(name))} and ${rel(file)}`);
    found.set(name, file);
  }
  return found;
}

// 1. Move: planned files still elsewhere go to their tier.
const moves = [];
const unplanned = [];
const missing = [];
const files = testFiles();
for (const [name, file] of files) {
  const tier = tierOf.get(name);
  if (!tier) {
    if (path.dirname(file) === TEST) unplanned.push(rel(file));
    continue;
  }
  const target = path.join(TEST, tier, `${name}.test.ts`);
  if (file !== target) moves.push({ name, from: file, to: target });
}
for (const name of tierOf.keys()) if (!files.has(name)) missing.push(name);

for (const { from, to } of moves) {
  console.log(`git mv ${rel(from)} ${rel(to)}`);
  if (dryRun) continue;
  mkdirSync(path.dirname(to), { recursive: true });
  execFileSync('git', ['mv', from, to], { cwd: ROOT, stdio: 'inherit' });
}

// 2. Relative imports in the tier folders: a specifier that no longer resolves from the file's folder
//    but resolves from test/ (where every test file lived) is rewritten to reach the same file.
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bnew URL\(\s*)(['"])(\.{1,2}\/[^'"]+)\2/g;

/** Whether a TypeScript-style specifier (`./x.js` for x.ts) names a file or folder from `dir`. */
function resolves(dir, specifier) {
  const target = path.resolve(dir, specifier);
  const candidates = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target.replace(/\.mjs$/, '.mts')];
  return candidates.some((candidate) => existsSync(candidate));
}

function rewriteImports(file) {
  const dir = path.dirname(path.resolve(ROOT, file));
  if (dir === TEST) return 0;
  let changed = 0;
  const text = readFileSync(file, 'utf8');
  const next = text.replace(SPECIFIER, (whole, lead, quote, specifier) => {
    if (resolves(dir, specifier) || !resolves(TEST, specifier)) return whole;
    let moved = path.relative(dir, path.resolve(TEST, specifier)).split(path.sep).join('/');
    if (!moved.startsWith('.')) moved = `./${moved}`;
    changed += 1;
    return `${lead}${quote}${moved}${quote}`;
  });
  if (changed && !dryRun) writeFileSync(file, next);
  return changed;
}

const placed = dryRun ? moves.map(({ from }) => from) : [...testFiles().values()];
let imports = 0;
for (const file of placed) {
  const count = dryRun ? 0 : rewriteImports(file);
  if (count) console.log(`rewrote ${count} import(s) in ${rel(file)}`);
  imports += count;
}

// 3. Paths that name a moved file: documents, comments, scripts. `test/<name>.test.ts` and
//    `dist/test/<name>.test.js` only where they name the flat folder, so a second run finds none.
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((file) => /\.(md|ts|tsx|mjs|cjs|js|json|yml|yaml)$|^\.ci\/run$|^\.taprc$/.test(file) && file !== 'scripts/tier-tests.mjs' && existsSync(path.join(ROOT, file)));
let mentions = 0;
for (const file of tracked) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const next = text.replace(/(?<![\w.-])(dist\/)?test\/([a-z0-9-]+)\.test\.(ts|js)\b/g, (whole, dist, name) => {
    const tier = tierOf.get(name);
    if (!tier) return whole;
    mentions += 1;
    return `${dist ?? ''}test/${tier}/${name}.test.${whole.endsWith('.js') ? 'js' : 'ts'}`;
  });
  if (next !== text) {
    console.log(`rewrote paths in ${file}`);
    if (!dryRun) writeFileSync(path.join(ROOT, file), next);
  }
}

// 4. dependency-cruiser: test files (entry points nothing imports) may sit in any folder under test/.
const cruiser = path.join(ROOT, '.dependency-cruiser.cjs');
if (existsSync(cruiser)) {
  const text = readFileSync(cruiser, 'utf8');
  // A function, not a replacement string: in one, `$'` would mean "the text after the match".
  const next = text.replace("'^test/[^/]+\\\\.test\\\\.ts$'", () => "'^test/.+\\\\.test\\\\.ts$'");
  if (next !== text) {
    console.log('.dependency-cruiser.cjs: test files in any folder under test/');
    if (!dryRun) writeFileSync(cruiser, next);
  }
}

console.log(`${dryRun ? 'would move' : 'moved'} ${moves.length} file(s); ${imports} import(s) and ${mentions} path mention(s) rewritten`);
if (missing.length) console.log(`planned but not found (renamed or deleted? update PLAN): ${missing.join(', ')}`);
if (unplanned.length) {
  console.log(`not in the plan, left in test/: ${unplanned.join(', ')}; add each to PLAN and run again`);
  process.exit(1);
}
