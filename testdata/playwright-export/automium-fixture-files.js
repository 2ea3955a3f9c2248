// The JavaScript form of automium-fixture-files.ts, for the CommonJS specs.
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** @param {string} ref */
async function fixtureFile(ref) {
  const m = /^fixture-file:\/\/[a-z0-9-]+\/(?:[a-z0-9-]+\/)*([a-z0-9-]+\.(png|pdf))$/.exec(ref);
  if (m === null) throw new Error('not a fixture file reference of the owned corpus: ' + ref);
  return { name: m[1], mimeType: m[2] === 'png' ? 'image/png' : 'application/pdf', buffer: m[2] === 'png' ? png : pdf };
}

module.exports = { fixtureFile };
