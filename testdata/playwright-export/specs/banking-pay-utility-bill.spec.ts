// Exported by Automium (playwright-spec-v1) from journey banking-pay-utility-bill, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:f34667482c0cfbab49d145df88f8af08c5891d6980c8faf3d0ae885ab82518b0
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Schedule an 84.20 payment to Riverside Electric from the joint checking account', {
  tag: '@journey:banking-pay-utility-bill',
  annotation: [
    { type: 'journey', description: 'banking-pay-utility-bill' },
    { type: 'journeyDigest', description: 'sha256:f34667482c0cfbab49d145df88f8af08c5891d6980c8faf3d0ae885ab82518b0' },
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
          // re_snapshot: nothing to do; every locator is resolved afresh on each attempt.
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/payments/bills');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await expect(page.getByRole('table', { name: 'Payees', exact: true })).toBeVisible();
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('button', { name: 'Pay Riverside Electric', exact: true }).click();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('spinbutton', { name: 'Payment amount', exact: true }).fill('84.20');
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.getByRole('combobox', { name: 'Pay from', exact: true }).selectOption({ label: 'Joint Checking (ending 4410)' });
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await page.getByRole('button', { name: 'Schedule payment', exact: true }).click();
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
    await expect(page.locator('body')).toContainText('Payment scheduled', { useInnerText: true });
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('cell', { name: 'Next payment to Riverside Electric', exact: true })).toHaveText('$84.20', { useInnerText: true });
  });
});
