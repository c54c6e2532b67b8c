#!/usr/bin/env bash
# Resource limits on hostile inputs, outside the test harness: runs the release binary on every file in
# testdata/hostile/ plus generated giants (a 50 MB scalar, 10,000-deep flow and block nesting, 100,000
# documents, 100 routes that each ask for 4 million wasm action sets, 50 MB of seven-byte documents, a
# document of 5.1 million values, and for `watch` six files of a million documents each) under
# `timeout` and `/usr/bin/time -v`, and fails when a run exceeds the time bound, the
# peak-RSS bound, or exits with a code other than the expected one.
#
#   tests/hostile/limits.sh              # builds with `cargo build --release` first
#   POLICYCTL=path/to/policyctl tests/hostile/limits.sh
#   LIMIT_SECONDS=10 LIMIT_RSS_MB=1024 tests/hostile/limits.sh
#
# Expected exit codes of `policyctl lint` (tests/hostile_inputs.rs asserts the same for the fixtures):
# 0 clean or warnings only, 1 error findings, 2 trouble (unreadable input, YAML syntax, input limits).
set -euo pipefail
cd "$(dirname "$0")/../.."

limit_s=${LIMIT_SECONDS:-10}
limit_kb=$(( ${LIMIT_RSS_MB:-1024} * 1024 ))

if [[ ! -x /usr/bin/time ]]; then
  echo "limits.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
  exit 2
fi
if [[ -z "${POLICYCTL:-}" ]]; then
  cargo build --release --quiet
  target=${CARGO_TARGET_DIR:-target}
  POLICYCTL=$target/release/policyctl
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Expected exit code per input.
declare -A expect=(
  [absurd-numbers.yaml]=1
  [alias-bomb.yaml]=2
  [alias-bomb-mutated.yaml]=2
  [alias-only-document.yaml]=2
  [crlf-line-endings.yaml]=1
  [duplicate-keys-deep.yaml]=2
  [long-keys.yaml]=2
  [nul-in-quoted-string.yaml]=2
  [utf8-bom.yaml]=0
  [wrong-types-everywhere.yaml]=1
  [gen-50mb-scalar.yaml]=0
  [gen-deep-flow.yaml]=2
  [gen-deep-block.yaml]=2
  [gen-100k-documents.yaml]=0
  [gen-multiplying-routes.yaml]=2
  [gen-tiny-documents.yaml]=2
  [gen-over-values.yaml]=2
  [gen-watch-many-files]=0
)

# Generated inputs (not committed: they are large).
{
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {a: '
  head -c $((50 * 1024 * 1024)) /dev/zero | tr '\0' x
  printf '}\n'
} > "$work/gen-50mb-scalar.yaml"
{
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: '
  head -c 10000 /dev/zero | tr '\0' '['
  head -c 10000 /dev/zero | tr '\0' ']'
  printf '\n'
} > "$work/gen-deep-flow.yaml"
awk 'BEGIN {
  print "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:"
  for (i = 0; i < 10000; i++) { printf "%*s- \n", (i < 200 ? i : 200), "" }
}' > "$work/gen-deep-block.yaml"
awk 'BEGIN {
  for (i = 0; i < 100000; i++) printf "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns-%d}\n", i
}' > "$work/gen-100k-documents.yaml"

# 100 routes of 4,194,304 action sets each, the most the schemas allow, from 7 KB of YAML a route
# (PCTL1019: over the budget of action sets).
tests/hostile/multiplying.sh 100 16 8 0 > "$work/gen-multiplying-routes.yaml"

# 7 million documents of seven bytes, each a finding (PCTL1019: over the budget of documents).
awk 'BEGIN { for (i = 0; i < 7142857; i++) printf "---\n{}\n" }' > "$work/gen-tiny-documents.yaml"

# A List of 5.1 million empty items: more values than one document may hold (PCTL1011).
awk 'BEGIN { print "apiVersion: v1\nkind: List\nitems:"; for (i = 0; i < 5100000; i++) print "- {}" }' \
  > "$work/gen-over-values.yaml"

# Six files of a million seven-byte documents each, for `watch` (one cycle): each file is within
# the budget of documents on its own, all six are not (PCTL1019; `watch --cycles 1` exits 0).
mkdir "$work/gen-watch-many-files"
for i in 1 2 3 4 5 6; do
  awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "---\n{}\n" }' > "$work/gen-watch-many-files/f$i.yaml"
done

inputs=()
for f in testdata/hostile/*; do inputs+=("$f"); done
for f in "$work"/gen-*.yaml "$work"/gen-watch-*; do inputs+=("$f"); done

failed=0
printf '%-32s %6s %8s %10s %s\n' input exit seconds peak-MiB verdict
for f in "${inputs[@]}"; do
  name=$(basename "$f")
  want=${expect[$name]:-}
  if [[ -z "$want" ]]; then
    echo "$name: no expected exit code in limits.sh" >&2
    failed=1
    continue
  fi
  stats="$work/time.txt"
  cmd=(lint -f "$f")
  [[ $name == gen-watch-* ]] && cmd=(watch --cycles 1 -f "$f" lint)
  set +e
  /usr/bin/time -v -o "$stats" timeout --kill-after=5 "$limit_s" \
    "$POLICYCTL" "${cmd[@]}" </dev/null >/dev/null 2>"$work/stderr.txt"
  code=$?
  set -e
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$stats" \
    | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$stats")
  verdict=ok
  if [[ $code -eq 124 || $code -eq 137 ]]; then
    verdict="TIMEOUT (>${limit_s}s)"
  elif [[ $code -ne $want ]]; then
    verdict="EXIT $code, expected $want"
  elif (( kb > limit_kb )); then
    verdict="RSS over ${LIMIT_RSS_MB:-1024} MiB"
  fi
  [[ $verdict == ok ]] || failed=1
  printf '%-32s %6s %8s %10s %s\n' "$name" "$code" "$secs" "$(( kb / 1024 ))" "$verdict"
  if [[ $verdict != ok ]]; then
    head -c 2000 "$work/stderr.txt" >&2
  fi
done

if [[ $failed -ne 0 ]]; then
  echo "limits.sh: FAILED" >&2
  exit 1
fi
echo "limits.sh: all ${#inputs[@]} inputs within ${limit_s}s and ${LIMIT_RSS_MB:-1024} MiB"
