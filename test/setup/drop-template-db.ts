import { adminQuery, quoteIdentifier, TEMPLATE_DATABASE } from '../helpers/databases.js';

// Runs once after every test file (tap's `after`): this run's template is not left behind. Only
// this run's: another run on the same server has a template of its own.
await adminQuery(`DROP DATABASE IF EXISTS ${quoteIdentifier(TEMPLATE_DATABASE)} WITH (FORCE)`);
