// Exported by Automium (playwright-spec-v1) from journey kanban-move-card-to-done, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:8aac8cb40295816acdca4c1172b7dcf4ee5079fbe77f3ec11f5ee74f7d3832d0
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Move the flaky login test card from In progress to Done', {
  tag: '@journey:kanban-move-card-to-done',
  annotation: [
    { type: 'journey', description: 'kanban-move-card-to-done' },
    { type: 'journeyDigest', description: 'sha256:8aac8cb40295816acdca4c1172b7dcf4ee5079fbe77f3ec11f5ee74f7d3832d0' },
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
          // replan: this spec is a scripted plan, which replans to the same remaining steps.
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/boards/sprint-42');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await expect(page.getByRole('region', { name: 'In progress', exact: true })).toBeVisible();
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('listitem', { name: 'KAN-117 Fix flaky login test', exact: true }).dragTo(page.getByRole('region', { name: 'Done', exact: true }));
    });
  });
  await test.step('step-4', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page.locator('body')).toContainText('KAN-117 moved to Done', { useInnerText: true });
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('status', { name: 'Done card count', exact: true })).toHaveText('5', { useInnerText: true });
  });
});
