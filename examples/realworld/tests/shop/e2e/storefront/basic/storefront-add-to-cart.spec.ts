import { expect, test } from '@playwright/test';

test('adds tea to the cart', async ({ page }) => {
  await test.step('s1 open the storefront', async () => {
    await page.goto('/');
    await expect(page.getByRole('heading'), 'a1 storefront-shown').toHaveText('Tea shop');
  });
  await test.step('s2 add one tea', async () => {
    await page.getByRole('button', { name: 'Add tea' }).click();
    await expect(page.locator('#total'), 'a2 total-updated').toHaveText('4.50');
  });
});
