// judge.mjs: reads the results (-o directories of checks.json files) of one
// requirement set run against the fixture server and against the real
// automium-mcp, and decides from them, not from a hand-written list:
//
//   fixture server: every scenario passes (no check FAILURE or WARNING), except
//     those in expected-failures.yml, which must still fail (a passing entry is
//     stale and fails too);
//   real server: every scenario passes, or is NOT TESTABLE there: it passed
//     against the fixture server in this same run (same suite, same HTTP
//     handler, the same Automium features plus the suite's fixtures), and the
//     suite's own output against the real server names the reason, a fixture
//     that Automium does not have (a test_* tool or prompt, a test:// resource,
//     the subscribe capability) or the suite's "Not testable" verdict. Where
//     the checks' messages name none, the reason must be in both the suite's
//     description of the scenario (the fixture it asks for) and the real
//     server's audit log (the call to that fixture, refused).
//
// Usage: node judge.mjs REVISION SUITE_JS FIXTURE_DIR REAL_DIR REAL_STDERR EXPECTED_FAILURES_YML SCENARIOS...
// It prints one line per scenario and the counts, and exits 1 on any failure.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [revision, suiteJS, fixtureDir, realDir, realStderr, expectedFile, ...required] = process.argv.slice(2);

// expected-failures.yml is the suite's baseline format: a "server:" list of
// scenario names, each with a "# reason" comment line above it.
function readExpected(file) {
  const out = new Map();
  let reason = '';
  let inServer = false;
  let listed = false; // a name was listed since the last comment line
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const t = line.trim();
    if (t === 'server:' || t === 'server: []') { inServer = true; continue; }
    if (!inServer) continue;
    if (t.startsWith('#')) {
      if (listed) { reason = ''; listed = false; }
      reason = (reason ? reason + ' ' : '') + t.replace(/^#\s*/, '');
      continue;
    }
    const m = /^- ([a-z0-9-]+)$/.exec(t);
    if (m) { out.set(m[1], reason); listed = true; }
  }
  return out;
}

