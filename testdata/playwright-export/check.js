// Checks the exported specs in work/specs with code that is not the
// exporter's: every file's sha256 (node:crypto) is the specDigest the
// exporter returned, and every hostile spec, parsed by the TypeScript
// compiler's own parser, has no syntax error, no template or regular
// expression literal, and exactly the string literals the exporter wrote,
// in order, among them every hostile goal, name and value it was given.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const ts = require('typescript');

const dir = path.join(__dirname, 'work', 'specs');
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
let failures = 0, hostile = 0, literals = 0;
const fail = (file, msg) => { failures++; console.error(`${file}: ${msg}`); };

for (const e of manifest) {
  const bytes = fs.readFileSync(path.join(dir, e.file));
  const digest = 'sha256:' + crypto.createHash('sha256').update(bytes).digest('hex');
  if (digest !== e.specDigest) fail(e.file, `sha256 is ${digest}, the exporter said ${e.specDigest}`);
  if (!e.hostile) continue;
  hostile++;
  const kind = e.file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const sf = ts.createSourceFile(e.file, bytes.toString('utf8'), ts.ScriptTarget.ES2022, true, kind);
  for (const d of sf.parseDiagnostics) fail(e.file, 'parse error: ' + ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  const found = [];
  const visit = (node) => {
    if (ts.isStringLiteral(node)) found.push(node.text);
    else if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node) || ts.isRegularExpressionLiteral(node)) {
      fail(e.file, `a ${ts.SyntaxKind[node.kind]} the exporter never writes`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  literals += found.length;
  if (JSON.stringify(found) !== JSON.stringify(e.literals)) {
    fail(e.file, `string literals differ:\n  parsed   ${JSON.stringify(found)}\n  exported ${JSON.stringify(e.literals)}`);
  }
  for (const s of e.injected) if (!found.includes(s)) fail(e.file, `the hostile text ${JSON.stringify(s)} is not one literal`);
}
console.log(`${manifest.length} specs: digests match; ${hostile} hostile specs parse with ${literals} string literals, as exported`);
process.exit(failures ? 1 : 0);
