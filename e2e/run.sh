#!/usr/bin/env bash
# End-to-end test of cmd/automium-mcp with a real MCP client: the MCP Inspector CLI
# (TypeScript SDK), pinned exactly in package.json and package-lock.json.
#
#   npm ci --prefix e2e && e2e/run.sh
#
# It builds the binary, then, once in the legacy protocol era (initialize at
# 2025-11-25) and once in the modern one (sessionless 2026-07-28): lists tools,
# resources and prompts; calls every listed tool once with good arguments (exit 0,
# not isError) and once with bad ones (exit 5, the Inspector's code for an isError
# result, carrying the expected Automium error code); reads every listed resource
# and fails to read file:///etc/passwd; gets every listed prompt with good
# arguments and fails with bad ones (exit 1, a JSON-RPC error). Arguments come from
# calls.json, which must have an entry for every tool and prompt the server lists,
# and no other. go generate ./... writes it whole: a tool's calls from its row of
# the tool table (mcpserver/tools.go: the example, refuses, shows), a prompt's
# from promptCalls (mcpserver/generate.go).
#
# Inspector 2.x declares node >= 22.19; it runs on the Node 20 this project's
# machines have, and this script is what proves it. package.json overrides vite (a
# dependency of the Inspector's web UI, unused here) to 8.3.8, because 8.4.0 added
# an optional dependency the registry does not serve, which leaves a lock file that
# `npm ci` rejects as out of sync.
set -uo pipefail
cd "$(dirname "$0")"

if [ ! -d node_modules/@modelcontextprotocol/inspector ]; then
	echo "FAIL e2e: the Inspector is not installed; run: npm ci --prefix e2e"
	exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$work/automium-mcp"
if ! (cd .. && go build -tags validator_novalidatefn -o "$bin" ./cmd/automium-mcp); then
	echo "FAIL e2e: go build ./cmd/automium-mcp"
	exit 1
fi

passed=0
failed=0
pass() {
	echo "PASS $*"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
	echo "    stdout: $(head -c 600 "$work/out")"
	echo "    stderr: $(head -c 600 "$work/err")"
}

era=legacy
# inspect ARGS...: one Inspector CLI run against the binary; the result's JSON goes
# to $work/out, the Inspector's (and the server's) stderr to $work/err, and its
# exit status to $rc.
inspect() {
	npx --no-install @modelcontextprotocol/inspector --cli "$bin" \
		--protocol-era "$era" --format json "$@" >"$work/out" 2>"$work/err"
	rc=$?
}

# json EXPR: prints the value of the JavaScript expression EXPR, in which r is the
# last result ($work/out) and calls is calls.json; strings print bare, other
# values as JSON, undefined and null as nothing.
json() {
	node -e '
		const fs = require("fs");
		const read = (f) => { try { return JSON.parse(fs.readFileSync(f, "utf8")); } catch { return null; } };
		const r = read(process.argv[2]), calls = read(process.argv[3]);
		const v = eval(process.argv[1]);
		if (v !== undefined && v !== null) console.log(typeof v === "string" ? v : JSON.stringify(v));
	' "$1" "$work/out" calls.json
}

# The Automium error code carried in an isError result's JSON text block.
error_code='r?.result?.content?.map((c) => { try { return JSON.parse(c.text).error.code; } catch { return null; } }).find(Boolean)'

# check_fixture KIND NAMES: every listed name has an entry in calls.json and every
# entry is listed.
check_fixture() {
	local kind=$1 names=$2
	local missing stale
	missing=$(NAMES="$names" json "process.env.NAMES.split('\n').filter((n) => n && !calls.$kind[n]).join(' ')")
	stale=$(NAMES="$names" json "Object.keys(calls.$kind).filter((n) => !process.env.NAMES.split('\n').includes(n)).join(' ')")
	if [ -n "$missing" ]; then
		fail "[$era] calls.json has no $kind entry for: $missing"
	elif [ -n "$stale" ]; then
		fail "[$era] calls.json has $kind entries the server does not list: $stale"
	else
		pass "[$era] calls.json covers every listed $kind"
	fi
}

