import { test } from 'vitest';
import { oracle } from '../../../../harness/oracle';

// a live case: it asks a real model service for advice on the cart, so it runs
// only with --group live (or its --case) and only where SHOP_MODEL_URL is set
const url = process.env.SHOP_MODEL_URL;

test.skipIf(!url)('s1 asks the model for advice', async ({ annotate }) => {
  const res = await fetch(`${url}/advice`, { method: 'POST', body: JSON.stringify({ sku: 'tea' }) });
  await oracle(annotate, 'a1', 'advice-answered', res.status, 200);
});
