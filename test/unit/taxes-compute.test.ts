import t from 'tap';
import { allocateDiscount, matchRegion, normalizeRegion, proportionalShare, taxOf, taxWithRule, type TaxRegionRule } from '../../src/services/taxes/index.js';

/** The tax arithmetic of docs/taxes.md: per line, half up; the discount spread; the cumulative refund share. */
t.test('taxOf: exclusive adds round(amount × rate), inclusive extracts gross − round(gross / (1 + rate)), half up', async (t) => {
  t.equal(taxOf(1000, 725, false), 73, '72.5 -> 73 (half up)');
  t.equal(taxOf(1999, 500, false), 100, '99.95 -> 100');
  t.equal(taxOf(3598, 725, false), 261);
  t.equal(taxOf(1190, 1900, true), 190, '1190 / 1.19 = 1000 exactly');
  t.equal(taxOf(900, 1900, true), 144, '900 / 1.19 = 756.30 -> 756');
  t.equal(taxOf(2721, 700, true), 178);
  t.equal(taxOf(500, 0, false), 0);
  t.equal(taxOf(0, 2000, true), 0);
});

t.test('allocateDiscount: proportional shares rounded down, the rest to the largest line, adding up exactly', async (t) => {
  t.same(allocateDiscount([3998, 1250], 525), [400, 125]);
  t.same(allocateDiscount([3000, 2380], 500), [279, 221]);
  t.same(allocateDiscount([100, 100, 100], 100), [34, 33, 33], 'the first of equals takes the cent');
  t.same(allocateDiscount([100, 50], 1000), [100, 50], 'never more than the lines');
  t.same(allocateDiscount([100, 50], 0), [0, 0]);
});

t.test('matchRegion: the region beats the country; CA and US-CA alike; no rule, no tax', async (t) => {
  const rules: TaxRegionRule[] = [
    { country: 'US', region: '', name: 'US', rate: 500, classRates: {}, taxShipping: false },
    { country: 'US', region: 'CA', name: 'CA', rate: 725, classRates: { reduced: 100 }, taxShipping: true }
  ];
  t.equal(matchRegion(rules, { country: 'US', region: 'US-CA' })?.name, 'CA');
  t.equal(matchRegion(rules, { country: 'us', region: 'ca' })?.name, 'CA');
  t.equal(matchRegion(rules, { country: 'US', region: 'NY' })?.name, 'US');
  t.equal(matchRegion(rules, { country: 'DE' }), null);
  t.equal(normalizeRegion('US', 'US-CA'), 'CA');
  const result = taxWithRule(matchRegion(rules, { country: 'US', region: 'CA' }), {
    pricesIncludeTax: false,
    lines: [{ key: 'a', amount: 1000, quantity: 1, taxClass: 'reduced' }, { key: 'b', amount: 1000, quantity: 1, taxClass: 'unknown' }],
    shipping: 500
  });
  t.same(result.lines.map((lines) => lines.map((line) => line.amount)), [[10], [73]], 'a class rate, and the default for an unknown class');
  t.same(result.shipping.map((line) => line.amount), [36], 'shipping at the default rate: 36.25 -> 36');
});

t.test('proportionalShare: cumulative refunds of a line give back its tax to the cent, never more', async (t) => {
  const shares = [0, 1, 2].map((before) => proportionalShare(261, before, 1, 3));
  t.same(shares, [87, 87, 87]);
  t.equal(proportionalShare(261, 0, 1, 2) + proportionalShare(261, 1, 1, 2), 261);
  t.equal(proportionalShare(5, 0, 1, 3) + proportionalShare(5, 1, 1, 3) + proportionalShare(5, 2, 1, 3), 5);
  t.equal(proportionalShare(10, 2, 5, 3), 3, 'past the quantity: only the rest (10 - 7)');
});
