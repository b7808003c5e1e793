import { test } from 'vitest';
import { oracle } from '../../../../harness/oracle';
import { addLine } from '../../../../../src/cart';

// fails on purpose: the cart accepts a line with quantity 0
test('s1 refuses a line of quantity zero', async ({ annotate }) => {
  const lines = addLine([], { sku: 'tea', priceCents: 450, qty: 0 });
  await oracle(annotate, 'a1', 'zero-quantity-refused', lines.length, 0);
});
