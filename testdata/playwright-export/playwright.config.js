// One project, "scripted": the planner of the exported specs is the journey
// itself, and the importer reads the planner from the project name. The specs
// are in AUTOMIUM_SPECS (run.sh writes them). With AUTOMIUM_SERVE set, the
// fixture pages are served on loopback and Debian's chromium runs the specs:
// no browser is downloaded (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1).
const { defineConfig } = require('@playwright/test');

const port = 47328;
const serve = process.env.AUTOMIUM_SERVE === '1';

module.exports = defineConfig({
  testDir: process.env.AUTOMIUM_SPECS,
  testMatch: '**/*.spec.{ts,js}',
  retries: 0,
  workers: 2,
  timeout: 30_000,
  expect: { timeout: 3_000 },
  reporter: [['json']],
  outputDir: require('node:path').join(__dirname, 'work', 'test-results'),
  projects: [{ name: 'scripted' }],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    actionTimeout: 3_000,
    headless: true,
    launchOptions: {
      executablePath: process.env.AUTOMIUM_CHROMIUM || '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--metrics-recording-only', '--disable-extensions'],
    },
  },
  webServer: serve ? {
    command: 'node server.js',
    cwd: __dirname,
    url: `http://127.0.0.1:${port}/healthz`,
    reuseExistingServer: false,
    env: { AUTOMIUM_FIXTURE_PORT: String(port), AUTOMIUM_FIXTURE_SITE: process.env.AUTOMIUM_FIXTURE_SITE || '' },
  } : undefined,
});
