import { test } from 'vitest';
import { oracle, signal } from '../../../../harness/oracle';
import { pay } from '../../../../../src/stock';
import { totalCents } from '../../../../../src/cart';

// a slow checkout in several steps: each step ends a moment after the last,
// so the timeline can be watched growing
const wait = Number(process.env.SHOP_SLOW_MS ?? 800);
const lines = [{ sku: 'tea', priceCents: 450, qty: 3 }];

test('s1 builds the cart', async ({ annotate }) => {
  await new Promise((r) => setTimeout(r, wait));
  await signal(annotate, 'signal/cart', 'cart built', { lines: lines.length });
});

test('s2 asks the payment provider', async ({ annotate }) => {
  const receipt = await pay(totalCents(lines), wait);
  await oracle(annotate, 'a1', 'payment-covers-total', receipt.paid, 1350);
});

test('s3 waits for the confirmation', async ({ annotate }) => {
  await new Promise((r) => setTimeout(r, wait));
  await signal(annotate, 'signal/confirmation', 'confirmation received');
});

test('s4 sends the receipt', async () => {
  await new Promise((r) => setTimeout(r, wait));
});
