import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { failedTests } from '../setup/failure-summary.js';

/** tap's record of a run as tap writes it (.tap/test-results/<file>.tap), read back for the tail of a CI log. */
t.test('the failed tests of a run are read back from tap\'s record, with the innermost diagnostic', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'failure-summary-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'dist/test/integration/orders'), { recursive: true });
  writeFileSync(
    path.join(dir, 'dist/test/integration/orders/refunds.test.js.tap'),
    [
      'TAP version 14',
      '# Subtest: a refund never exceeds the payment',
      '    ok 1 - should be equal',
      '    not ok 2 - the second refund is refused',
      '      ---',
      '      found: 200',
      '      wanted: 422',
      '      at:',
      '        fileName: dist/test/integration/orders/refunds.test.js',
      '      ...',
      '    not ok 3 - a known gap # TODO stock in two warehouses',
      '    1..3',
      'not ok 1 - a refund never exceeds the payment',
      '1..1',
      ''
    ].join('\n')
  );
  writeFileSync(path.join(dir, 'dist/test/integration/orders/passes.test.js.tap'), 'TAP version 14\nok 1 - fine\n1..1\n');
  writeFileSync(path.join(dir, 'dist/test/integration/orders/old-run.test.js.tap'), 'TAP version 14\nnot ok 1 - from an earlier run\n1..1\n');
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(path.join(dir, 'dist/test/integration/orders/old-run.test.js.tap'), old, old);

  const failed = failedTests(dir, Date.now() - 60_000);
  t.equal(failed.length, 1, 'only the failing file of this run; a TODO and an earlier run\'s file do not count');
  t.equal(failed[0]!.file, 'dist/test/integration/orders/refunds.test.js');
  t.same(
    failed[0]!.lines.map((line) => line.trim()),
    ['not ok 2 - the second refund is refused', 'not ok 1 - a refund never exceeds the payment']
  );
  t.same(failed[0]!.diagnostic.slice(0, 2).map((line) => line.trim()), ['found: 200', 'wanted: 422']);
  t.same(failedTests(path.join(dir, 'missing'), 0), [], 'no record, no failures');
});
