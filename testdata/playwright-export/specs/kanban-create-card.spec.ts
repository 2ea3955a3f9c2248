// Exported by Automium (playwright-spec-v1) from journey kanban-create-card, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:1989eb53305e85082fd2eef2449c97ff0be25842a4dc83931a0384783b81dd22
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Add a release notes card to To do and assign it to Sam Okafor', {
  tag: '@journey:kanban-create-card',
  annotation: [
    { type: 'journey', description: 'kanban-create-card' },
    { type: 'journeyDigest', description: 'sha256:1989eb53305e85082fd2eef2449c97ff0be25842a4dc83931a0384783b81dd22' },
  ],
}, async ({ page }) => {
  // Bounded recovery: a failed step is tried again at most 2 times, each retry
  // inside the test.step of its recovery node, after the strategies in the journey's order.
  const attempt = async (recovery: string, body: () => Promise<void>): Promise<void> => {
    for (let retry = 0; ; retry++) {
      try {
        return await body();
      } catch (error) {
        if (retry >= 2) throw error;
        await test.step(recovery, async () => {
          // re_snapshot: nothing to do; every locator is resolved afresh on each attempt.
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/boards/new-project');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('button', { name: 'Add card to To do', exact: true }).click();
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('textbox', { name: 'Card title', exact: true }).fill('Write release notes');
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('combobox', { name: 'Assignee', exact: true }).selectOption({ label: 'Sam Okafor' });
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.keyboard.press('Control+Enter');
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await expect(page.getByRole('listitem', { name: 'Write release notes', exact: true })).toBeVisible();
    });
  });
  await test.step('step-7', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page.getByRole('listitem', { name: 'Write release notes', exact: true })).toBeVisible();
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('status', { name: 'To do card count', exact: true })).toHaveText('1', { useInnerText: true });
  });
});
