import t from 'tap';
import { buildApp } from '../../helpers/app.js';

/**
 * `storefront_json(value)` writes a jsonb value as the storefront's JavaScript would: the pg driver
 * parses jsonb's text and JSON.stringify writes it (no spaces; integer-like keys first). Migration
 * 20261129010000 gave it a fast path for values of strings only; both paths must give exactly
 * JSON.stringify's bytes, whatever the strings hold (the separators' look-alikes above all).
 */
t.test('storefront_json writes what JSON.stringify writes, on its fast path and off it', async (t) => {
  const app = await buildApp(t);
  const values: unknown[] = [
    { Size: 'S' },
    { Size: 'M', Colour: 'Blue "navy"' },
    [{ name: 'Size', values: ['S', 'M', 'L'] }, { name: 'Colour', values: ['Blue "navy"'] }],
    { a: 'b, c' },
    { 'a, b': 'c' },
    { 'a: b': 'c' },
    { a: 'x: y' },
    { a: 'ends with a quote and comma\\", "' },
    { a: '", "b": "' },
    ['", "', '": "', ', ', ': '],
    { '1': 'x', b: 'y', '0': 'z', '10': 'w', '01': 'v' },
    { b: 1, a: 2.5, c: -3, f: 0.1 },
    [1.5, 2, '3'],
    { nested: { deeper: [{ k: 'v' }, [], {}], flag: true, none: null } },
    { 'Tab\there': 'new\nline', 'é': 'ü 🛍️', control: '\u0001\u2028', slash: 'a\\b</script>' },
    'a string',
    'with: colon, and comma',
    42,
    true,
    null,
    {},
    []
  ];
  const result = await app.ctx.db.raw('select v.ord, storefront_json(v.value) as written from jsonb_array_elements(?::jsonb) with ordinality as v(value, ord) order by v.ord', [
    JSON.stringify(values)
  ]);
  const parsed = await app.ctx.db.raw('select v.value::text as text from jsonb_array_elements(?::jsonb) with ordinality as v(value, ord) order by v.ord', [JSON.stringify(values)]);
  t.equal(result.rows.length, values.length);
  result.rows.forEach((row: { written: string }, i: number) => {
    const expected = JSON.stringify(JSON.parse((parsed.rows[i] as { text: string }).text));
    // The index only: a value's own text (U+2028) would break the TAP stream.
    t.equal(row.written, expected, `value ${i}`);
  });
});
