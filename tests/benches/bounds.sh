#!/usr/bin/env bash
# Peak memory of the largest runs `simulate` and `test` accept (issue 32): results are streamed, so
# memory must not grow with the number of requests. Target: under 100 MiB each.
#
#   tests/benches/bounds.sh                        # builds with `cargo build --release` first
#   POLICYCTL=path/to/policyctl tests/benches/bounds.sh
#   CASES=10 COUNT=1000 tests/benches/bounds.sh    # a smaller `test` run (CASES × COUNT requests)
#
# Runs, on the guide-shaped estate testdata/guides/simple-rl-simulate (POST /toys limited to 5 per
# 10 s), each under `/usr/bin/time -v` (peak resident set size, elapsed time):
#   simulate   `simulate --count 1000000 --interval 1ms` (text, a line per request, to /dev/null);
#   simulate-json  the same with `-o json`;
#   test       `test` with CASES cases of `count: COUNT` each (default 100 × 100,000 = 10^7 requests,
#              the default --max-requests).
# Not for CI: it takes minutes, and a shared machine gives noisy times (memory is steady).
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=tests/benches/common.sh
source tests/benches/common.sh
needs_gnu_time bounds.sh
release_policyctl
CASES=${CASES:-100}
COUNT=${COUNT:-100000}
ESTATE=testdata/guides/simple-rl-simulate
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

{
  echo "cases:"
  for ((i = 0; i < CASES; i++)); do
    printf -- "- name: case %d\n  method: POST\n  url: http://10.0.0.1/toys\n  headers: ['Host: api.toystore.com']\n  count: %d\n  expect: {limitedAfter: 5}\n" "$i" "$COUNT"
  done
} >"$WORK/cases.yaml"

measure() {
  local name=$1; shift
  local code=0
  /usr/bin/time -v -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || code=$?
  local rss_kb elapsed
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time")
  elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time")
  printf "%-14s exit %d  peak RSS %s MiB  elapsed %s\n" "$name" "$code" "$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')" "$elapsed"
  if [[ $code -gt 1 ]]; then
    head -5 "$WORK/err" >&2
  fi
}

measure simulate "$POLICYCTL" simulate -f "$ESTATE" --kuadrant-version 1.5 -X POST -H 'Host: api.toystore.com' \
  --count 1000000 --interval 1ms http://10.0.0.1/toys
measure simulate-json "$POLICYCTL" simulate -f "$ESTATE" --kuadrant-version 1.5 -X POST -H 'Host: api.toystore.com' \
  --count 1000000 --interval 1ms -o json http://10.0.0.1/toys
measure test "$POLICYCTL" test -f "$ESTATE" --kuadrant-version 1.5 "$WORK/cases.yaml"
