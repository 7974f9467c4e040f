import t from 'tap';
import { applicableRates, checkRate, fullRegion, postcodeMatches, type ShippingZone } from '../../src/services/shipping/index.js';

const zone = (fields: Partial<ShippingZone>): ShippingZone => ({
  id: 'z',
  name: 'Z',
  countries: [],
  regions: [],
  postcodes: [],
  position: 0,
  source: 'zones',
  rates: [],
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...fields
});

t.test('postcode patterns: exact, * anywhere, digit ranges; spaces and case ignored', async (t) => {
  t.ok(postcodeMatches('90210', '90210'));
  t.notOk(postcodeMatches('90210', '90211'));
  t.ok(postcodeMatches('9*', '94105'));
  t.ok(postcodeMatches('sw1*', 'SW1A 1AA'));
  t.ok(postcodeMatches('SW1A 1AA', 'sw1a1aa'));
  t.ok(postcodeMatches('*0', '10'), '* anywhere');
  t.notOk(postcodeMatches('9*', '19000'));
  t.ok(postcodeMatches('90000..96199', '90210-1234'), 'the first five characters');
  t.ok(postcodeMatches('90000..96199', '96199'), 'inclusive');
  t.notOk(postcodeMatches('90000..96199', '96200'));
  t.notOk(postcodeMatches('90000..96199', 'K1A 0B1'), 'not digits');
  t.notOk(postcodeMatches('90000..96199', '902'), 'too short');
  t.ok(postcodeMatches('1000000..1099999', '100-0001'.replace('-', '')));
  t.notOk(postcodeMatches('a.c', 'abc'), 'no regular expressions');
});

t.test('regions: CA and US-CA alike for a US address', async (t) => {
  t.equal(fullRegion('CA', 'US'), 'US-CA');
  t.equal(fullRegion('us-ca', 'US'), 'US-CA');
  t.equal(fullRegion('ON', null), 'ON');
  const california = zone({ countries: ['US'], regions: ['CA'], rates: [{ id: 'r', name: 'R', type: 'flat', price: 100, bands: null, freeOver: null, estimate: null }] });
  const contents = { shippingRequired: true, weightGrams: 0, subtotal: 0 };
  t.equal(applicableRates([california], { country: 'US', region: 'US-CA', postalCode: null }, contents).length, 1);
  t.equal(applicableRates([california], { country: 'US', region: 'ca', postalCode: null }, contents).length, 1);
  t.equal(applicableRates([california], { country: 'CA', region: 'CA', postalCode: null }, contents).length, 0, 'not Canada');
  t.same(checkRate([california], 'r', { country: 'US', region: 'NY', postalCode: null }, contents), { reason: 'does not ship to US-NY', field: 'region' });
});

t.test('bands: inclusive upTo, the open last band, a bounded last band refuses above it; freeOver wins', async (t) => {
  const rate = (bands: Array<{ upTo: number | null; price: number }>, freeOver: number | null = null) => ({ id: 'w', name: 'W', type: 'weight' as const, price: null, bands, freeOver, estimate: null });
  const price = (r: ReturnType<typeof rate>, weightGrams: number, subtotal = 0) => {
    const result = checkRate([zone({ rates: [r] })], 'w', { country: null, region: null, postalCode: null }, { shippingRequired: true, weightGrams, subtotal });
    return 'price' in result ? result.price : result.reason;
  };
  const open = rate([{ upTo: 1000, price: 500 }, { upTo: 5000, price: 900 }, { upTo: null, price: 1500 }], 5000);
  t.equal(price(open, 0), 500);
  t.equal(price(open, 1000), 500, 'upTo is inclusive');
  t.equal(price(open, 1001), 900);
  t.equal(price(open, 999_999), 1500);
  t.equal(price(open, 999_999, 5000), 0, 'free at the threshold');
  t.equal(price(rate([{ upTo: 500, price: 200 }]), 501), "the cart weighs 501 g, over this method's 500 g");
  const pickup = { id: 'p', name: 'P', type: 'pickup' as const, price: 0, bands: null, freeOver: null, estimate: null };
  t.equal(applicableRates([zone({ countries: ['US'], rates: [pickup] })], { country: 'DE', region: null, postalCode: null }, { shippingRequired: true, weightGrams: 0, subtotal: 0 }).length, 1, 'pickup anywhere');
  t.equal(applicableRates([zone({ rates: [pickup] })], { country: 'DE', region: null, postalCode: null }, { shippingRequired: false, weightGrams: 0, subtotal: 0 }).length, 0, 'nothing ships: no rate');
});
