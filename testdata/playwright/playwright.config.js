// Two projects stand for two planners; every journey runs three times
// (repeatEach) with one retry. No test uses the page fixture, so no browser is
// launched and none needs to be installed.
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: './tests',
  retries: 1,
  repeatEach: 3,
  workers: 1,
  // The same run writes both reports: JSON to stdout, JUnit (with each retry
  // as a flakyFailure or rerunFailure) to AUTOMIUM_JUNIT_OUTPUT.
  reporter: [['json'], ['junit', { outputFile: process.env.AUTOMIUM_JUNIT_OUTPUT || 'junit.xml', includeRetries: true }]],
  projects: [{ name: 'baseline' }, { name: 'challenger' }],
});
