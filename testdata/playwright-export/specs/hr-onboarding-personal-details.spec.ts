// Exported by Automium (playwright-spec-v1) from journey hr-onboarding-personal-details, journey-graph-v1, planner-intent-v1, owned-corpus-2026.11.
// Journey digest: sha256:9e5e9423274bc418280e291e156895c615e878043d8cd21cb5487581345f8d04
// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.
import { test, expect } from '@playwright/test';
import { fixtureFile } from './automium-fixture-files';

test('Complete the personal details task with an identity document and continue to tax forms', {
  tag: '@journey:hr-onboarding-personal-details',
  annotation: [
    { type: 'journey', description: 'hr-onboarding-personal-details' },
    { type: 'journeyDigest', description: 'sha256:9e5e9423274bc418280e291e156895c615e878043d8cd21cb5487581345f8d04' },
  ],
}, async ({ page }) => {
  // Bounded recovery: a failed step is tried again at most 3 times, each retry
  // inside the test.step of its recovery node, after the strategies in the journey's order.
  const attempt = async (recovery: string, body: () => Promise<void>): Promise<void> => {
    for (let retry = 0; ; retry++) {
      try {
        return await body();
      } catch (error) {
        if (retry >= 3) throw error;
        await test.step(recovery, async () => {
          // re_snapshot: nothing to do; every locator is resolved afresh on each attempt.
          // replan: this spec is a scripted plan, which replans to the same remaining steps.
          // retry_step: the retry itself.
        });
      }
    }
  };
  await test.step('step-1', async () => {
    await attempt('recover-1', async () => {
      await page.goto('/onboarding/personal-details');
    });
  });
  await test.step('step-2', async () => {
    await attempt('recover-2', async () => {
      await page.getByRole('textbox', { name: 'Legal first name', exact: true }).fill('Jordan');
    });
  });
  await test.step('step-3', async () => {
    await attempt('recover-3', async () => {
      await page.getByRole('textbox', { name: 'Legal last name', exact: true }).fill('Alvarez');
    });
  });
  await test.step('step-4', async () => {
    await attempt('recover-4', async () => {
      await page.getByRole('textbox', { name: 'Date of birth', exact: true }).fill('1994-03-18');
    });
  });
  await test.step('step-5', async () => {
    await attempt('recover-5', async () => {
      await page.getByRole('combobox', { name: 'Country of residence', exact: true }).selectOption({ label: 'Germany' });
    });
  });
  await test.step('step-6', async () => {
    await attempt('recover-6', async () => {
      await page.getByRole('textbox', { name: 'Emergency contact name', exact: true }).fill('Maria Alvarez');
    });
  });
  await test.step('step-7', async () => {
    await attempt('recover-7', async () => {
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Upload identity document', exact: true }).click();
      await (await chooser).setFiles(await fixtureFile('fixture-file://hr-onboarding/documents/id-card-specimen.pdf'));
    });
  });
  await test.step('step-8', async () => {
    await attempt('recover-8', async () => {
      await page.getByRole('checkbox', { name: 'I confirm these details are accurate', exact: true }).setChecked(true);
    });
  });
  await test.step('step-9', async () => {
    await attempt('recover-9', async () => {
      await page.getByRole('button', { name: 'Save and continue', exact: true }).click();
    });
  });
  await test.step('step-10', async () => {
    // finish: the journey's last step; its assertions follow.
  });
  await test.step('assert-1', async () => {
    await expect(page).toHaveURL('/onboarding/tax-forms');
  });
  await test.step('assert-2', async () => {
    await expect(page.getByRole('listitem', { name: 'Personal details completed', exact: true })).toBeVisible();
  });
});
