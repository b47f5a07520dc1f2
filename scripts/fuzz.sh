#!/usr/bin/env bash
# Runs every Go fuzz target of the module for FUZZTIME each (default 30s), one
# after another: `make test` calls it before the unit and system tests, so each
# decoder of outside input meets fresh random input on every CI run. A finding
# is written to the package's testdata/fuzz/<target>/ and fails the run; the
# log of a failing target is printed.
#
# Go 1.26's fuzz coordinator can end a clean run with a bare "context deadline
# exceeded" when -fuzztime expires while a worker is mid-call (golang/go#75804,
# fixed in Go 1.27). Such a run wrote no reproducer; it is re-run once and only
# fails the suite if the race repeats or any run writes a failing input.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-30s}"
logdir="$(mktemp -d)"
trap 'rm -rf "$logdir"' EXIT
failed=0
count=0

# corpus_files lists the saved inputs of one target (seed and found alike).
corpus_files() {
	local dir="$1/testdata/fuzz/$2"
	[ -d "$dir" ] && ls "$dir" | sort || true
}

# fuzz_once runs one target; it prints "ok", "fail" or "deadline-race".
fuzz_once() {
	local pkg="$1" name="$2" log="$3" before after
	before="$(corpus_files "$pkg" "$name")"
	if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "$pkg" >"$log" 2>&1; then
		echo ok
		return
	fi
	after="$(corpus_files "$pkg" "$name")"
	if [ "$before" = "$after" ] && grep -q '^    context deadline exceeded$' "$log" &&
		! grep -q 'Failing input written' "$log"; then
		echo deadline-race
	else
		echo fail
	fi
}

while IFS=: read -r file name; do
	pkg="./$(dirname "$file")"
	count=$((count + 1))
	log="$logdir/$count.log"
	start=$(date +%s)
	result="$(fuzz_once "$pkg" "$name" "$log")"
	if [ "$result" = deadline-race ]; then
		echo "fuzz: $pkg $name ended on Go's fuzztime race (golang/go#75804, no input written); running it again"
		result="$(fuzz_once "$pkg" "$name" "$log")"
	fi
	if [ "$result" = ok ]; then
		echo "fuzz: ok   $pkg $name ($(($(date +%s) - start)) s)"
	else
		echo "fuzz: FAIL $pkg $name"
		cat "$log"
		failed=$((failed + 1))
	fi
done < <(grep -rEo --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)' . | sed 's/^\.\///; s/func //' | sort)
echo "fuzz: $count targets run, $failed failed"
[ "$failed" -eq 0 ]
