import { test } from 'vitest';
import { oracle } from '../harness/oracle';
import { discounted } from '../../src/cart';

// a one-off probe: temp cases gate nothing and count in no statistic
test('s1 rounds half a cent up', async ({ annotate }) => {
  await oracle(annotate, 'a1', 'half-cent-rounds-up', discounted(5, 10), 5);
});
