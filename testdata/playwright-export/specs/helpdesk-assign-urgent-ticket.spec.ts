// Exported by Automium (playwright-spec-v1) from journey helpdesk-assign-urgent-ticket, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:91d1a036627b5408bbbe3953ee5fe558d646a7e416959916173d3e8dd5c454dc
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Sort the queue by priority and assign the urgent mobile sign-in ticket to Priya Raman', {
  tag: '@journey:helpdesk-assign-urgent-ticket',
  annotation: [
    { type: 'journey', description: 'helpdesk-assign-urgent-ticket' },
    { type: 'journeyDigest', description: 'sha256:91d1a036627b5408bbbe3953ee5fe558d646a7e416959916173d3e8dd5c454dc' },
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
          await page.reload(); // reload_route
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/tickets');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('columnheader', { name: 'Priority', exact: true }).click();
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('link', { name: '#4790 Cannot sign in on mobile', exact: true }).click();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('combobox', { name: 'Assignee', exact: true }).selectOption({ label: 'Priya Raman' });
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.getByRole('button', { name: 'Save ticket', exact: true }).click();
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await page.goBack();
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      const text = await page.getByRole('cell', { name: 'Assignee of #4790', exact: true }).innerText();
      await test.info().attach('step-7 extract', { body: text, contentType: 'text/plain' });
    });
  });
  await test.step('step-8', async () => {
    await test.info().attach('step-8 answer', { body: 'Priya Raman', contentType: 'text/plain' });
  });
  await test.step('assert-1', async () => {
    await expect(page.getByRole('cell', { name: 'Assignee of #4790', exact: true })).toHaveText('Priya Raman', { useInnerText: true });
  });
});
