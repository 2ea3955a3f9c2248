#!/usr/bin/env bash
# Runs team/journeys.spec.js with the pinned @playwright/test
# (playwright.team.config.js) and writes the JSON reporter's output to $1
# (default: team-report.json) and the junit reporter's output of the same run
# to $2 (default: team-junit.xml), with this directory's absolute path
# replaced by /project and node's by node. The candidate regresses on purpose,
# so Playwright exits 1. Install first: npm ci --prefix testdata/playwright
# (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1).
set -euo pipefail
cd "$(dirname "$0")"
out=$(realpath -m "${1:-team-report.json}")
junit=$(realpath -m "${2:-team-junit.xml}")
raw=$(mktemp)
rawxml=$(mktemp)
AUTOMIUM_JUNIT_OUTPUT="$rawxml" PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npx --no-install playwright test -c playwright.team.config.js >"$raw" || true
grep -q '"suites"' "$raw" || { echo "playwright wrote no JSON report:" >&2; head -c 2000 "$raw" >&2; exit 1; }
sed -e "s#$(command -v node)#node#g" -e "s#$PWD#/project#g" "$raw" >"$out"
grep -q '<testsuites' "$rawxml" || { echo "playwright wrote no JUnit report" >&2; exit 1; }
sed -e "s#$(command -v node)#node#g" -e "s#$PWD#/project#g" "$rawxml" >"$junit"
rm -f "$raw" "$rawxml"
