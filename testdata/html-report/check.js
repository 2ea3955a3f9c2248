// Renders the HTML report in Debian's chromium (headless) through the pinned
// @playwright/test, takes a full-page screenshot, and fails unless the page
// made exactly one request (the file itself), ran no script, violated no
// Content-Security-Policy directive, and has every chart titled and
// described. Usage: node check.js report.html report.png
const { chromium } = require('@playwright/test');
const path = require('node:path');
const fs = require('node:fs');
const { pathToFileURL } = require('node:url');

async function main() {
  const [html, png] = process.argv.slice(2);
  const url = pathToFileURL(path.resolve(html)).href;
  const browser = await chromium.launch({
    executablePath: process.env.AUTOMIUM_CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-extensions',
      // A second fence: any name the page asked for would resolve nowhere.
      '--host-resolver-rules=MAP * ~NOTFOUND'],
  });
  const failures = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1024, height: 800 }, javaScriptEnabled: true });
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    // Anything but the document itself is aborted, so a fetch could not
    // succeed even if one were made; it is still counted above.
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    const messages = [];
    page.on('console', (m) => messages.push(m.type() + ': ' + m.text()));
    page.on('pageerror', (e) => messages.push('pageerror: ' + e.message));
    const response = await page.goto(url, { waitUntil: 'load' });
    if (!response || !response.ok()) failures.push('the page did not load');
    const facts = await page.evaluate(() => {
      const charts = [...document.querySelectorAll('svg.chart')];
      return {
        scripts: document.scripts.length,
        csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content || '',
        charts: charts.length,
        described: charts.filter((s) => s.querySelector(':scope > title') && s.querySelector(':scope > desc') && s.getAttribute('role') === 'img' && s.getAttribute('aria-labelledby')).length,
        stylesApplied: getComputedStyle(document.body).margin === '0px',
        tables: document.querySelectorAll('table').length,
        // Links within the page (href="#...") fetch nothing; anything else would.
        externalRefs: [...document.querySelectorAll('[src],[href],link,img,iframe,object,embed')]
          .filter((e) => !(e.tagName === 'A' && (e.getAttribute('href') || '').startsWith('#')))
          .map((e) => e.outerHTML.slice(0, 80)),
        width: document.documentElement.scrollWidth,
      };
    });
    await page.screenshot({ path: png, fullPage: true });
    if (requests.length !== 1 || requests[0] !== url) failures.push('requests other than the document: ' + JSON.stringify(requests));
    if (facts.scripts !== 0) failures.push(facts.scripts + ' script elements');
    if (!/default-src 'none'/.test(facts.csp)) failures.push('no Content-Security-Policy forbidding fetches: ' + facts.csp);
    if (!facts.stylesApplied) failures.push('the inline style was not applied (its CSP hash does not match)');
    if (facts.charts < 2) failures.push('only ' + facts.charts + ' charts');
    if (facts.described !== facts.charts) failures.push((facts.charts - facts.described) + ' charts without title, desc, role or aria-labelledby');
    if (facts.externalRefs.length) failures.push('elements that reference something: ' + facts.externalRefs.join(' '));
    if (facts.width > 1024) failures.push('the page is ' + facts.width + 'px wide in a 1024px window');
    const violations = messages.filter((m) => /Content Security Policy|Refused|pageerror|error:/i.test(m));
    if (violations.length) failures.push('console: ' + violations.join(' | '));
    const size = fs.statSync(png).size;
    if (size < 20_000) failures.push('the screenshot is only ' + size + ' bytes');
    console.log(`rendered ${html}: ${facts.charts} charts (all titled and described), ${facts.tables} tables, ${requests.length} request (the document), no script; screenshot ${png} (${size} bytes)`);
  } finally {
    await browser.close();
  }
  if (failures.length) {
    console.error('html report check failed:\n  ' + failures.join('\n  '));
    process.exit(1);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
