import { expect, test } from '@playwright/test';

// CASE_ID: planned in doc/test-plan/DOMAIN.md (What / Why / How / Oracle / Not)
test('CASE_ID', async ({ page }) => {
  await test.step('s1 open the page', async () => {
    await page.goto('about:blank');
  });
  await test.step('s2 see what the plan says', async () => {
    await expect(page).toHaveURL('about:blank');
  });
});
