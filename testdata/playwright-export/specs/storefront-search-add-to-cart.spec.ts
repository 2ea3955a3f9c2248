// Exported by Automium (playwright-spec-v1) from journey storefront-search-add-to-cart, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:e02625bd657be9737121d4f4fb40f3acc6c87924db63eff4053b2c6f58654172
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Find a kettle and add it to the cart', {
  tag: '@journey:storefront-search-add-to-cart',
  annotation: [
    { type: 'journey', description: 'storefront-search-add-to-cart' },
    { type: 'journeyDigest', description: 'sha256:e02625bd657be9737121d4f4fb40f3acc6c87924db63eff4053b2c6f58654172' },
  ],
}, async ({ page }) => {
  // Bounded recovery: a failed step is tried again at most 1 times, each retry
  // inside the test.step of its recovery node, after the strategies in the journey's order.
  const attempt = async (recovery: string, body: () => Promise<void>): Promise<void> => {
    for (let retry = 0; ; retry++) {
      try {
        return await body();
      } catch (error) {
        if (retry >= 1) throw error;
        await test.step(recovery, async () => {
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('searchbox', { name: 'Search products', exact: true }).fill('kettle');
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.keyboard.press('Enter');
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('button', { name: 'Add to cart', exact: true }).click();
    });
  });
  await test.step('assert-1', async () => {
    await expect(page.locator('body')).toContainText('Added to cart', { useInnerText: true });
  });
});
