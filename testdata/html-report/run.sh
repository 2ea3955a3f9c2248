#!/usr/bin/env bash
# The CI check of issue 38's human view: on the checkout's Playwright fixture
# (testdata/playwright/report.json), the automium command prints a Markdown
# summary and writes an HTML report; Debian's chromium, driven by the pinned
# @playwright/test of testdata/playwright, renders it to a screenshot while
# check.js counts every request the page makes: the document itself and
# nothing else, with the host resolver mapping every name to nowhere as a
# second fence. The same for the gate's page, the run against a baseline
# snapshot written from itself (exit 0). Writes summary.md, report.html,
# report.png, gate.md, gate.html and gate.png to $1 (default: a new temporary
# directory) and prints where.
# Install first: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix testdata/playwright, and chromium.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
(cd "$root" && CGO_ENABLED=0 go build -o "$out/automium" ./cmd/automium)
status=0
"$out/automium" compare --html "$out/report.html" "$root/testdata/playwright/report.json" >"$out/summary.md" || status=$?
[ "$status" -eq 0 ] || { echo "automium compare exited $status" >&2; exit 1; }
grep -q '^## ' "$out/summary.md" || { echo "summary.md has no Markdown heading" >&2; exit 1; }
# The gate's page too: this run against a baseline written from itself.
"$out/automium" compare --snapshot "$out/baseline.json" "$root/testdata/playwright/report.json" >/dev/null
"$out/automium" compare --baseline "$out/baseline.json" --html "$out/gate.html" "$root/testdata/playwright/report.json" >"$out/gate.md"
grep -q '^## Gate passed' "$out/gate.md" || { echo "gate.md does not say the gate passed" >&2; exit 1; }
rm -f "$out/automium"
NODE_PATH="$root/testdata/playwright/node_modules" node "$here/check.js" "$out/report.html" "$out/report.png"
NODE_PATH="$root/testdata/playwright/node_modules" node "$here/check.js" "$out/gate.html" "$out/gate.png"
echo "summaries, reports and screenshots in $out"
