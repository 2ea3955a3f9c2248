// The fixture app of the real run: small static pages, with the roles and
// accessible names the journeys run here need, served on loopback only.
// Each route /a/b is site/a/b.html (/ is site/index.html); with
// AUTOMIUM_FIXTURE_SITE=broken a page in broken/ replaces its namesake, to
// break one assertion of one journey on purpose.
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const port = Number(process.env.AUTOMIUM_FIXTURE_PORT || 47328);
const dirs = [path.join(__dirname, 'site')];
if (process.env.AUTOMIUM_FIXTURE_SITE === 'broken') dirs.unshift(path.join(__dirname, 'broken'));

http.createServer((req, res) => {
  const route = new URL(req.url, 'http://127.0.0.1').pathname;
  if (route === '/healthz') return void res.end('ok');
  if (!/^(\/[a-z0-9-]+)*\/?$/.test(route)) return void res.writeHead(404).end('not found');
  const name = (route === '/' ? '/index' : route.replace(/\/$/, '')) + '.html';
  for (const dir of dirs) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return void res.end(fs.readFileSync(file));
    }
  }
  res.writeHead(404).end('not found');
}).listen(port, '127.0.0.1');
