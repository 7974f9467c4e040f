import { spawn } from 'node:child_process';
import os from 'node:os';
import { compiledTestFile } from '../helpers/test-files.js';

/**
 * `npm run test:embedded`: the queue-heavy suites once more on the zero-setup stack, as on a machine
 * with only Node.js: DATABASE_URL and REDIS_URL unset, so run-tap.ts runs an embedded PostgreSQL
 * and the queues take their Redis-free backend. `.ci/run` runs it after the whole suite on system
 * PostgreSQL and Redis. Extra arguments go to tap (a file list replaces this one).
 */
const SUITES = [
  'embedded-postgres',
  // imports and exports
  'customers-import',
  'customers-import-retry',
  'customers-import-repeats',
  'customers-export',
  // campaigns
  'marketing-campaigns',
  'marketing-delivery',
  'marketing-rate',
  'marketing-crash',
  'campaign-sweep',
  // the outbox and schedulers
  'outbox',
  'domains-recheck',
  'webhook-reconcile',
  'jobs-failure',
  // webhooks
  'webhooks',
  'webhooks-crash',
  'webhook-topics',
  'webhook-sweep',
  'stripe-webhooks',
  // rate limits
  'storefront-rate-limit',
  'newsletter-subscribe-limits',
  'api-keys',
  // cache invalidation between processes
  'storefront-http-cache',
  'storefront-documents-fresh',
  'storefront-tokens',
  // what processes share on the Redis-free backends
  'backends-shared-state',
  'backends-campaign-rate'
];

const env = { ...process.env };
for (const name of ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'TEST_ADMIN_DATABASE_URL']) delete env[name];
const extra = process.argv.slice(2);
const files = extra.some((arg) => arg.endsWith('.js')) ? [] : SUITES.map((name) => compiledTestFile(name));
// Coverage is the whole suite's business: its floor is for every file together, so a subset neither
// measures it nor fails on it.
const run = spawn(process.execPath, ['dist/test/setup/run-tap.js', '--disable-coverage', '--allow-incomplete-coverage', '--coverage-report=none', ...files, ...extra], { stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => run.kill(signal));
run.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
