import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { waitForJob } from '../../helpers/jobs.js';
import { exportProducts, imageServer, importProducts, importProductsAndWait, shopifyCsv } from '../../helpers/products-csv.js';

const PRIVATE_OK = { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true' };

t.test('a Shopify file: variants, options, images from a local server, bad rows reported exactly; a second import changes nothing; the round trip is byte-equal', async (t) => {
  const app = await buildApp(t, { workers: ['imports'], env: PRIVATE_OK });
  const owner = await signupOwner(app);
  const images = await imageServer(t);
  const csv = shopifyCsv(
    [
      // line 2..4: a shirt with two options, three variants, two images (one on an image-only row)
      { Handle: 'shirt', Title: 'Shirt', 'Body (HTML)': '<p>Soft, "nice"</p>', Vendor: 'Acme', Type: 'Tops', Tags: 'summer, cotton', Published: 'TRUE', 'Option1 Name': 'Size', 'Option1 Value': 'S', 'Option2 Name': 'Color', 'Option2 Value': 'Red', 'Variant SKU': 'SH-S-R', 'Variant Grams': '200', 'Variant Inventory Qty': '5', 'Variant Inventory Policy': 'deny', 'Variant Price': '19.99', 'Variant Compare At Price': '25.00', 'Variant Requires Shipping': 'TRUE', 'Variant Taxable': 'TRUE', 'Image Src': images.url('/a.png'), 'Image Position': '1', 'Image Alt Text': 'front', 'SEO Title': 'Shirt!', Status: 'active' },
      { Handle: 'shirt', 'Option1 Value': 'M', 'Option2 Value': 'Red', 'Variant SKU': 'SH-M-R', 'Variant Inventory Qty': '3', 'Variant Price': '19.99', 'Image Src': images.url('/b.png'), 'Image Position': '2' },
      { Handle: 'shirt', 'Option1 Value': 'M', 'Option2 Value': 'Blue', 'Variant SKU': 'SH-M-B', 'Variant Inventory Qty': '0', 'Variant Inventory Policy': 'continue', 'Variant Price': '21' },
      // line 5: a product without options; its image is too big (fails only its row)
      { Handle: 'mug', Title: 'Mug', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant SKU': 'MUG', 'Variant Inventory Qty': '10', 'Variant Price': '8.50', 'Image Src': images.url('/big.png'), Status: 'draft' },
      // line 6..7: a bad price on the second variant row fails that row only; line 7 image is not an image
      { Handle: 'cap', Title: 'Cap', 'Option1 Name': 'Size', 'Option1 Value': 'One', 'Variant Price': '12.00', Status: 'active' },
      { Handle: 'cap', 'Option1 Value': 'Kid', 'Variant Price': 'twelve', 'Image Src': images.url('/text.png') },
      // line 8: no title on a product's first row: the whole product fails
      { Handle: 'nameless', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Price': '1.00' },
      // line 9: a SKU another row already has
      { Handle: 'dup', Title: 'Dup', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant SKU': 'mug', 'Variant Price': '2.00', Status: 'bogus' }
    ],
    ['Gift Card', 'Google Shopping / Gender']
  );
  const response = await importProducts(app, owner, csv);
  t.equal(response.status, 202);
  t.equal(response.body.data.job.type, 'products.import');
  const job = await waitForJob(app, owner, response.body.data.job.id);
  t.equal(job.status, 'completed', job.error ?? '');
  t.equal(job.progress.percent, 100);
  t.match(job.result, { mode: 'upsert', totalRows: 8, products: 5, created: 3, updated: 0, unchanged: 0, failedProducts: 2, images: 2 });
  t.same(job.result.ignoredColumns, ['Gift Card', 'Google Shopping / Gender'], 'unknown columns are listed');
  t.same(
    job.result.errors.map((e: { row: number; column: string }) => [e.row, e.column]),
    [
      [5, 'Image Src'],
      [7, 'Variant Price'],
      [7, 'Image Src'],
      [8, 'Title'],
      [9, 'Status']
    ]
  );
  t.match(job.result.errors[0].message, /larger than 10 MB/);
  t.match(job.result.errors[1].message, /"twelve" is not a price/);
  t.match(job.result.errors[2].message, /not an allowed image|refused/);

  const db = app.ctx.db;
  const shirt = await db('products').where({ storeId: owner.store.id, slug: 'shirt' }).first();
  t.equal(shirt.status, 'active');
  t.same(shirt.tags, ['summer', 'cotton']);
  t.same(shirt.options, [{ name: 'Size', values: ['S', 'M'] }, { name: 'Color', values: ['Red', 'Blue'] }]);
  t.equal(shirt.minPrice, 1999);
  t.equal(shirt.maxPrice, 2100);
  const variants = await db('productVariants').where({ productId: shirt.id }).orderBy('position');
  t.same(variants.map((v: { sku: string; price: number; inventoryQuantity: number }) => [v.sku, v.price, v.inventoryQuantity]), [['SH-S-R', 1999, 5], ['SH-M-R', 1999, 3], ['SH-M-B', 2100, 0]]);
  const media = await db('productMedia').where({ productId: shirt.id }).orderBy('position').join('media', 'media.id', 'productMedia.mediaId').select('media.sourceUrl', 'media.alt');
  t.same(media, [{ sourceUrl: images.url('/a.png'), alt: 'front' }, { sourceUrl: images.url('/b.png'), alt: null }]);
  const ledger = await db('inventoryLedger').where({ storeId: owner.store.id }).select('reasonCode', 'jobId', 'delta');
  t.equal(ledger.length, 3, 'stock given by the file is in the ledger (5, 3 and 10)');
  t.ok(ledger.every((l: { reasonCode: string; jobId: string }) => l.reasonCode === 'import' && l.jobId === job.id));
  const cap = await db('products').where({ storeId: owner.store.id, slug: 'cap' }).first();
  t.equal(await db('productVariants').where({ productId: cap.id }).count('* as n').first().then((r) => Number(r!.n)), 1, 'the bad variant row alone is left out');
  t.notOk(await db('products').where({ storeId: owner.store.id, slug: 'nameless' }).first(), 'a product whose first row fails is not created');

  // The storefront sees the active products.
  const list = await app.request({ url: '/storefront/products', storefrontToken: owner.storefrontToken });
  t.same(list.body.data.products.map((p: { slug: string }) => p.slug).sort(), ['cap', 'shirt']);

  // The same file again changes nothing and fetches nothing.
  const hitsBefore = images.hits.filter((h) => h === '/a.png' || h === '/b.png').length;
  const updatedAt = shirt.updatedAt.toISOString();
  const again = await importProductsAndWait(app, owner, csv);
  t.match(again.result, { created: 0, updated: 0, unchanged: 3, failedProducts: 2 });
  t.equal(images.hits.filter((h) => h === '/a.png' || h === '/b.png').length, hitsBefore, 'images already stored are not fetched again');
  t.equal((await db('products').where({ id: shirt.id }).first()).updatedAt.toISOString(), updatedAt, 'the product row is not rewritten');
  t.equal(Number((await db('inventoryLedger').where({ storeId: owner.store.id }).count('* as n').first())!.n), 3, 'no ledger rows');

  // Round trip: export, import into a new store, export again: the same bytes.
  const first = await exportProducts(app, owner);
  t.match(first.split('\r\n')[0], /^Handle,Title,Body \(HTML\),Vendor/);
  const other = await signupOwner(app);
  const copied = await importProductsAndWait(app, other, first);
  t.equal(copied.status, 'completed', copied.error ?? '');
  t.same(copied.result.errors, [], 'our own export imports cleanly');
  t.equal(copied.result.created, 3);
  const second = await exportProducts(app, other);
  t.equal(second, first, 'export -> import -> export is byte-equal');

  // Filters.
  const drafts = await exportProducts(app, owner, { status: 'draft' });
  t.same([...new Set(drafts.trim().split('\r\n').slice(1).map((line) => line.split(',')[0]))], ['mug']);
  const summer = await exportProducts(app, owner, { tag: 'summer' });
  t.same([...new Set(summer.trim().split('\r\n').slice(1).map((line) => line.split(',')[0]))], ['shirt']);
});

t.test('modes: create-only and update-only report the other kind of row; an updated file changes stock through the ledger', async (t) => {
  const app = await buildApp(t, { workers: ['imports'], env: PRIVATE_OK });
  const owner = await signupOwner(app);
  const row = (handle: string, qty: string, price = '5.00') => ({ Handle: handle, Title: handle.toUpperCase(), 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Inventory Qty': qty, 'Variant Price': price, Status: 'active' });
  await importProductsAndWait(app, owner, shopifyCsv([row('one', '4')]));
  const created = await importProductsAndWait(app, owner, shopifyCsv([row('one', '4'), row('two', '1')]), '?mode=create');
  t.match(created.result, { created: 1, failedProducts: 1 });
  t.same(created.result.errors.map((e: { row: number; column: string }) => [e.row, e.column]), [[2, 'Handle']]);
  t.match(created.result.errors[0].message, /exists \(mode create\)/);
  const updated = await importProductsAndWait(app, owner, shopifyCsv([row('one', '9', '6.00'), row('three', '1')]), '?mode=update');
  t.match(updated.result, { created: 0, updated: 1, failedProducts: 1 });
  t.same(updated.result.errors.map((e: { row: number; column: string }) => [e.row, e.column]), [[3, 'Handle']]);
  const one = await app.ctx.db('products').where({ storeId: owner.store.id, slug: 'one' }).first();
  const variant = await app.ctx.db('productVariants').where({ productId: one.id }).first();
  t.equal(variant.inventoryQuantity, 9);
  t.equal(variant.price, 600);
  const ledger = await app.ctx.db('inventoryLedger').where({ variantId: variant.id }).orderBy('createdAt');
  t.same(ledger.map((l: { delta: number; quantityAfter: number }) => [l.delta, l.quantityAfter]), [[4, 4], [5, 9]]);
});

t.test('one product import per store at a time; a file without Handle is refused at once', async (t) => {
  const app = await buildApp(t); // no workers: the first job stays queued
  const owner = await signupOwner(app);
  const csv = shopifyCsv([{ Handle: 'a', Title: 'A', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Price': '1.00' }]);
  const [first, second] = await Promise.all([importProducts(app, owner, csv), importProducts(app, owner, csv)]);
  t.same([first.status, second.status].sort(), [202, 409]);
  t.equal((first.status === 409 ? first : second).body.error.code, 'import_running');
  const other = await signupOwner(app);
  t.equal((await importProducts(app, other, csv)).status, 202, 'another store is not held up');
  const bad = await importProducts(app, owner, 'email,name\na@b.c,x\n');
  t.equal(bad.status, 400);
});

t.test('image URLs go through the webhooks SSRF guard: loopback is refused unless private hosts are allowed', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  const images = await imageServer(t);
  const job = await importProductsAndWait(
    app,
    owner,
    shopifyCsv([
      { Handle: 'p', Title: 'P', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Price': '1.00', 'Image Src': images.url('/a.png').replace('http:', 'https:') },
      { Handle: 'p', 'Image Src': 'https://169.254.169.254/latest/meta-data', 'Image Position': '2' },
      { Handle: 'p', 'Image Src': images.url('/b.png'), 'Image Position': '3' }
    ])
  );
  t.equal(job.status, 'completed', job.error ?? '');
  t.match(job.result, { created: 1, images: 0 });
  t.same(job.result.errors.map((e: { row: number; column: string }) => [e.row, e.column]), [[2, 'Image Src'], [3, 'Image Src'], [4, 'Image Src']]);
  t.match(job.result.errors[0].message, /refused.*(private|loopback)/);
  t.match(job.result.errors[1].message, /refused.*link-local/);
  t.match(job.result.errors[2].message, /refused.*https/, 'plain http only where private hosts are allowed (tests)');
  t.same(images.hits, [], 'the server was never called');
});

t.test('webhooks: each product an import creates or changes gets its own event, with the product as the admin API shows it (written per batch)', async (t) => {
  const app = await buildApp(t, { workers: ['imports'], env: PRIVATE_OK });
  const owner = await signupOwner(app);
  const subscribed = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: 'https://93.184.216.34/h', topics: ['product.created', 'product.updated'] }, token: owner.accessToken, storeId: owner.store.id });
  t.equal(subscribed.status, 201, subscribed.raw);
  const row = (handle: string, price: string, extra: Record<string, string> = {}) => ({ Handle: handle, Title: handle, 'Option1 Name': 'Size', 'Option1 Value': 'S', 'Variant SKU': `${handle}-s`, 'Variant Price': price, Status: 'active', ...extra });
  const variant = (handle: string, price: string) => ({ Handle: handle, 'Option1 Value': 'M', 'Variant SKU': `${handle}-m`, 'Variant Price': price });
  const file = (p: string) => shopifyCsv([row('a', '1.00'), variant('a', '2.00'), row('b', p), row('c', '3.00')]);
  const first = await importProductsAndWait(app, owner, file('5.00'));
  t.match(first.result, { created: 3 });
  const db = app.ctx.db;
  const events = async (topic: string) =>
    (await db('webhookEvents').where({ storeId: owner.store.id, topic }).orderBy('seq')) as Array<{ id: string; resourceId: string; data: any }>;
  const created = await events('product.created');
  t.equal(created.length, 3, 'one event per product created');
  const a = created.find((e) => e.data.slug === 'a')!;
  const shown = await app.request({ url: `/admin/products/${a.resourceId}`, token: owner.accessToken, storeId: owner.store.id });
  t.same(a.data, JSON.parse(JSON.stringify(shown.body.data.product)), 'the payload is the admin API product');
  t.equal(Number((await db('webhookDeliveries').where({ storeId: owner.store.id }).count('* as n').first())!.n), 3, 'one delivery per event and subscription');

  const again = await importProductsAndWait(app, owner, file('6.00'));
  t.match(again.result, { created: 0, updated: 1, unchanged: 2 });
  const updated = await events('product.updated');
  t.same(updated.map((e) => e.data.slug), ['b'], 'only the product that changed');
  t.equal(updated[0]!.data.minPrice, 600);
});
