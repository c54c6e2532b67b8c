#!/usr/bin/env bash
# The default output at scale (issue 33): `policyctl compute` as people run it, without `-q`, its
# findings drawn for people on stderr into a file (a pipe, not a terminal), on
#   - issue1085:    kuadrant-operator #1085 (one Gateway, 63 listeners, 63 routes; `--shape issue1085`)
#   - tenants-10k:  `--shape tenants --gateways 10 --routes 4000` (9,912 objects): Gateways with ten
#                   listeners of distinct hostnames, every route on its whole Gateway with one
#                   hostname under one of them
#   - tenants-100k: `--shape tenants --gateways 100 --routes 40000` (99,914 objects)
# Best wall time of RUNS (the 100k estate RUNS_LARGE times), peak RSS, the bytes of stderr, and the
# 10x scaling; then `status` and `lint` (default output) on tenants-100k, and `compute --out-dir`
# from scratch of the 100k-object default estate (`--gateways 100 --routes 40000`, 138,197 files).
#
#   tests/benches/default.sh
#   RUNS=5 RUNS_LARGE=3 tests/benches/default.sh
#   SIZES="issue1085 tenants-10k" OUTDIR=0 tests/benches/default.sh
#
# Uses hyperfine when installed; /usr/bin/time -v gives the peak RSS. Not for CI: a shared 2-core
# machine gives noisy numbers (see tests/benches/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-5}
RUNS_LARGE=${RUNS_LARGE:-1}
SIZES=${SIZES:-"issue1085 tenants-10k tenants-100k"}
OUTDIR=${OUTDIR:-1}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet --bin policyctl --example synth
BIN=$CARGO_TARGET_DIR/release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export NO_COLOR=1 COLUMNS=100

if [[ ! -x /usr/bin/time ]]; then
  echo "default.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
  exit 1
fi

# best wall-clock seconds of N runs of a command; stdout discarded, stderr into $WORK/stderr
best_of() {
  local n=$1; shift
  local best=""
  for _ in $(seq "$n"); do
    local t0 t1 t
    t0=$(date +%s%N)
    "$@" >/dev/null 2>"$WORK/stderr" || true
    t1=$(date +%s%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t; fi
  done
  echo "$best"
}

# peak RSS in MiB of one run (stderr into a file, as above)
peak_rss() {
  /usr/bin/time -v -o "$WORK/v" "$@" >/dev/null 2>"$WORK/stderr.rss" || true
  awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$WORK/v"
}

estate() {
  case $1 in
    issue1085) "$BIN/examples/synth" --shape issue1085 ;;
    tenants-10k) "$BIN/examples/synth" --shape tenants --gateways 10 --listeners 10 --routes 4000 --seed 1 ;;
    tenants-100k) "$BIN/examples/synth" --shape tenants --gateways 100 --listeners 10 --routes 40000 --seed 1 ;;
    estate-100k) "$BIN/examples/synth" --gateways 100 --listeners 10 --routes 40000 --seed 1 ;;
    *) echo "unknown size $1" >&2; exit 2 ;;
  esac
}

declare -A TIME
printf '%-13s %8s %6s %9s %9s %10s\n' input objects MB compute_s RSS_MiB stderr_KB
for size in $SIZES; do
  f=$WORK/$size.yaml
  estate "$size" >"$f" 2>"$WORK/synth.err"
  objects=$(awk '{print $2}' "$WORK/synth.err")
  mb=$(awk -v b="$(wc -c <"$f")" 'BEGIN{printf "%.1f", b/1e6}')
  n=$RUNS
  [[ $size == tenants-100k ]] && n=$RUNS_LARGE
  t=$(best_of "$n" "$BIN/policyctl" compute -f "$f")
  TIME[$size]=$t
  err=$(awk -v b="$(wc -c <"$WORK/stderr")" 'BEGIN{printf "%.0f", b/1e3}')
  rss=$(peak_rss "$BIN/policyctl" compute -f "$f")
  printf '%-13s %8s %6s %9s %9s %10s\n' "$size" "$objects" "$mb" "$t" "$rss" "$err"
done
if [[ -n "${TIME[tenants-10k]:-}" && -n "${TIME[tenants-100k]:-}" ]]; then
  awk -v s="${TIME[tenants-10k]}" -v l="${TIME[tenants-100k]}" \
    'BEGIN{ printf "scaling: 10x the objects (tenants-10k -> tenants-100k) took %.1fx the time\n", l/s }'
fi
if [[ -f $WORK/tenants-100k.yaml ]]; then
  for cmd in status lint; do
    t=$(best_of 1 "$BIN/policyctl" "$cmd" -f "$WORK/tenants-100k.yaml")
    echo "tenants-100k: $cmd ${t} s"
  done
fi
if [[ $OUTDIR == 1 ]]; then
  f=$WORK/estate-100k.yaml
  estate estate-100k >"$f" 2>/dev/null
  t=$(best_of 1 "$BIN/policyctl" compute -f "$f" --out-dir "$WORK/out")
  files=$(find "$WORK/out" -type f | wc -l)
  rss=$(peak_rss "$BIN/policyctl" compute -f "$f" --out-dir "$WORK/out2")
  echo "estate-100k: compute --out-dir from scratch ${t} s ($files files, peak RSS ${rss} MiB)"
  t=$(best_of 1 "$BIN/policyctl" compute -f "$f" --out-dir "$WORK/out")
  echo "estate-100k: compute --out-dir, up to date ${t} s"
fi
