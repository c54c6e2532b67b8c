#!/usr/bin/env bash
# `policyctl audit` against `policyctl status` (issue 36): audit must run within 1.5 x status on the
# 100k-object estate (`large` of run.sh: 100 gateways x 10 listeners, 40,000 routes, 100,126 objects).
#
#   tests/benches/audit.sh                 # small and large, best of 3 (large: of 2)
#   SIZES=large RUNS=5 tests/benches/audit.sh
#   POLICYCTL=/path/to/policyctl SYNTH=/path/to/synth tests/benches/audit.sh   # prebuilt binaries
#
# Both commands end to end with their default table output to a pipe (`| cat >/dev/null`, as in CI
# or `| less`): load, the analysis they
# share (topology, effective policies, generated objects, predicted status), then status's table of
# policies, or audit's walk over every path, its findings and its table of every path and hostname.
# Printed per estate: the best wall time of each, their ratio, the CPU time (user + sys) of one run of
# each and its ratio (on a shared box the CPU time is the steadier figure), and the peak RSS.
# Not for CI: a shared 2-core machine gives noisy numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-3}
SIZES=${SIZES:-"small large"}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# POLICYCTL and SYNTH name prebuilt binaries (nothing is built then).
if [[ -z ${POLICYCTL:-} || -z ${SYNTH:-} ]]; then
  cargo build --release --quiet --bin policyctl --example synth
fi
POLICYCTL=${POLICYCTL:-$CARGO_TARGET_DIR/release/policyctl}
SYNTH=${SYNTH:-$CARGO_TARGET_DIR/release/examples/synth}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [[ ! -x /usr/bin/time ]]; then
  echo "audit.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
  exit 1
fi

# best wall-clock seconds of N runs of a command, its stdout to a pipe
best_piped() {
  local n=$1; shift
  local best=""
  for _ in $(seq "$n"); do
    local t0 t1 t
    t0=$(date +%s%N)
    { "$@" 2>/dev/null || true; } | cat >/dev/null
    t1=$(date +%s%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t; fi
  done
  echo "$best"
}

# "cpu_seconds peak_MiB" of one run, its stdout to a pipe
cpu_rss() {
  { /usr/bin/time -f '%U %S %M' -o "$WORK/t" "$@" 2>/dev/null || true; } | cat >/dev/null
  awk '{printf "%.2f %.0f", $1 + $2, $3 / 1024}' "$WORK/t"
}

printf '%-6s %9s %9s %9s %6s %8s %8s %6s %9s %9s\n' input objects status_s audit_s ratio st_cpu au_cpu ratio st_MiB au_MiB
for size in $SIZES; do
  f=$WORK/$size.yaml
  case $size in
    small) "$SYNTH" --gateways 10 --listeners 10 --routes 4000 --seed 1 >"$f" 2>"$WORK/synth.err" ;;
    large) "$SYNTH" --gateways 100 --listeners 10 --routes 40000 --seed 1 >"$f" 2>"$WORK/synth.err" ;;
    *) echo "unknown size $size" >&2; exit 2 ;;
  esac
  objects=$(awk '{print $2}' "$WORK/synth.err")
  n=$RUNS
  [[ $size == large ]] && n=$(( RUNS < 2 ? RUNS : 2 ))
  s=$(best_piped "$n" "$POLICYCTL" status -f "$f")
  a=$(best_piped "$n" "$POLICYCTL" audit -f "$f")
  read -r scpu srss <<<"$(cpu_rss "$POLICYCTL" status -f "$f")"
  read -r acpu arss <<<"$(cpu_rss "$POLICYCTL" audit -f "$f")"
  printf '%-6s %9s %9s %9s %6s %8s %8s %6s %9s %9s\n' "$size" "$objects" "$s" "$a" \
    "$(awk -v a="$a" -v s="$s" 'BEGIN{printf "%.2f", a/s}')" "$scpu" "$acpu" \
    "$(awk -v a="$acpu" -v s="$scpu" 'BEGIN{printf "%.2f", a/s}')" "$srss" "$arss"
done
