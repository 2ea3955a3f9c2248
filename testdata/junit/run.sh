#!/usr/bin/env bash
# Real JUnit producers over real tests, for TestRealJUnitReports:
#   $1/pytest.xml: Debian's python3-pytest --junitxml over test_journeys.py
#     (record_property writes each test's planner, journey and tokens);
#   $1/strconv.xml, $1/unicode-utf8.xml: go-junit-report v2.1.0 (from the Go
#     module proxy) over `go test -v` of Go standard-library packages, whose
#     header totals the parse must match.
# Nothing here is committed output of another project: each file is written
# afresh by its producer.
set -euo pipefail
# Debian's interpreter, which python3-pytest installs into, whatever else is on PATH.
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:?usage: run.sh OUTDIR}")
mkdir -p "$out"
(cd "$here" && /usr/bin/python3 -m pytest -q -p no:cacheprovider -o junit_family=xunit1 --junitxml="$out/pytest.xml" test_journeys.py >/dev/null) || true
grep -q '<testsuite' "$out/pytest.xml"
for pkg in strconv unicode/utf8; do
	name=$(echo "$pkg" | tr / -)
	(go test -count=1 -v "$pkg" 2>&1 || true) | go run github.com/jstemmer/go-junit-report/v2@v2.1.0 -set-exit-code=false >"$out/$name.xml"
	grep -q '<testsuite' "$out/$name.xml"
done
