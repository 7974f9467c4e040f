import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { exportProducts, importProductsAndWait, shopifyCsv } from '../../helpers/products-csv.js';

/** Shopify's 'Variant Grams' and 'Variant Requires Shipping' are the variant's weightGrams and requiresShipping, both ways. */
t.test('product CSV: Variant Grams and Variant Requires Shipping map to weightGrams and requiresShipping, and back', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  const csv = shopifyCsv([
    { Handle: 'kettle', Title: 'Kettle', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant SKU': 'KET', 'Variant Grams': '1500.0', 'Variant Weight Unit': 'kg', 'Variant Requires Shipping': 'TRUE', 'Variant Price': '40.00', Status: 'active' },
    { Handle: 'guide', Title: 'Guide', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant SKU': 'PDF', 'Variant Requires Shipping': 'FALSE', 'Variant Price': '5.00', Status: 'active' },
    { Handle: 'bad', Title: 'Bad', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant SKU': 'BAD', 'Variant Grams': 'heavy', 'Variant Requires Shipping': 'maybe', 'Variant Price': '1.00' }
  ]);
  const job = await importProductsAndWait(app, owner, csv);
  t.equal(job.status, 'completed', job.error ?? '');
  t.same(job.result.errors.map((e: { row: number; column: string }) => [e.row, e.column]), [[4, 'Variant Grams'], [4, 'Variant Requires Shipping']], 'a weight that is no number and a flag that is neither: that row only');
  const variants = await app.ctx.db('productVariants').where({ storeId: owner.store.id }).orderBy('sku').select('sku', 'weightGrams', 'requiresShipping', 'csvFields');
  t.same(variants.map((v: any) => [v.sku, v.weightGrams, v.requiresShipping]), [['KET', 1500, true], ['PDF', null, false]]);
  t.same(variants[0].csvFields, { 'Variant Weight Unit': 'kg' }, 'the display unit is kept as given');

  const exported = await exportProducts(app, owner);
  const [header, ...rows] = exported.trim().split('\n').map((line) => line.split(','));
  const column = (name: string) => header!.indexOf(name);
  const kettle = rows.find((row) => row[0] === 'kettle')!;
  const guide = rows.find((row) => row[0] === 'guide')!;
  t.same([kettle[column('Variant Grams')], kettle[column('Variant Weight Unit')], kettle[column('Variant Requires Shipping')]], ['1500', 'kg', 'TRUE']);
  t.same([guide[column('Variant Grams')], guide[column('Variant Requires Shipping')]], ['', 'FALSE']);

  // (The first re-import may add the product columns the export fills in, such as Published; the second changes nothing.)
  await importProductsAndWait(app, owner, exported);
  const again = await importProductsAndWait(app, owner, exported);
  t.match(again.result, { updated: 0, unchanged: 2 }, 'the export imports back unchanged');
  const after = await app.ctx.db('productVariants').where({ storeId: owner.store.id }).orderBy('sku').select('sku', 'weightGrams', 'requiresShipping');
  t.same(after.map((v: any) => [v.sku, v.weightGrams, v.requiresShipping]), [['KET', 1500, true], ['PDF', null, false]], 'weights and flags survive the round trip');

  // A file without the columns leaves what the admin set.
  await app.ctx.db('productVariants').where({ storeId: owner.store.id, sku: 'KET' }).update({ weightGrams: 1600 });
  const lean = ['Handle,Title,Option1 Name,Option1 Value,Variant SKU,Variant Price,Status', 'kettle,Kettle,Title,Default Title,KET,40.00,active'].join('\n') + '\n';
  const leanJob = await importProductsAndWait(app, owner, lean);
  t.equal(leanJob.status, 'completed');
  t.equal((await app.ctx.db('productVariants').where({ storeId: owner.store.id, sku: 'KET' }).first('weightGrams')).weightGrams, 1600);
});
