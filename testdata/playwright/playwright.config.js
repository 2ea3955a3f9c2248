// Two projects stand for two planners; every journey runs three times
// (repeatEach) with one retry. No test uses the page fixture, so no browser is
// launched and none needs to be installed.
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: './tests',
  retries: 1,
  repeatEach: 3,
  workers: 1,
  reporter: [['json']],
  projects: [{ name: 'baseline' }, { name: 'challenger' }],
});
