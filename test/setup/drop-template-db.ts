import { adminQuery, TEMPLATE_DATABASE } from '../helpers/databases.js';

// Runs once after every test file (tap's `after`): the template each file cloned is not left behind.
await adminQuery(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
