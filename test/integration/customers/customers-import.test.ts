import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { customerByEmail, importAndWait, importCsv, waitForJob } from '../../helpers/jobs.js';

// One app with the imports worker for the file (issue #32: each app costs a cloned database and a
// server), as every test wanted; each signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t, { workers: ['imports'] });
});

t.test('CSV import: bad rows reported per row, good rows kept, last duplicate wins', async (t) => {
  const owner = await signupOwner(app);
  const csv = [
    'email,firstName,lastName,phone,tags,note,emailMarketing',
    'ann@example.com,Ann,First,,vip,,subscribed',
    ',No,Email,,,,',
    'not-an-email,Bad,Email,,,,',
    'BOB@example.com,Bob,Early,,,,',
    'carl@example.com,Carl,Marketing,,,,maybe',
    'bob@example.com,Bob,Late,555,"a, b",hello,not_subscribed'
  ].join('\n');
  const response = await importCsv(app, owner, csv);
  t.equal(response.status, 202);
  t.equal(response.body.data.job.type, 'customers.import');
  t.equal(response.body.data.job.status, 'queued');
  const job = await waitForJob(app, owner, response.body.data.job.id);
  t.equal(job.status, 'completed', job.error ?? '');
  t.equal(job.progress.percent, 100);
  t.match(job.result, { dryRun: false, totalRows: 6, validRows: 3, invalidRows: 3, created: 2, duplicateRows: 1 });
  t.same(
    job.result.errors.map((e: { row: number; column: string }) => [e.row, e.column]),
    [
      [3, 'email'],
      [4, 'email'],
      [6, 'emailMarketing'],
      [7, 'email']
    ]
  );
  t.match(job.result.errors[1].message, /not a valid email/);
  t.match(job.result.errors[3].message, /^warning: repeats the email of row 5; this row replaces it/, 'a repeated email is a warning naming the row it replaced');
  const bob = await customerByEmail(app, owner.store.id, 'bob@example.com');
  t.equal(bob.lastName, 'Late', 'the later row wins');
  t.same(bob.tags, ['a', 'b']);
  t.equal(bob.email, 'bob@example.com');
  const ann = await customerByEmail(app, owner.store.id, 'ann@example.com');
  t.equal(ann.emailMarketing, 'subscribed');
  t.equal(ann.emailMarketingSource, 'import');
  t.equal(await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first().then((r) => Number(r!.n)), 2);
});

t.test('Shopify export format, BOM, CRLF, quoted commas and newlines', async (t) => {
  const owner = await signupOwner(app);
  const shopify =
    '\uFEFFFirst Name,Last Name,Email,Accepts Email Marketing,Default Address Company,Default Address Address1,Phone,Tags,Note,Tax Exempt\r\n' +
    'Dana,"Smith, Jr.",dana@example.com,yes,"Acme, Inc.","1 Main St",+15550001,"wholesale, vip","line one\r\nline two",no\r\n' +
    'Eve,Jones,EVE@Example.com,no,,,,,,no\r\n';
  const job = await importAndWait(app, owner, Buffer.from(shopify, 'utf8'));
  t.equal(job.status, 'completed', job.error ?? '');
  t.match(job.result, { totalRows: 2, validRows: 2, invalidRows: 0, created: 2 });
  const dana = await customerByEmail(app, owner.store.id, 'dana@example.com');
  t.equal(dana.firstName, 'Dana', 'BOM stripped from the first header');
  t.equal(dana.lastName, 'Smith, Jr.');
  t.equal(dana.phone, '+15550001');
  t.same(dana.tags, ['wholesale', 'vip']);
  t.equal(dana.note, 'line one\r\nline two');
  t.equal(dana.emailMarketing, 'subscribed');
  const eve = await customerByEmail(app, owner.store.id, 'eve@example.com');
  t.equal(eve.email, 'eve@example.com');
  t.equal(eve.emailMarketing, 'not_subscribed');
});

