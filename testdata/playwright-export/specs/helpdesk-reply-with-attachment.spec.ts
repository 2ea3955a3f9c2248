// Exported by Automium (playwright-spec-v1) from journey helpdesk-reply-with-attachment, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:85cec75f66df60a98c7f2840ee74c6aff7084163272c7eeaa404b7109e651569
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';
import { fixtureFile } from './automium-fixture-files';

test('Find the billing ticket about a missing refund and reply with the refund receipt attached', {
  tag: '@journey:helpdesk-reply-with-attachment',
  annotation: [
    { type: 'journey', description: 'helpdesk-reply-with-attachment' },
    { type: 'journeyDigest', description: 'sha256:85cec75f66df60a98c7f2840ee74c6aff7084163272c7eeaa404b7109e651569' },
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
      await page.goto('/tickets?queue=billing');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('searchbox', { name: 'Search tickets', exact: true }).fill('refund not received');
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.keyboard.press('Enter');
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('link', { name: '#4821 Refund not received', exact: true }).click();
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.getByRole('textbox', { name: 'Reply', exact: true }).fill('Hi Dana, the refund was issued on 3 November. The receipt is attached; it can take up to five business days to appear.');
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Attach files', exact: true }).click();
      await (await chooser).setFiles(await fixtureFile('fixture-file://helpdesk/screenshots/refund-receipt.png'));
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      await page.getByRole('button', { name: 'Send reply', exact: true }).click();
    });
  });
  await test.step('step-8', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page.locator('body')).toContainText('Reply sent', { useInnerText: true });
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('link', { name: 'refund-receipt.png', exact: true })).toBeVisible();
  });
});
