// Checks vectors.json with an RFC 8785 implementation written independently of
// the Go code (the canonicalize package), following the rules of
// docs/digests.md from each vector's own bytes. Every check prints one line; the
// last line counts them, and the exit code is 1 if any failed.
import { readFileSync } from 'node:fs';
import { createHash, createHmac } from 'node:crypto';
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
  check(`catalog (${c.rule}): ${c.name}`, got === c.canonical && sha(got) === c.digest,
    `the document is not in RFC 8785 form or does not hash to ${c.digest}`);
  if (c.rule === 'tool-catalog-v2') {
    const rebuilt = canonicalize(catalogV2(c.lists));
    check(`catalog (tool-catalog-v2) rebuilt from its list items: ${c.name}`, rebuilt === c.canonical && sha(rebuilt) === c.digest,
      `rebuilt ${rebuilt}`);
  }
}
for (const p of v.policies) {
  const got = canonicalize(p.value);
  check(`policy digest: ${p.name}`, sha(got) === p.digest, `got ${sha(got)}, want ${p.digest}`);
}

// tool-catalog-v2 (docs/binding.md), rebuilt from the list items by its words
// alone: tool-catalog-v1's projection of each item, then every other member
// whole unless it is null, "", {} or [] (a resource's "size" left out), the
// same one level down in a tool's annotations and a prompt's arguments.
function catalogV2 (lists) {
  const empty = (x) => x === null || x === undefined || x === '' ||
    (Array.isArray(x) ? x.length === 0 : typeof x === 'object' && Object.keys(x).length === 0);
  const strings = (out, item, keys) => {
    for (const k of keys) if (item[k] !== undefined && item[k] !== null && item[k] !== '') out[k] = item[k];
    return out;
  };
  const rest = (out, item, skip = []) => {
    for (const [k, x] of Object.entries(item)) if (!(k in out) && !skip.includes(k) && !empty(x)) out[k] = x;
    return out;
  };
  const byKey = (key) => (a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0); // UTF-16 code units
  const hints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
  const tool = (t) => {
    const out = strings({ name: t.name }, t, ['title', 'description']);
    for (const k of ['inputSchema', 'outputSchema']) if (t[k] !== undefined && t[k] !== null) out[k] = t[k];
    const ann = t.annotations ?? {};
    const a = strings({}, ann, ['title']);
    for (const [h, def] of Object.entries(hints)) a[h] = ann[h] ?? def;
    out.annotations = rest(a, ann);
    return rest(out, t);
  };
  const resource = (key, skip) => (r) => rest(strings({ [key]: r[key] }, r, ['name', 'title', 'description', 'mimeType']), r, skip);
  const prompt = (p) => {
    const out = strings({ name: p.name }, p, ['title', 'description']);
    out.arguments = (p.arguments ?? []).map((a) =>
      rest({ ...strings({ name: a.name }, a, ['title', 'description']), required: a.required ?? false }, a)).sort(byKey('name'));
    return rest(out, p);
  };
  return {
    catalog: 'tool-catalog-v2',
    protocolVersion: lists.protocolVersion,
    tools: lists.tools.map(tool).sort(byKey('name')),
    resources: lists.resources.map(resource('uri', ['size'])).sort(byKey('uri')),
    resourceTemplates: lists.resourceTemplates.map(resource('uriTemplate', [])).sort(byKey('uriTemplate')),
    prompts: lists.prompts.map(prompt).sort(byKey('name')),
  };
}

// Grants (docs/binding.md): the ID is the digest of the grant without "id" and
// "seal" and with "grant": "action-grant-v2"; the plan ID the digest of the plan
// document rebuilt from its grants; the seal an HMAC-SHA256 of
// "action-grant-v2 seal" 0x00 keyId 0x00 grantId.
for (const gv of v.grants ?? []) {
  const secret = Buffer.from(gv.secretHex, 'hex');
  const steps = [];
  let scope;
  gv.grants.forEach((grant, i) => {
    const { id, seal, ...rest } = grant;
    const got = sha(canonicalize({ ...rest, grant: 'action-grant-v2' }));
    check(`grant ID: ${gv.name}, step ${i}`, got === id, `recomputed ${got}, the grant says ${id}`);
    const mac = 'hmac-sha256:' + createHmac('sha256', secret).update(Buffer.concat([
      Buffer.from('action-grant-v2 seal'), Buffer.from([0]), Buffer.from(gv.keyId, 'utf8'), Buffer.from([0]), Buffer.from(id, 'utf8'),
    ])).digest('hex');
    check(`seal: ${gv.name}, step ${i}`, seal.keyId === gv.keyId && seal.mac === mac, `recomputed ${mac}, the grant says ${seal.mac}`);
    check(`grant's catalog digest is the catalog vector's: ${gv.name}, step ${i}`,
      rest.candidates.every((c) => v.catalogs.some((cat) => cat.digest === c.catalogDigest)), 'no catalog vector has that digest');
    steps.push(rest.candidates);
    const { runId, policyDigest, host, vmUuid, issuedAt, expiresAt, planId } = rest;
    scope = { plan: 'action-plan-v1', runId, policyDigest, host, vmUuid, issuedAt, expiresAt, planId };
  });
  const { planId, ...plan } = scope;
  const got = sha(canonicalize({ ...plan, steps }));
  check(`plan ID: ${gv.name}`, got === planId, `recomputed ${got}, the grants say ${planId}`);
}

console.log(`digest vectors checked in JavaScript: ${passed} of ${passed + failed} checks passed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
