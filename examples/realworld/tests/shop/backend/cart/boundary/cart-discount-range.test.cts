import { expect, test } from 'vitest';
import { oracle } from '../../../../harness/oracle';
import { discounted } from '../../../../../src/cart';

test('s1 refuses a discount over 100%', async ({ annotate }) => {
  let refused = false;
  try {
    discounted(100, 120);
  } catch (e) {
    refused = e instanceof RangeError;
  }
  await oracle(annotate, 'a1', 'discount-over-100-refused', refused, true);
  expect(() => discounted(100, 100)).not.toThrow();
});
