import { adminQuery, dropReleasedDatabases, quoteIdentifier, TEMPLATE_DATABASE } from '../helpers/databases.js';

// Runs once after every test file (tap's `after`): this run's template is not left behind. Only
// this run's: another run on the same server has a template of its own. With it, at once (each drop
// waits for a checkpoint, and drops at the same moment share them), the databases the run's files
// released (helpers/databases.ts, releaseTestDatabase).
const runDir = process.env.TEST_RUN_DIR;
const started = Date.now();
const [, released] = await Promise.all([
  adminQuery(`DROP DATABASE IF EXISTS ${quoteIdentifier(TEMPLATE_DATABASE)} WITH (FORCE)`),
  runDir ? dropReleasedDatabases(runDir) : 0
]);
if (released) console.log(`# dropped the template and the ${released} test databases of the run in ${((Date.now() - started) / 1000).toFixed(1)} s`);
