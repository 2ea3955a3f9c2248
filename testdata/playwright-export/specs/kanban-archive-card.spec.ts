// Exported by Automium (playwright-spec-v1) from journey kanban-archive-card, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:796916c2e51312980884a5f14dbbbc366d7b2063cbca2ad4dd9584128a3cd190
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Archive the onboarding copy card through its hover menu and confirm', {
  tag: '@journey:kanban-archive-card',
  annotation: [
    { type: 'journey', description: 'kanban-archive-card' },
    { type: 'journeyDigest', description: 'sha256:796916c2e51312980884a5f14dbbbc366d7b2063cbca2ad4dd9584128a3cd190' },
  ],
}, async ({ page }) => {
  // Each dialog is answered as it opens, with the answer of the next handle_dialog step;
  // a dialog no step answers is dismissed, as Playwright does by default.
  const dialogAnswers = ['accept'];
  let dialogsOpened = 0;
  let dialogsAnswered = 0;
  page.context().on('dialog', (dialog) => {
    const answer = dialogAnswers[dialogsOpened++];
    void (answer === 'accept' ? dialog.accept() : dialog.dismiss()).then(() => { dialogsAnswered++; }, () => {});
  });
  // Bounded recovery: a failed step is tried again at most 1 times, each retry
  // inside the test.step of its recovery node, after the strategies in the journey's order.
  const attempt = async (recovery: string, body: () => Promise<void>): Promise<void> => {
    for (let retry = 0; ; retry++) {
      try {
        return await body();
      } catch (error) {
        if (retry >= 1) throw error;
        await test.step(recovery, async () => {
          // dismiss_dialog: nothing stays open; a dialog no handle_dialog step answers is dismissed.
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
      await page.getByRole('listitem', { name: 'KAN-102 Update onboarding copy', exact: true }).hover();
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('button', { name: 'Card actions for KAN-102', exact: true }).click();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('menuitem', { name: 'Archive card', exact: true }).click();
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await expect.poll(() => dialogsAnswered, { message: 'dialog 1 of the journey answered' }).toBeGreaterThanOrEqual(1);
    });
  });
  await test.step('step-6', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page.getByRole('listitem', { name: 'KAN-102 Update onboarding copy', exact: true })).toBeHidden();
  });
});
