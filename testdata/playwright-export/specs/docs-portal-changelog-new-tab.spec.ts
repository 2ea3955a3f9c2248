// Exported by Automium (playwright-spec-v1) from journey docs-portal-changelog-new-tab, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:4147c2fe42cd475d8cc469f2f2cc5f3efd33f22a549f6f21deaefd1cd5ef9ecc
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('From Getting started, open the changelog in a new tab, read the latest release and go back to the docs index', {
  tag: '@journey:docs-portal-changelog-new-tab',
  annotation: [
    { type: 'journey', description: 'docs-portal-changelog-new-tab' },
    { type: 'journeyDigest', description: 'sha256:4147c2fe42cd475d8cc469f2f2cc5f3efd33f22a549f6f21deaefd1cd5ef9ecc' },
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
          await page.goBack(); // go_back
          // re_snapshot: nothing to do; every locator is resolved afresh on each attempt.
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/docs');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('link', { name: 'Getting started', exact: true }).click();
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('link', { name: 'Changelog (opens in a new tab)', exact: true }).click();
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await expect.poll(() => page.context().pages()[page.context().pages().length - 1] !== page, { message: 'a newer tab than the active one' }).toBe(true);
      page = page.context().pages()[page.context().pages().length - 1];
      await page.bringToFront();
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      const text = await page.getByRole('heading', { name: 'Latest release', exact: true }).innerText();
      await test.info().attach('step-6 extract', { body: text, contentType: 'text/plain' });
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      await expect.poll(() => page.context().pages().length, { message: 'tab 0 open' }).toBeGreaterThan(0);
      page = page.context().pages()[0];
      await page.bringToFront();
    });
  });
  await test.step('step-8', async () => {
    await attempt('recover-8', async () => {
      await page.goBack();
    });
  });
  await test.step('step-9', async () => {
    await test.info().attach('step-9 answer', { body: '4.2.1', contentType: 'text/plain' });
  });
  await test.step('assert-1', async () => {
    await expect(page).toHaveURL('/docs');
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('link', { name: 'Getting started', exact: true })).toBeVisible();
  });
});
