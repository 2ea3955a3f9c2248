// Exported by Automium (playwright-spec-v1) from journey banking-filter-statement, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:5353066deb95f17e2f6c4e0c974f375a4dde6518a58266059bc4f62f80a0f842
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Show August 2026 checking activity and read the closing balance', {
  tag: '@journey:banking-filter-statement',
  annotation: [
    { type: 'journey', description: 'banking-filter-statement' },
    { type: 'journeyDigest', description: 'sha256:5353066deb95f17e2f6c4e0c974f375a4dde6518a58266059bc4f62f80a0f842' },
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
      await page.goto('/accounts/checking/activity');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('textbox', { name: 'From date', exact: true }).fill('2026-08-01');
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('textbox', { name: 'To date', exact: true }).fill('2026-08-31');
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('button', { name: 'Apply filters', exact: true }).click();
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      const text = await page.getByRole('cell', { name: 'Closing balance', exact: true }).innerText();
      await test.info().attach('step-6 extract', { body: text, contentType: 'text/plain' });
    });
  });
  await test.step('step-7', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page.getByRole('table', { name: 'Transactions', exact: true })).toBeVisible();
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('textbox', { name: 'From date', exact: true })).toHaveValue('2026-08-01');
  });
});
