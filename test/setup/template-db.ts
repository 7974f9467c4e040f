import { createDb } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { adminQuery, databaseUrl, quoteIdentifier, TEMPLATE_DATABASE } from '../helpers/databases.js';

// Runs once before the test files (tap's `before`): a freshly migrated template that each file
// clones. The name is this run's own (helpers/databases.ts), so the drop touches no other run's.
const template = quoteIdentifier(TEMPLATE_DATABASE);
await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
await adminQuery(`CREATE DATABASE ${template}`);
const db = createDb(databaseUrl(TEMPLATE_DATABASE), { max: 1 });
try {
  await migrateLatest(db);
} finally {
  await db.destroy();
}
