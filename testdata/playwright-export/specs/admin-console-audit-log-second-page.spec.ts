// Exported by Automium (playwright-spec-v1) from journey admin-console-audit-log-second-page, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:73fb648f9a5405e05563edca82acfb67e2bbe33690bf43dede32ae3db539a5ec
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Show 100 audit log entries per page and open the second page', {
  tag: '@journey:admin-console-audit-log-second-page',
  annotation: [
    { type: 'journey', description: 'admin-console-audit-log-second-page' },
    { type: 'journeyDigest', description: 'sha256:73fb648f9a5405e05563edca82acfb67e2bbe33690bf43dede32ae3db539a5ec' },
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
      await page.goto('/admin/audit-log');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('combobox', { name: 'Rows per page', exact: true }).selectOption({ label: '100' });
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('grid', { name: 'Audit log', exact: true }).evaluate((element) => element.scrollTo({ top: element.scrollHeight, behavior: 'instant' }));
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('button', { name: 'Next page', exact: true }).click();
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      const text = await page.getByRole('status', { name: 'Pagination summary', exact: true }).innerText();
      await test.info().attach('step-5 extract', { body: text, contentType: 'text/plain' });
    });
  });
  await test.step('step-6', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page.getByRole('status', { name: 'Pagination summary', exact: true })).toHaveText('Showing 101-200 of 1284', { useInnerText: true });
  });
  await test.step('assert-2', async () => {
    await expect(page).toHaveURL('/admin/audit-log?page=2&perPage=100');
  });
});
