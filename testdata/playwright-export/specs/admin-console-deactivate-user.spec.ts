// Exported by Automium (playwright-spec-v1) from journey admin-console-deactivate-user, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:907d384dbd33e222f18f83886103216b8fadb5fc67415f0dcdd9d1cc2eb909dd
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Deactivate the account of Lena Fischer, who has left the company', {
  tag: '@journey:admin-console-deactivate-user',
  annotation: [
    { type: 'journey', description: 'admin-console-deactivate-user' },
    { type: 'journeyDigest', description: 'sha256:907d384dbd33e222f18f83886103216b8fadb5fc67415f0dcdd9d1cc2eb909dd' },
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
          await page.reload(); // reload_route
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/admin/users');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('searchbox', { name: 'Filter users', exact: true }).fill('lena.fischer');
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await expect(page.getByRole('row', { name: 'Lena Fischer', exact: true })).toBeVisible();
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('button', { name: 'Deactivate Lena Fischer', exact: true }).click();
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await expect.poll(() => dialogsAnswered, { message: 'dialog 1 of the journey answered' }).toBeGreaterThanOrEqual(1);
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      const text = await page.getByRole('cell', { name: 'Status of Lena Fischer', exact: true }).innerText();
      await test.info().attach('step-6 extract', { body: text, contentType: 'text/plain' });
    });
  });
  await test.step('step-7', async () => {
    await test.info().attach('step-7 answer', { body: 'Deactivated', contentType: 'text/plain' });
  });
  await test.step('assert-1', async () => {
    await expect(page.getByRole('cell', { name: 'Status of Lena Fischer', exact: true })).toHaveText('Deactivated', { useInnerText: true });
  });
});
