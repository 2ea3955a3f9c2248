// Exported by Automium (playwright-spec-v1) from journey admin-console-printable-report, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:7a563ab3575a5524c1d1d3523ede6fc3319d8430bb85bfbe61f10ff0cdeaf391
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Open the printable Q3 2026 usage report in its new tab, read the total active seats and return to the reports tab', {
  tag: '@journey:admin-console-printable-report',
  annotation: [
    { type: 'journey', description: 'admin-console-printable-report' },
    { type: 'journeyDigest', description: 'sha256:7a563ab3575a5524c1d1d3523ede6fc3319d8430bb85bfbe61f10ff0cdeaf391' },
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
      await page.goto('/reports/usage');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('combobox', { name: 'Period', exact: true }).selectOption({ label: 'Q3 2026' });
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('link', { name: 'Open printable report', exact: true }).click();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await expect.poll(() => page.context().pages()[page.context().pages().length - 1] !== page, { message: 'a newer tab than the active one' }).toBe(true);
      page = page.context().pages()[page.context().pages().length - 1];
      await page.bringToFront();
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await expect(page.getByRole('heading', { name: 'Usage report Q3 2026', exact: true })).toBeVisible();
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      const text = await page.getByRole('cell', { name: 'Total active seats', exact: true }).innerText();
      await test.info().attach('step-6 extract', { body: text, contentType: 'text/plain' });
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      const opener = await page.opener();
      if (opener === null) throw new Error('switch_tab opener: the active tab was not opened by another tab');
      page = opener;
      await page.bringToFront();
    });
  });
  await test.step('step-8', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect.poll(() => page.title()).toContain('Usage reports');
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('combobox', { name: 'Period', exact: true })).toHaveValue('Q3 2026');
  });
});
