import { test } from 'vitest';
import { oracle } from '../../../../harness/oracle';
import { discounted, totalCents } from '../../../../../src/cart';

test('s1 sums the lines', async ({ annotate }) => {
  const total = totalCents([
    { sku: 'tea', priceCents: 450, qty: 2 },
    { sku: 'mug', priceCents: 1200, qty: 1 },
  ]);
  await oracle(annotate, 'a1', 'total-is-sum-of-lines', total, 2100);
});

test('s2 applies a discount', async ({ annotate }) => {
  await oracle(annotate, 'a2', 'discount-rounds-to-cent', discounted(2100, 15), 1785);
});
