// Tests of judge.mjs on made-up suite results, so that a judge that lets a
// failure through fails CI: run.sh runs them first (node --test judge.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const ok = { id: 'a', status: 'SUCCESS' };
const failed = (msg) => ({ id: 'b', status: 'FAILURE', errorMessage: msg });
const warned = (msg) => ({ id: 'c', status: 'WARNING', errorMessage: msg });

// judge writes the given results and runs judge.mjs on them; each side maps a
// scenario to its checks (a missing scenario has no results).
function judge({ fixture, real, audit = '', expected = 'server: []\n', scenarios, scored = scenarios }) {
  const dir = mkdtempSync(join(tmpdir(), 'judge-'));
  const write = (side, results) => {
    mkdirSync(join(dir, side));
    for (const [s, checks] of Object.entries(results)) {
      mkdirSync(join(dir, side, `server-${s}-2026-12-01T10-00-00-000Z`));
      writeFileSync(join(dir, side, `server-${s}-2026-12-01T10-00-00-000Z`, 'checks.json'), JSON.stringify(checks));
    }
  };
  write('fixture', fixture);
  write('real', real);
  writeFileSync(join(dir, 'suite.js'), 'this.name=`calls-fixture`,this.description=`Implement tool \\`test_hidden\\``}async run(){}');
  writeFileSync(join(dir, 'audit'), audit);
  writeFileSync(join(dir, 'expected.yml'), expected);
  const r = spawnSync(process.execPath, [new URL('judge.mjs', import.meta.url).pathname, 'REV', join(dir, 'suite.js'),
    join(dir, 'fixture'), join(dir, 'real'), join(dir, 'audit'), join(dir, 'expected.yml'), ...scenarios],
  { env: { ...process.env, SCORED: scored.join(' ') }, encoding: 'utf8' });
  return { status: r.status, out: r.stdout };
}

const cases = [
  { name: 'both pass', want: 0, fixture: { s: [ok] }, real: { s: [ok] } },
  { name: 'real fails naming a missing tool', want: 0, fixture: { s: [ok] }, real: { s: [ok, failed('unknown tool "test_simple_text"; call one of')] } },
  { name: 'real fails naming a missing resource', want: 0, fixture: { s: [ok] }, real: { s: [failed('resource "test://static-text" not found')] } },
  { name: 'real fails, suite says not testable', want: 0, fixture: { s: [ok] }, real: { s: [failed('Not testable: server exposes no tool')] } },
  { name: 'real fails naming nothing', want: 1, fixture: { s: [ok] }, real: { s: [ok, failed('ttlMs missing')] } },
  { name: 'real warns naming nothing', want: 1, fixture: { s: [ok] }, real: { s: [ok, warned('no retry field')] } },
  { name: 'real fails an unsubscribable resource, either case', want: 0, fixture: { s: [ok] }, real: { s: [failed('Failed: Method not found: "resources/subscribe"')] } },
  { name: 'real fails another method not found', want: 1, fixture: { s: [ok] }, real: { s: [failed('Failed: Method not found: "tools/call"')] } },
  { name: 'real fails naming an Automium tool', want: 1, fixture: { s: [ok] }, real: { s: [failed('unknown tool "automium_list_apps"')] } },
  { name: 'real fails a fixture, fixture fails too', want: 1, fixture: { s: [failed('x')] }, real: { s: [failed('unknown tool "test_simple_text"')] } },
  { name: 'fixture warns', want: 1, fixture: { s: [ok, warned('x')] }, real: { s: [ok] } },
  { name: 'fixture result missing', want: 1, fixture: {}, real: { s: [ok] } },
  { name: 'real result missing', want: 1, fixture: { s: [ok] }, real: {} },
  { name: 'expected failure fails', want: 0, expected: 'server:\n  # go-sdk lacks it\n  - s\n', fixture: { s: [failed('x')] }, real: { s: [failed('x')] } },
  { name: 'expected failure passes (stale)', want: 1, expected: 'server:\n  # go-sdk lacks it\n  - s\n', fixture: { s: [ok] }, real: { s: [failed('x')] } },
  {
    name: 'described fixture refused in the audit log', want: 0, scenarios: ['calls-fixture'],
    fixture: { 'calls-fixture': [ok] }, real: { 'calls-fixture': [failed('Expected InputRequiredResult')] },
    audit: '{"outcome":"rpc_error","code":-32602,"name":"test_hidden"}\n',
  },
  {
    name: 'described fixture, no refusal in the audit log', want: 1, scenarios: ['calls-fixture'],
    fixture: { 'calls-fixture': [ok] }, real: { 'calls-fixture': [failed('Expected InputRequiredResult')] },
    audit: '{"outcome":"ok","name":"test_hidden"}\n',
  },
];

for (const c of cases) {
  test(c.name, () => {
    const r = judge({ scenarios: ['s'], ...c });
    assert.equal(r.status, c.want, r.out);
  });
}
