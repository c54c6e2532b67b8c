#!/usr/bin/env bash
# Time and peak memory of runs at the budget of paths and action sets (`--max-paths`,
# `--max-action-sets`, PCTL1019): estates whose routes multiply, each route attached whole to 32
# Gateways of 64 listeners (32,768 paths a route with 16 rules), run with `compute` (the default
# output, into a pipe) and `lint` under `/usr/bin/time`.
#
#   tests/benches/budget.sh                       # builds with `cargo build --release` first
#   POLICYCTL=path/to/policyctl tests/benches/budget.sh
#
# The estates, from tests/hostile/multiplying.sh (ROUTES routes; HOSTS hostnames and MATCHES matches
# in each of 16 rules; listeners with or without a hostname of their own, which the routes'
# hostnames are not under):
#   sets-at-budget      3 routes of 2,097,152 action sets: the first one is computed, at the budget
#   paths-and-sets      200 routes of 32,768 paths and as many action sets: 64 are computed
#   invalid-paths       130 routes of 32,768 paths, all invalid (no action set): 128 are computed
#   over-at-once        2,000 routes of 4,194,304 action sets (the schemas' most): none is computed
# Not for CI: each run takes seconds and up to gigabytes.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=tests/benches/common.sh
source tests/benches/common.sh
needs_gnu_time budget.sh
release_policyctl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tests/hostile/multiplying.sh 3 16 4 0 > "$work/sets-at-budget.yaml"
tests/hostile/multiplying.sh 200 1 1 0 > "$work/paths-and-sets.yaml"
tests/hostile/multiplying.sh 130 1 1 1 > "$work/invalid-paths.yaml"
tests/hostile/multiplying.sh 2000 16 8 0 > "$work/over-at-once.yaml"

printf '%-18s %8s %-8s %5s %8s %9s\n' estate KB command exit seconds peak-MiB
for name in sets-at-budget paths-and-sets invalid-paths over-at-once; do
  f="$work/$name.yaml"
  for cmd in compute lint; do
    set +e
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$POLICYCTL" "$cmd" -f "$f" 2>&1 | cat >/dev/null
    code=${PIPESTATUS[0]}
    set -e
    read -r secs kb < <(tail -n 1 "$work/time.txt")
    printf '%-18s %8s %-8s %5s %8s %9s\n' "$name" "$(( $(stat -c %s "$f") / 1024 ))" "$cmd" "$code" "$secs" "$(( kb / 1024 ))"
  done
done
