// Exported by Automium (playwright-spec-v1) from journey storefront-checkout-saved-address, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:d8fdf3106401da47c0a2efd7012a555c5cd956a1ea726ebd87f4239993383e9e
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';

test('Buy two skillets with standard delivery to the saved address using the WELCOME10 promo code', {
  tag: '@journey:storefront-checkout-saved-address',
  annotation: [
    { type: 'journey', description: 'storefront-checkout-saved-address' },
    { type: 'journeyDigest', description: 'sha256:d8fdf3106401da47c0a2efd7012a555c5cd956a1ea726ebd87f4239993383e9e' },
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
      await page.goto('/cart');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await expect(page.getByRole('heading', { name: 'Shopping cart', exact: true })).toBeVisible();
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('combobox', { name: 'Quantity of Cast-iron skillet', exact: true }).selectOption({ label: '2' });
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('button', { name: 'Proceed to checkout', exact: true }).click();
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.getByRole('radio', { name: 'Standard delivery (3-5 business days)', exact: true }).setChecked(true);
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await page.getByRole('textbox', { name: 'Promo code', exact: true }).fill('WELCOME10');
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      await page.getByRole('button', { name: 'Apply promo code', exact: true }).click();
    });
  });
  await test.step('step-8', async () => {
    await attempt('recover-8', async () => {
      await page.getByRole('button', { name: 'Place order', exact: true }).click();
    });
  });
  await test.step('step-9', async () => {
    await test.info().attach('step-9 answer', { body: 'Order placed', contentType: 'text/plain' });
  });
  await test.step('assert-1', async () => {
    await expect(page).toHaveURL('/checkout/confirmation');
  });
  await test.step('assert-2', async () => {
    await expect(page.locator('body')).toContainText('Thank you for your order', { useInnerText: true });
  });
});
