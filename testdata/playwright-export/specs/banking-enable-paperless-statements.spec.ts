// Exported by Automium (playwright-spec-v1) from journey banking-enable-paperless-statements, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:5f0dc02263198998129c2288738b133cd3fc19706e55e4d3e28d93fe2131fe6c
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Switch the joint account to paperless statements and confirm the change', {
  tag: '@journey:banking-enable-paperless-statements',
  annotation: [
    { type: 'journey', description: 'banking-enable-paperless-statements' },
    { type: 'journeyDigest', description: 'sha256:5f0dc02263198998129c2288738b133cd3fc19706e55e4d3e28d93fe2131fe6c' },
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
      await page.goto('/settings/statements');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('switch', { name: 'Paperless statements', exact: true }).setChecked(true);
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('button', { name: 'Save preferences', exact: true }).click();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await expect.poll(() => dialogsAnswered, { message: 'dialog 1 of the journey answered' }).toBeGreaterThanOrEqual(1);
    });
  });
  await test.step('step-5', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page.getByRole('switch', { name: 'Paperless statements', exact: true })).toBeChecked();
  });
  await test.step('assert-2', async () => {
    await expect(page.locator('body')).toContainText('Preferences saved', { useInnerText: true });
  });
});
