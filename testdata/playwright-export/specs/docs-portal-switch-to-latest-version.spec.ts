// Exported by Automium (playwright-spec-v1) from journey docs-portal-switch-to-latest-version, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:98402e8065146684e490df428d586ba8cc945b05a2d7e76af82be27139cee592
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('From the archived 3.x installation guide, switch to the 4.2 docs and open the macOS instructions', {
  tag: '@journey:docs-portal-switch-to-latest-version',
  annotation: [
    { type: 'journey', description: 'docs-portal-switch-to-latest-version' },
    { type: 'journeyDigest', description: 'sha256:98402e8065146684e490df428d586ba8cc945b05a2d7e76af82be27139cee592' },
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
          await page.reload(); // reload_route
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/v3/docs/installation');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('combobox', { name: 'Documentation version', exact: true }).selectOption({ label: '4.2 (latest)' });
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await expect(page.getByRole('heading', { name: 'Installation', exact: true })).toBeVisible();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('tab', { name: 'macOS', exact: true }).click();
    });
  });
  await test.step('step-5', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page).toHaveURL('/docs/installation');
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('tabpanel', { name: 'macOS', exact: true })).toBeVisible();
  });
  await test.step('assert-3', async () => {
    await expect(page.getByRole('alert', { name: 'You are viewing documentation for an old version', exact: true })).toBeHidden();
  });
});
