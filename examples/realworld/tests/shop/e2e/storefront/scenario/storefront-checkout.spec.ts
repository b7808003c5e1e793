import { expect, test } from '@playwright/test';

// fails on purpose: the checkout page is not built, so there is no confirmation
test('checks out a cart', async ({ page }) => {
  await test.step('s1 fill the cart', async () => {
    await page.goto('/');
    await page.getByRole('button', { name: 'Add tea' }).click();
  });
  await test.step('s2 check out', async () => {
    await page.getByRole('button', { name: 'Checkout' }).click();
    await expect(page.getByRole('status'), 'a1 order-confirmed').toHaveText('Order confirmed', { timeout: 2_000 });
  });
});
