// Exported by Automium (playwright-spec-v1) from journey banking-transfer-to-savings, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:9b8e0ffc95364f6ed0e070c005d2818e388cf2fed8c73b216f6d62485f3cea8d
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Transfer 250.00 from Everyday Checking to High-Yield Savings now, reviewing and confirming the transfer', {
  tag: '@journey:banking-transfer-to-savings',
  annotation: [
    { type: 'journey', description: 'banking-transfer-to-savings' },
    { type: 'journeyDigest', description: 'sha256:9b8e0ffc95364f6ed0e070c005d2818e388cf2fed8c73b216f6d62485f3cea8d' },
  ],
}, async ({ page }) => {
  // Bounded recovery: a failed step is tried again at most 3 times, each retry
  // inside the test.step of its recovery node, after the strategies in the journey's order.
  const attempt = async (recovery: string, body: () => Promise<void>): Promise<void> => {
    for (let retry = 0; ; retry++) {
      try {
        return await body();
      } catch (error) {
        if (retry >= 3) throw error;
        await test.step(recovery, async () => {
          // re_snapshot: nothing to do; every locator is resolved afresh on each attempt.
          await page.reload(); // reload_route
          // replan: this spec is a scripted plan, which replans to the same remaining steps.
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/transfers/new');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('combobox', { name: 'From account', exact: true }).selectOption({ label: 'Everyday Checking (ending 1234)' });
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('combobox', { name: 'To account', exact: true }).selectOption({ label: 'High-Yield Savings (ending 5678)' });
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('textbox', { name: 'Amount', exact: true }).fill('250.00');
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.getByRole('textbox', { name: 'Memo', exact: true }).fill('Emergency fund');
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await page.getByRole('radio', { name: 'Transfer now', exact: true }).setChecked(true);
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      await page.getByRole('button', { name: 'Review transfer', exact: true }).click();
    });
  });
  await test.step('step-8', async () => {
    await attempt('recover-8', async () => {
      await expect(page.getByRole('dialog', { name: 'Confirm transfer', exact: true })).toBeVisible();
    });
  });
  await test.step('step-9', async () => {
    await attempt('recover-9', async () => {
      await page.getByRole('button', { name: 'Confirm transfer', exact: true }).click();
    });
  });
  await test.step('step-10', async () => {
    await test.info().attach('step-10 answer', { body: 'Transfer submitted', contentType: 'text/plain' });
  });
  await test.step('assert-1', async () => {
    await expect(page).toHaveURL('/transfers/confirmation');
  });
  await test.step('assert-2', async () => {
    await expect(page.locator('body')).toContainText('Your transfer of $250.00 was submitted', { useInnerText: true });
  });
});
