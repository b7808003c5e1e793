import { test } from 'vitest';
import { oracle } from '../../../../harness/oracle';
import { addLine } from '../../../../../src/cart';

// fails on purpose: a second line of the same sku is not merged into the first
test('s1 merges two lines of one sku', async ({ annotate }) => {
  const lines = addLine(addLine([], { sku: 'tea', priceCents: 450, qty: 1 }), { sku: 'tea', priceCents: 450, qty: 1 });
  await oracle(annotate, 'a1', 'same-sku-merged', lines, [{ sku: 'tea', priceCents: 450, qty: 2 }]);
});
