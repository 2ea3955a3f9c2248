// Checks vectors.json with an RFC 8785 implementation written independently of
// the Go code (the canonicalize package), following the rules of
// docs/digests.md from each vector's own bytes. Every check prints one line; the
// last line is "N passed, N failed", and the exit code is 1 if any failed.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

const file = process.argv[2] ?? new URL('vectors.json', import.meta.url);
const v = JSON.parse(readFileSync(file, 'utf8'));
const sha = (s) => 'sha256:' + createHash('sha256').update(s, 'utf8').digest('hex');

let passed = 0;
let failed = 0;
function check (what, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${what}`);
  } else {
    failed++;
    console.log(`FAIL ${what}: ${detail}`);
  }
}

for (const c of v.canonical) {
  const got = canonicalize(JSON.parse(c.json));
  check(`canonical: ${c.name}`, got === c.canonical && sha(got) === c.digest,
    `got ${JSON.stringify(got)} (${sha(got)}), want ${JSON.stringify(c.canonical)} (${c.digest})`);
}

// A digest over an answer: the answer with "digest" set to "", canonicalized.
function answerDigest (kind, name, answer, canonical) {
  const got = canonicalize({ ...answer, digest: '' });
  check(`${kind}: ${name}`, got === canonical && sha(got) === answer.digest,
    `canonical ${JSON.stringify(got)} hashes to ${sha(got)}; the answer says ${answer.digest}`);
}
for (const j of v.journeys) answerDigest('journey digest', j.name, j.journey, j.canonical);
for (const m of v.manifests) answerDigest('manifest digest', m.name, m.manifest, m.canonical);

for (const r of v.runs) {
  const picked = Object.fromEntries(r.members.map((m) => [m, r.run[m]]));
  const got = canonicalize(picked);
  const runId = 'run-' + sha(got).slice('sha256:'.length, 'sha256:'.length + 20);
  check(`run ID: ${r.name}`, got === r.canonical && runId === r.run.runId,
    `canonical ${JSON.stringify(got)} gives ${runId}; the answer says ${r.run.runId}`);
  check(`run ID: ${r.name}: journeyDigest is the compiled journey's`,
    r.input.journey === undefined || v.journeys.some((j) => j.journey.digest === r.run.journeyDigest), 'no journey vector has that digest');
}

for (const c of v.catalogs) {
  const got = canonicalize(JSON.parse(c.canonical));
  check(`catalog: ${c.name}`, got === c.canonical && sha(got) === c.digest,
    `the document is not in RFC 8785 form or does not hash to ${c.digest}`);
}
for (const p of v.policies) {
  const got = canonicalize(p.value);
  check(`policy digest: ${p.name}`, sha(got) === p.digest, `got ${sha(got)}, want ${p.digest}`);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
