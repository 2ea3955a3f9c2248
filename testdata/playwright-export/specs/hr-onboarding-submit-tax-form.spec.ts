// Exported by Automium (playwright-spec-v1) from journey hr-onboarding-submit-tax-form, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:0519358b3b945ad14e505da17c69496a2f17ded1a2ddaa20437a142d12fd4efe
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';
import { fixtureFile } from './automium-fixture-files';

test('Upload the signed tax form and submit the onboarding documents for review', {
  tag: '@journey:hr-onboarding-submit-tax-form',
  annotation: [
    { type: 'journey', description: 'hr-onboarding-submit-tax-form' },
    { type: 'journeyDigest', description: 'sha256:0519358b3b945ad14e505da17c69496a2f17ded1a2ddaa20437a142d12fd4efe' },
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
  // Bounded recovery: a failed step is tried again at most 2 times, each retry
  // inside the test.step of its recovery node, after the strategies in the journey's order.
  const attempt = async (recovery: string, body: () => Promise<void>): Promise<void> => {
    for (let retry = 0; ; retry++) {
      try {
        return await body();
      } catch (error) {
        if (retry >= 2) throw error;
        await test.step(recovery, async () => {
          // dismiss_dialog: nothing stays open; a dialog no handle_dialog step answers is dismissed.
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/onboarding/tax-forms');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Upload signed tax form', exact: true }).click();
      await (await chooser).setFiles(await fixtureFile('fixture-file://hr-onboarding/documents/tax-form-sample.pdf'));
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await expect(page.getByRole('status', { name: 'Upload complete', exact: true })).toBeVisible();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('button', { name: 'Submit documents', exact: true }).click();
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
    await expect(page.locator('body')).toContainText('Documents submitted for review', { useInnerText: true });
  });
});
