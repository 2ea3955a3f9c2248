// Exported by Automium (playwright-spec-v1) from journey docs-portal-search-rate-limits, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:3a42e7b24681c5b4cfeccb6d019971e9e41441bc2d14b23a15627a6585dc8661
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Use the keyboard search to open the API reference page on rate limits', {
  tag: '@journey:docs-portal-search-rate-limits',
  annotation: [
    { type: 'journey', description: 'docs-portal-search-rate-limits' },
    { type: 'journeyDigest', description: 'sha256:3a42e7b24681c5b4cfeccb6d019971e9e41441bc2d14b23a15627a6585dc8661' },
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
      await page.keyboard.press('Control+K');
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('searchbox', { name: 'Search docs', exact: true }).fill('rate limits');
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('searchbox', { name: 'Search docs', exact: true }).press('ArrowDown');
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.keyboard.press('Enter');
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await expect(page.getByRole('heading', { name: 'Rate limits', exact: true })).toBeVisible();
    });
  });
  await test.step('step-7', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page).toHaveURL('/docs/api/rate-limits');
  });
  await test.step('assert-2', async () => {
    await expect.poll(() => page.title()).toContain('Rate limits');
  });
});
