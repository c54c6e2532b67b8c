#!/usr/bin/env bash
# `policyctl simulate` benchmark (issue 18): 10,000 requests against the 10k-object synthetic estate.
#
#   tests/benches/simulate.sh             # best of 3
#   RUNS=5 tests/benches/simulate.sh
#
# Three runs of `simulate -o json` on the `small` estate of run.sh (10 gateways × 10 listeners, 4,000
# routes, 9,950 objects), each timed end to end (load, analysis, generation, simulation, output):
#   one      one request: the fixed cost every run pays before it simulates anything;
#   count    the same request 10,000 times (`--count 10000 --interval 1ms`);
#   traffic  `--requests` with 10,000 different requests, taken round-robin from the estate's route
#            hostnames and rule paths, 1 ms apart, each with one of 50 identities.
# The simulation's own cost is a run's time minus `one`'s; per request, that divided by 10,000.
# Not for CI: a shared 2-core machine gives noisy numbers. Uses hyperfine when installed.
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-3}
N=${N:-10000}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet --bin policyctl --example synth
BIN=$CARGO_TARGET_DIR/release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$BIN/examples/synth" --gateways 10 --listeners 10 --routes 4000 --seed 1 >"$WORK/estate.yaml" 2>/dev/null
mkdir "$WORK/estate" && mv "$WORK/estate.yaml" "$WORK/estate/"

# One URL per route that has a hostname of its own: the route's first hostname and its first rule.
grep -oE '^  - r[0-9]+-0\.l[0-9]+\.gw[0-9]+\.example\.com$' "$WORK/estate/estate.yaml" |
  sed -E 's/^  - (r([0-9]+)-0\..*)$/http:\/\/\1\/route-\2\/op0/' >"$WORK/urls"
awk -v n="$N" '
  { urls[NR - 1] = $0 }
  END {
    for (i = 0; i < n; i++)
      printf "{\"url\": \"%s\", \"at\": \"%dms\", \"identity\": {\"sub\": \"user-%d\"}}\n", urls[i % NR], i, i % 50
  }' "$WORK/urls" >"$WORK/traffic.jsonl"
URL=$(head -1 "$WORK/urls")
echo "estate: $(grep -c '^kind:' "$WORK/estate/estate.yaml") objects; $(wc -l <"$WORK/urls") distinct URLs; first $URL" >&2

# shellcheck source=tests/benches/common.sh
source tests/benches/common.sh

sim=("$BIN/policyctl" simulate -f "$WORK/estate" -o json --identity '{"sub":"user-1"}')
# Every run must succeed and say what it was asked: the request count of its output.
check() {
  local want=$1; shift
  local got
  got=$("$@" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["requests"]))')
  [[ "$got" == "$want" ]] || { echo "expected $want requests, got $got: $*" >&2; exit 1; }
}
check 1 "${sim[@]}" "$URL"
check "$N" "${sim[@]}" --count "$N" --interval 1ms "$URL"
check "$N" "${sim[@]}" --requests "$WORK/traffic.jsonl"

one=$(best_of "$RUNS" "${sim[@]}" "$URL")
count=$(best_of "$RUNS" "${sim[@]}" --count "$N" --interval 1ms "$URL")
traffic=$(best_of "$RUNS" "${sim[@]}" --requests "$WORK/traffic.jsonl")
printf '%-8s %8s %12s\n' run seconds us/request
printf '%-8s %8s %12s\n' one "$one" -
for r in count traffic; do
  t=${!r}
  printf '%-8s %8s %12s\n' "$r" "$t" "$(awk -v t="$t" -v o="$one" -v n="$N" 'BEGIN{printf "%.1f", (t-o)*1e6/n}')"
done
