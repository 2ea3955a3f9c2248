#!/usr/bin/env bash
# Proves exported specs with the real tools (docs/playwright-export.md):
#  1. go run ./tools/playwright-export writes the export of every
#     reference journey (TypeScript and JavaScript; the TypeScript is specs/,
#     which go generate ./... writes) and a seeded hostile batch;
#  2. check.js: node:crypto digests and the TypeScript parser's literals;
#  3. node --check over every JavaScript spec, tsc --noEmit over every
#     TypeScript spec against @playwright/test's own types;
#  4. playwright test --list --reporter=json over both languages;
#  5. one real run: Debian's chromium runs the specs of four reference journeys
#     against the fixture pages (server.js, loopback), then again with one
#     page broken (broken/);
#  6. the Go test reads the lists and both reports back (TestPlaywrightExportRealTools).
# Install first: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix testdata/playwright-export.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work="$here/work"
rm -rf "$work"
mkdir -p "$work"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
(cd "$root" && go run ./tools/playwright-export -out "$work/specs")
cp "$here/automium-fixture-files.ts" "$work/specs/typescript/"
cp "$here/automium-fixture-files.ts" "$work/specs/hostile-typescript/"
cp "$here/automium-fixture-files.js" "$work/specs/javascript/"
cp "$here/automium-fixture-files.js" "$work/specs/hostile-javascript/"
cd "$here"
diff -r specs "$work/specs/typescript" -x automium-fixture-files.ts >/dev/null || { echo "the committed specs/ are not the export: go generate ./..." >&2; exit 1; }
echo "exported after ${SECONDS}s"
node check.js
for f in "$work"/specs/javascript/*.js "$work"/specs/hostile-javascript/*.js; do node --check "$f"; done
echo "node --check: $(ls "$work"/specs/javascript/*.spec.js "$work"/specs/hostile-javascript/*.spec.js | wc -l) JavaScript specs parse"
npx --no-install tsc -p tsconfig.json
echo "tsc --noEmit: $(ls "$work"/specs/typescript/*.spec.ts "$work"/specs/hostile-typescript/*.spec.ts | wc -l) TypeScript specs type-check"
AUTOMIUM_SPECS="$work/specs/typescript" npx --no-install playwright test --list --reporter=json >"$work/list-typescript.json"
AUTOMIUM_SPECS="$work/specs/javascript" npx --no-install playwright test --list --reporter=json >"$work/list-javascript.json"
mkdir -p "$work/run"
for id in storefront-search-add-to-cart storefront-checkout-saved-address banking-enable-paperless-statements helpdesk-submit-request-with-screenshot; do
	cp "$work/specs/typescript/$id.spec.ts" "$work/run/"
done
cp "$here/automium-fixture-files.ts" "$work/run/"
echo "listed both languages after ${SECONDS}s"
AUTOMIUM_SERVE=1 AUTOMIUM_SPECS="$work/run" npx --no-install playwright test >"$work/report.json" || true
AUTOMIUM_SERVE=1 AUTOMIUM_FIXTURE_SITE=broken AUTOMIUM_SPECS="$work/run" npx --no-install playwright test >"$work/report-broken.json" || true
echo "ran in chromium twice after ${SECONDS}s"
cd "$root"
AUTOMIUM_PLAYWRIGHT_EXPORT="$work" go test -count=1 -run '^TestPlaywrightExportRealTools$' -v . | grep -v '^=== RUN'
