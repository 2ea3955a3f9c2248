// The one helper a team supplies for upload_file (docs/playwright-export.md):
// fixtureFile resolves a fixture-file:// reference of the journey's fixture to
// what Playwright's setFiles takes. The exported spec never names a path; here
// every reference of the owned corpus resolves to a small in-memory file.
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

export interface FixtureFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

export async function fixtureFile(ref: string): Promise<FixtureFile> {
  const m = /^fixture-file:\/\/[a-z0-9-]+\/(?:[a-z0-9-]+\/)*([a-z0-9-]+\.(png|pdf))$/.exec(ref);
  if (m === null) throw new Error('not a fixture file reference of the owned corpus: ' + ref);
  return { name: m[1], mimeType: m[2] === 'png' ? 'image/png' : 'application/pdf', buffer: m[2] === 'png' ? png : pdf };
}