// results maps each scenario to its checks and the raw text of its checks.json.
function results(dir) {
  const out = new Map();
  for (const d of readdirSync(dir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(d);
    if (!m) continue;
    const text = readFileSync(join(dir, d, 'checks.json'), 'utf8');
    out.set(m[1], { checks: JSON.parse(text), text });
  }
  return out;
}

function verdict(r) {
  if (!r) return 'missing';
  const bad = r.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  if (bad.length > 0) return 'failed';
  return r.checks.some((c) => c.status === 'SUCCESS') ? 'passed' : 'skipped';
}

const counts = (r) => {
  let passed = 0, failed = 0;
  for (const c of r?.checks ?? []) {
    if (c.status === 'SUCCESS') passed++;
    if (c.status === 'FAILURE' || c.status === 'WARNING') failed++;
  }
  return `${passed} passed, ${failed} failed or warned`;
};

// missingFixture is the suite's own statement of why a check could not pass
// against the real server, or null.
const reasonPatterns = [
  /unknown (?:tool|prompt) \\?"((?:test_|json_schema_)[a-z0-9_]*)\\?"/,
  /Tool '((?:test_|json_schema_)[a-z0-9_]*)' not found/,
  /resource \\?"(test:\/\/[^"\\]+)\\?" not found/,
  /method not found: \\?"(resources\/(?:un)?subscribe)/i,
  /Not testable: ([^."\\]{1,160})/,
];
function missingFixture(r) {
  for (const p of reasonPatterns) {
    const m = p.exec(r.text);
    if (m) return m[0].replace(/\\"/g, '"');
  }
  return null;
}

// describedFixtures are the test_* names in the suite's own description of a
// scenario, read from the suite's code.
const suiteText = readFileSync(suiteJS, 'utf8');
function describedFixtures(scenario) {
  const start = suiteText.indexOf('name=`' + scenario + '`');
  if (start < 0) return [];
  const end = suiteText.indexOf('async run(', start);
  return [...new Set(suiteText.slice(start, end < 0 ? start : end).match(/test_[a-z0-9_]+/g) ?? [])];
}

// refusedNames are the tool and prompt names the real server's audit log shows
// it refused; long names are cut there, so they match as prefixes.
const refusedNames = [];
for (const line of readFileSync(realStderr, 'utf8').split('\n')) {
  if (!line.startsWith('{')) continue;
  let rec;
  try { rec = JSON.parse(line); } catch { continue; }
  if (rec.outcome === 'rpc_error' && typeof rec.name === 'string') {
    refusedNames.push(rec.name.replace(/^"/, '').replace(/"?… \(\d+ bytes\)$/, ''));
  }
}
function auditedRefusal(scenario) {
  for (const name of describedFixtures(scenario)) {
    if (refusedNames.some((n) => n.length > 0 && name.startsWith(n))) {
      return `its description asks for ${name}, and the audit log shows automium-mcp refused it`;
    }
  }
  return null;
}

const expected = readExpected(expectedFile);
const fixture = results(fixtureDir);
const real = results(realDir);
let failures = 0;
const fail = (msg) => { console.log(`FAIL ${msg}`); failures++; };

// SCORED lists the scenarios the requirement set scores; the others are run
// and judged the same way, and counted apart.
const scored = new Set((process.env.SCORED ?? '').split(/\s+/).filter(Boolean));
const scoredTally = { fixturePassed: 0, realPassed: 0, realNotTestable: 0 };
const tally = { fixture: { passed: 0, expected: 0, skipped: 0 }, real: { passed: 0, notTestable: 0, expected: 0, skipped: 0 } };
const notTestable = [];
for (const s of required) {
  const f = fixture.get(s);
  const fv = verdict(f);
  if (expected.has(s)) {
    if (fv === 'passed') fail(`${revision} fixture ${s}: listed in expected-failures.yml but passes; remove it`);
    else if (fv === 'missing') fail(`${revision} fixture ${s}: no result`);
    else { tally.fixture.expected++; console.log(`EXPECTED ${revision} fixture ${s} (${counts(f)}): ${expected.get(s)}`); }
  } else if (fv === 'passed') { tally.fixture.passed++; if (scored.has(s)) scoredTally.fixturePassed++; console.log(`PASS ${revision} fixture ${s} (${counts(f)})`); }
  else if (fv === 'skipped') { tally.fixture.skipped++; console.log(`SKIPPED ${revision} fixture ${s}: the suite ran no check`); }
  else fail(`${revision} fixture ${s}: ${fv} (${counts(f)})`);

  const r = real.get(s);
  const rv = verdict(r);
  if (rv === 'passed') { tally.real.passed++; if (scored.has(s)) scoredTally.realPassed++; console.log(`PASS ${revision} automium-mcp ${s} (${counts(r)})`); continue; }
  if (rv === 'skipped') { tally.real.skipped++; console.log(`SKIPPED ${revision} automium-mcp ${s}: the suite ran no check`); continue; }
  if (rv === 'missing') { fail(`${revision} automium-mcp ${s}: no result`); continue; }
  if (expected.has(s)) { tally.real.expected++; console.log(`EXPECTED ${revision} automium-mcp ${s} (${counts(r)}): as against the fixture server`); continue; }
  const why = missingFixture(r) ? `the suite says ${missingFixture(r)}` : auditedRefusal(s);
  if (fv === 'passed' && why) {
    tally.real.notTestable++;
    if (scored.has(s)) scoredTally.realNotTestable++;
    notTestable.push(s);
    console.log(`NOT TESTABLE ${revision} automium-mcp ${s} (${counts(r)}): ${why}; passes against the fixture server`);
  } else if (fv === 'passed') {
    fail(`${revision} automium-mcp ${s} (${counts(r)}): fails, and neither the suite's output nor the audit log shows a missing fixture`);
  } else {
    fail(`${revision} automium-mcp ${s} (${counts(r)}): fails, and does not pass against the fixture server either`);
  }
}
console.log(`${revision} not testable against automium-mcp (from the suite's output): ${notTestable.join(' ') || 'none'}`);
console.log(`${revision} summary: fixture server ${tally.fixture.passed} passed, ${tally.fixture.expected} expected failures, ${tally.fixture.skipped} skipped; ` +
  `automium-mcp ${tally.real.passed} passed, ${tally.real.notTestable} not testable, ${tally.real.expected} expected failures, ${tally.real.skipped} skipped; ${failures} failed`);
console.log(`${revision} scored scenarios (${scored.size}): fixture server ${scoredTally.fixturePassed} passed; ` +
  `automium-mcp ${scoredTally.realPassed} passed, ${scoredTally.realNotTestable} not testable`);
process.exit(failures > 0 ? 1 : 0);