# list KIND FIELD: runs KIND/list and sets $listed to the FIELD of every item, one
# a line.
list() {
	local kind=$1 field=$2
	inspect --method "$kind/list"
	listed=$(json "r.result.$kind.map((x) => x.$field).join('\n')")
	if [ "$rc" -eq 0 ] && [ -n "$listed" ]; then
		pass "[$era] $kind/list: $(echo "$listed" | wc -l) $kind"
	else
		fail "[$era] $kind/list (exit $rc)"
	fi
}

for era in legacy modern; do
	# Tools.
	list tools name
	tools=$listed
	check_fixture tools "$tools"
	for tool in $tools; do
		[ -n "$(json "calls.tools['$tool'] ? 'yes' : ''")" ] || continue

		inspect --method tools/call --tool-name "$tool" --tool-args-json "$(json "calls.tools['$tool'].good")"
		expected=$(json "Object.entries(calls.tools['$tool'].goodExpect || {}).every(([k, v]) => JSON.stringify(r?.result?.structuredContent?.[k]) === JSON.stringify(v))")
		if [ "$rc" -eq 0 ] && [ "$(json 'r?.result?.isError === true')" = false ] &&
			[ -n "$(json 'r?.result?.structuredContent ? "yes" : ""')" ] && [ "$expected" = true ]; then
			pass "[$era] tools/call $tool with good arguments"
		else
			fail "[$era] tools/call $tool with good arguments (exit $rc, want 0 and a structured, non-error result)"
		fi

		want=$(json "calls.tools['$tool'].badCode")
		inspect --method tools/call --tool-name "$tool" --tool-args-json "$(json "calls.tools['$tool'].bad")"
		got=$(json "$error_code")
		if [ "$rc" -eq 5 ] && [ "$(json 'r?.result?.isError === true')" = true ] && [ "$got" = "$want" ]; then
			pass "[$era] tools/call $tool with bad arguments: isError, $got"
		else
			fail "[$era] tools/call $tool with bad arguments (exit $rc, code ${got:-none}; want exit 5 and $want)"
		fi
	done

	# Resources.
	list resources uri
	for uri in $listed; do
		inspect --method resources/read --uri "$uri"
		if [ "$rc" -eq 0 ] && [ "$(json 'r.result.contents.length === 1 && r.result.contents[0].mimeType === "application/json" && typeof JSON.parse(r.result.contents[0].text) === "object"')" = true ]; then
			pass "[$era] resources/read $uri: application/json"
		else
			fail "[$era] resources/read $uri (exit $rc, want 0 and one application/json document)"
		fi
	done
	inspect --method resources/read --uri file:///etc/passwd
	if [ "$rc" -eq 1 ] && grep -q unsupported_resource "$work/err" && ! grep -q 'root:' "$work/out" "$work/err"; then
		pass "[$era] resources/read file:///etc/passwd is refused"
	else
		fail "[$era] resources/read file:///etc/passwd (exit $rc, want 1 and unsupported_resource)"
	fi

	# Prompts.
	list prompts name
	prompts=$listed
	check_fixture prompts "$prompts"
	for prompt in $prompts; do
		[ -n "$(json "calls.prompts['$prompt'] ? 'yes' : ''")" ] || continue
		for kind in good bad; do
			mapfile -t args < <(json "Object.entries(calls.prompts['$prompt'].$kind).map(([k, v]) => k + '=' + v).join('\n')")
			inspect --method prompts/get --prompt-name "$prompt" --prompt-args "${args[@]}"
			if [ "$kind" = good ]; then
				if [ "$rc" -eq 0 ] && [ "$(json 'r.result.messages.length > 0 && r.result.messages.every((m) => m.content.text.length > 0)')" = true ]; then
					pass "[$era] prompts/get $prompt"
				else
					fail "[$era] prompts/get $prompt (exit $rc, want 0 and messages)"
				fi
			elif [ "$rc" -eq 1 ] && grep -q '"error"' "$work/err"; then
				pass "[$era] prompts/get $prompt with bad arguments is a JSON-RPC error"
			else
				fail "[$era] prompts/get $prompt with bad arguments (exit $rc, want 1 and an error)"
			fi
		done
	done
done

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
