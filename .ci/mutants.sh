#!/usr/bin/env bash
# Mutation check for binding's guarantees: applies each mutant of
# .ci/mutants.txt to a fresh copy of the repository and expects the tests it
# names to FAIL. A mutant that does not apply, or does not build, is an error
# of the list (fix the patch); one whose tests pass survived, and the check
# fails. Each run is targeted (one package, one -run pattern).
#
# Usage: .ci/mutants.sh [REGEX]. With REGEX (grep -E), only the mutants whose
# names match it run, to iterate on a few; CI runs them all.
set -euo pipefail
only=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
list="$root/.ci/mutants.txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One copy, at one path, for every mutant: each is applied and then reversed,
# so the build cache keeps every package a mutant does not touch.
copy="$work/repo"
mkdir -p "$copy"
# The files git knows of, as they are in the work tree (committed or not).
(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$copy")
survived=0
killed=0
while IFS=$'\t' read -r name pkg run flags; do
	case "$name" in '' | '#'*) continue ;; esac
	if [ -n "$only" ] && ! grep -qE -e "$only" <<<"$name"; then
		continue
	fi
	if ! patch -s -p1 -d "$copy" --no-backup-if-mismatch <"$root/.ci/mutants/$name.patch"; then
		echo "ERROR  $name: the patch does not apply; regenerate it" >&2
		exit 2
	fi
	race=()
	[ "${flags:-}" = race ] && race=(-race)
	if (cd "$copy" && go test "${race[@]}" -count=1 -timeout 120s -run "$run" "$pkg" >"$work/$name.log" 2>&1); then
		echo "SURVIVED $name: go test ${race[*]} -run '$run' $pkg passes with the mutant"
		survived=$((survived + 1))
	elif grep -q -e '\[build failed\]' -e '\[setup failed\]' "$work/$name.log"; then
		echo "ERROR  $name: the mutant does not build; a mutant must compile to mean anything" >&2
		cat "$work/$name.log" >&2
		exit 2
	else
		echo "killed   $name ($pkg -run '$run')"
		killed=$((killed + 1))
	fi
	patch -s -R -p1 -d "$copy" --no-backup-if-mismatch <"$root/.ci/mutants/$name.patch"
done <"$list"
echo "$killed mutants killed, $survived survived${only:+ (only those matching $only)}"
if [ $((killed + survived)) -eq 0 ]; then
	echo "ERROR  no mutant matches ${only:-the list}" >&2
	exit 2
fi
[ "$survived" -eq 0 ]
