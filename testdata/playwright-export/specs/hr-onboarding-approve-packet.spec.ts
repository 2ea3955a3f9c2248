// Exported by Automium (playwright-spec-v1) from journey hr-onboarding-approve-packet, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:7d23c2617b92b13cad4d93485e773952838ccd7b9aa8a1c590507cc7cd3a7fb1
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Verify and approve Jordan Alvarez\'s onboarding packet without sending the welcome email yet', {
  tag: '@journey:hr-onboarding-approve-packet',
  annotation: [
    { type: 'journey', description: 'hr-onboarding-approve-packet' },
    { type: 'journeyDigest', description: 'sha256:7d23c2617b92b13cad4d93485e773952838ccd7b9aa8a1c590507cc7cd3a7fb1' },
  ],
}, async ({ page }) => {
  // Each dialog is answered as it opens, with the answer of the next handle_dialog step;
  // a dialog no step answers is dismissed, as Playwright does by default.
  const dialogAnswers = ['dismiss'];
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
          // re_snapshot: nothing to do; every locator is resolved afresh on each attempt.
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/review/packets');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('link', { name: 'Jordan Alvarez', exact: true }).click();
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('img', { name: 'Identity document preview', exact: true }).hover();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('checkbox', { name: 'Identity document verified', exact: true }).setChecked(true);
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.getByRole('checkbox', { name: 'Tax form verified', exact: true }).setChecked(true);
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await page.getByRole('button', { name: 'Approve packet', exact: true }).click();
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      await expect.poll(() => dialogsAnswered, { message: 'dialog 1 of the journey answered' }).toBeGreaterThanOrEqual(1);
    });
  });
  await test.step('step-8', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page.getByRole('checkbox', { name: 'Identity document verified', exact: true })).toBeChecked();
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('status', { name: 'Packet status', exact: true })).toHaveText('Approved', { useInnerText: true });
  });
});
