import { test } from 'vitest';
import { oracle } from '../../../../harness/oracle';
import { reserveBoth } from '../../../../../src/stock';

// flaky on purpose: two reservations race and the order is not guaranteed
test('s1 reserves in request order', async ({ annotate }) => {
  const order = await reserveBoth('tea', 40);
  await oracle(annotate, 'a1', 'reservations-in-request-order', order, ['tea:first', 'tea:second']);
});
