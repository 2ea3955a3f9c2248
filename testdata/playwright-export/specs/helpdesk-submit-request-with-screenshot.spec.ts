// Exported by Automium (playwright-spec-v1) from journey helpdesk-submit-request-with-screenshot, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:da67feea5346203ac85b3ca332e70b212e8c75f7f012d90b764e9c8bd2cb0c40
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';
import { fixtureFile } from './automium-fixture-files';

test('Open a payments request about a declined card with the checkout error screenshot attached', {
  tag: '@journey:helpdesk-submit-request-with-screenshot',
  annotation: [
    { type: 'journey', description: 'helpdesk-submit-request-with-screenshot' },
    { type: 'journeyDigest', description: 'sha256:da67feea5346203ac85b3ca332e70b212e8c75f7f012d90b764e9c8bd2cb0c40' },
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
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/support/new');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('combobox', { name: 'Category', exact: true }).selectOption({ label: 'Payments' });
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Card declined at checkout');
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('textbox', { name: 'Describe the problem', exact: true }).fill('My card is declined at the payment step although the bank shows no block. The screenshot shows the error.');
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Add attachment', exact: true }).click();
      await (await chooser).setFiles(await fixtureFile('fixture-file://helpdesk/screenshots/checkout-error.png'));
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await page.getByRole('checkbox', { name: 'Email me updates on this request', exact: true }).setChecked(true);
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      await page.getByRole('button', { name: 'Submit request', exact: true }).click();
    });
  });
  await test.step('step-8', async () => {
    await test.info().attach('step-8 answer', { body: 'Request submitted', contentType: 'text/plain' });
  });
  await test.step('assert-1', async () => {
    await expect.poll(() => page.title()).toContain('Request received');
  });
  await test.step('assert-2', async () => {
    await expect(page.locator('body')).toContainText('We received your request', { useInnerText: true });
  });
});
