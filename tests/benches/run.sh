#!/usr/bin/env bash
# Whole-CLI benchmark (issue 7). For each input, measured in one run: the parse-only floor
# (examples/parse_only: read, split and parse every document with the loader's YAML crate and typed
# visitor) and end-to-end `policyctl compute`, their ratio, and the peak RSS of each.
#
#   tests/benches/run.sh                 # #1085 shape, 4k-route estate, 40k-route estate (~100k objects)
#   RUNS=5 tests/benches/run.sh          # best of 5 instead of 3 (the 40k estate always runs once more)
#   SIZES="issue1085 small" tests/benches/run.sh
#
# Uses hyperfine when installed (apt-get install hyperfine) for the times; /usr/bin/time -v always
# gives the peak RSS. Not for CI: a shared 2-core machine gives noisy numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-3}
SIZES=${SIZES:-"issue1085 small large"}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet --bin policyctl --example synth --example parse_only
BIN=$CARGO_TARGET_DIR/release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [[ ! -x /usr/bin/time ]]; then
  echo "run.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
  exit 1
fi

# shellcheck source=tests/benches/common.sh
source tests/benches/common.sh

# peak RSS in MiB of one run
peak_rss() {
  /usr/bin/time -v -o "$WORK/v" "$@" >/dev/null 2>/dev/null
  awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$WORK/v"
}

declare -A COMPUTE
printf '%-10s %9s %8s %9s %9s %7s %10s %10s\n' input objects MB parse_s compute_s ratio parse_MiB compute_MiB
for size in $SIZES; do
  f=$WORK/$size.yaml
  case $size in
    issue1085) "$BIN/examples/synth" --shape issue1085 >"$f" 2>"$WORK/synth.err" ;;
    small) "$BIN/examples/synth" --gateways 10 --listeners 10 --routes 4000 --seed 1 >"$f" 2>"$WORK/synth.err" ;;
    large) "$BIN/examples/synth" --gateways 100 --listeners 10 --routes 40000 --seed 1 >"$f" 2>"$WORK/synth.err" ;;
    *) echo "unknown size $size" >&2; exit 2 ;;
  esac
  objects=$(awk '{print $2}' "$WORK/synth.err")
  mb=$(awk -v b="$(wc -c <"$f")" 'BEGIN{printf "%.1f", b/1e6}')
  n=$RUNS
  [[ $size == large ]] && n=1
  p=$(best_of "$n" "$BIN/examples/parse_only" "$f")
  c=$(best_of "$n" "$BIN/policyctl" compute -f "$f")
  COMPUTE[$size]=$c
  prss=$(peak_rss "$BIN/examples/parse_only" "$f")
  crss=$(peak_rss "$BIN/policyctl" compute -f "$f")
  ratio=$(awk -v c="$c" -v p="$p" 'BEGIN{ if (p > 0) printf "%.2f", c/p; else print "n/a" }')
  printf '%-10s %9s %8s %9s %9s %7s %10s %10s\n' "$size" "$objects" "$mb" "$p" "$c" "$ratio" "$prss" "$crss"
done
if [[ -n "${COMPUTE[small]:-}" && -n "${COMPUTE[large]:-}" ]]; then
  awk -v s="${COMPUTE[small]}" -v l="${COMPUTE[large]}" \
    'BEGIN{ printf "scaling: 10x input (small -> large) took %.1fx the time\n", l/s }'
fi