t.test('multipart upload, dry run writes nothing, non-CSV is 400', async (t) => {
  const owner = await signupOwner(app);
  await app.ctx.db('customers').insert({ storeId: owner.store.id, email: 'old@example.com', firstName: 'Old' });

  const dry = await importAndWait(app, owner, 'Email,First Name\nold@example.com,New\nfresh@example.com,Fresh\nbad,x\n', '?dryRun=true');
  t.equal(dry.status, 'completed');
  t.match(dry.result, { dryRun: true, totalRows: 3, validRows: 2, invalidRows: 1, created: 1, updated: 1 });
  t.equal((await customerByEmail(app, owner.store.id, 'old@example.com')).firstName, 'Old', 'dry run changed nothing');
  t.notOk(await customerByEmail(app, owner.store.id, 'fresh@example.com'));

  const boundary = '----sw' + Date.now();
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\n` +
    'email,firstName\r\nmulti@example.com,Multi\r\n' +
    `\r\n--${boundary}--\r\n`;
  const multipart = await app.request({
    method: 'POST',
    url: '/admin/customers/import',
    payload: body,
    token: owner.accessToken,
    storeId: owner.store.id,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }
  });
  t.equal(multipart.status, 202, multipart.raw);
  const job = await waitForJob(app, owner, multipart.body.data.job.id);
  t.equal(job.result.created, 1);
  t.equal((await customerByEmail(app, owner.store.id, 'multi@example.com')).firstName, 'Multi');

  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.alloc(64)]);
  const binary = await importCsv(app, owner, png);
  t.equal(binary.status, 400);
  t.equal(binary.body.error.code, 'bad_request');
  const noEmail = await importCsv(app, owner, 'name,city\nx,y\n');
  t.equal(noEmail.status, 400);
  const wrongType = await app.request({
    method: 'POST',
    url: '/admin/customers/import',
    payload: { email: 'x@example.com' },
    token: owner.accessToken,
    storeId: owner.store.id
  });
  t.equal(wrongType.status, 415);
  const jobs = await app.request({ url: '/admin/jobs?type=customers.import', token: owner.accessToken, storeId: owner.store.id });
  t.equal(jobs.body.data.jobs.length, 2, 'refused uploads queue no job');
});

t.test('a quote never closed after thousands of good rows fails the import before any row is written', async (t) => {
  const owner = await signupOwner(app);
  // 12,000 good rows: more than one 5,000-row batch per partition before the broken line.
  const good = Array.from({ length: 12_000 }, (_, i) => `early${i}@example.com,Early${i},"Last, ${i}"`);
  const lines = ['email,firstName,lastName', ...good, 'broken@example.com,"Never closed,Row', ...Array.from({ length: 300 }, (_, i) => `late${i}@example.com,Late,Row`)];
  const response = await importCsv(app, owner, lines.join('\n') + '\n');
  t.equal(response.status, 202);
  const job = await waitForJob(app, owner, response.body.data.job.id);
  t.equal(job.status, 'failed');
  t.match(job.error, /^Line 12002: a quoted field is never closed; nothing was imported/, 'the line the quote opens on');
  t.equal(await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first().then((r) => Number(r!.n)), 0, 'no customer from that file');
  t.equal(job.progress.processedRows ?? 0, 0, 'no batch was applied');
  t.equal(await app.ctx.db('jobRowErrors').where({ jobId: job.id }).count('* as n').first().then((r) => Number(r!.n)), 0);

  // A quote inside a quoted field that is neither doubled nor closing: papaparse would keep the
  // field open over the next lines; the import names the line instead.
  const stray = ['email,note', ...good.slice(0, 6_000).map((line) => line.split(',')[0] + ',ok'), 'x@example.com,"says "hi" twice"', 'y@example.com,ok'];
  const strayJob = await importAndWait(app, owner, stray.join('\r\n'));
  t.equal(strayJob.status, 'failed');
  t.match(strayJob.error, /^Line 6002: a quoted field has a quote \("\) that is neither doubled nor closing it; nothing was imported/);
  t.equal(await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first().then((r) => Number(r!.n)), 0);

  // Doubled quotes, quoted delimiters and quoted line breaks are fine.
  const semicolons = ['email;note', 'o@example.com;plain', 'p@example.com;"x"', 'q@example.com;"a ""quoted""; note\r\nover two lines"', ...Array.from({ length: 10 }, (_, i) => `r${i}@example.com;`)];
  const fine = await importAndWait(app, owner, semicolons.join('\r\n') + '\r\n');
  t.equal(fine.status, 'completed', fine.error ?? '');
  t.equal((await customerByEmail(app, owner.store.id, 'q@example.com')).note, 'a "quoted"; note\r\nover two lines', 'a semicolon file keeps its dialect');

  // A small semicolon file ending in a line break (the empty last row once hid its delimiter).
  const small = await importAndWait(app, owner, 'email;firstName\ns1@example.com;Sia\ns2@example.com;Sol\n');
  t.equal(small.status, 'completed', small.error ?? '');
  t.equal((await customerByEmail(app, owner.store.id, 's2@example.com')).firstName, 'Sol', 'a two-row semicolon file is read by its delimiter');
});
