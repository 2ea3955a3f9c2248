// The team run of team/journeys.spec.js (run-team.sh): two projects for the
// two builds, six repetitions, one retry, both reporters of one run.
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: './team',
  retries: 1,
  repeatEach: 6,
  workers: 1,
  reporter: [['json'], ['junit', { outputFile: process.env.AUTOMIUM_JUNIT_OUTPUT || 'team-junit.xml', includeRetries: true }]],
  projects: [{ name: 'baseline' }, { name: 'candidate' }],
});
