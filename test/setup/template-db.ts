import { createDb } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { adminQuery, databaseUrl, TEMPLATE_DATABASE } from '../helpers/databases.js';

// Runs once before the test files: a freshly migrated template that each file clones.
await adminQuery(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
await adminQuery(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
const db = createDb(databaseUrl(TEMPLATE_DATABASE), { max: 1 });
try {
  await migrateLatest(db);
} finally {
  await db.destroy();
}
