#!/usr/bin/env bash
# The default output at scale (issue 33): `policyctl compute` as people run it, without `-q`, its
# findings drawn for people on stderr, on
#   - issue1085:    kuadrant-operator #1085 (one Gateway, 63 listeners, 63 routes; `--shape issue1085`)
#   - tenants-10k:  `--shape tenants --gateways 10 --routes 4000` (9,912 objects): Gateways with ten
#                   listeners of distinct hostnames, every route on its whole Gateway with one
#                   hostname under one of them
#   - tenants-100k: `--shape tenants --gateways 100 --routes 40000` (99,914 objects)
# Each run writes stdout and stderr into pipes (`| cat`), as `policyctl compute -f x | less` does: the
# findings are drawn for people, not as `-q` one-liners. Best and median wall time of RUNS (the 100k
# estate RUNS_LARGE times), each timed from the process's spawn to its exit (`timed.py`), then one
# more run for the CPU seconds (user + sys) and peak RSS
# (/usr/bin/time -v), the exit code, the bytes of stderr, and the 10x
# scaling; then `status` and `lint` (default output) on tenants-100k, and `compute --out-dir` from
# scratch (a folder that does not exist; `sync` before each run, outside the time) of the
# 100k-object default estate (`--gateways 100 --routes 40000`, 138,197 files), best of OUTDIR_RUNS.
#
#   tests/benches/default.sh
#   RUNS=5 RUNS_LARGE=3 OUTDIR_RUNS=3 tests/benches/default.sh
#   SIZES="issue1085 tenants-10k" OUTDIR=0 tests/benches/default.sh
#   BIN=/path/to/release tests/benches/default.sh   # another build's policyctl and examples/synth
#
# Not for CI: a shared 2-core machine gives noisy numbers (see tests/benches/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-5}
RUNS_LARGE=${RUNS_LARGE:-1}
OUTDIR_RUNS=${OUTDIR_RUNS:-1}
SIZES=${SIZES:-"issue1085 tenants-10k tenants-100k"}
OUTDIR=${OUTDIR:-1}
OUTDIR_PAUSE=${OUTDIR_PAUSE:-65}
if [[ -z "${BIN:-}" ]]; then
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
  cargo build --release --quiet --bin policyctl --example synth
  BIN=$CARGO_TARGET_DIR/release
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# As from a shell into a pipe: no colour, no COLUMNS exported (so no wrapping).
export NO_COLOR=1
unset COLUMNS

if [[ ! -x /usr/bin/time ]]; then
  echo "default.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
  exit 1
fi

# Run a command with stdout and stderr each into a pipe; stderr is kept in $WORK/stderr, the exit
# code in $WORK/rc.
piped() {
  { "$@" 2>&1 1>&3 3>&- | cat >"$WORK/stderr"; echo "${PIPESTATUS[0]}" >"$WORK/rc"; } 3>&1 | cat >/dev/null
}

# "best median" wall-clock seconds of N piped runs of a command, each timed from its spawn to its
# exit (`timed.py`; the shell's own forks and the `date` calls around a pipeline added about 3.4 ms,
# a sixth of the #1085 run); the last run's stderr in $WORK/stderr, its exit code in $WORK/rc.
best_of() {
  local n=$1; shift
  python3 tests/benches/timed.py "$n" "$WORK/stderr" "$WORK/rc" "$@"
}

# peak RSS in MiB and CPU seconds (user + sys) of one piped run: "RSS CPU"
rss_cpu() {
  piped /usr/bin/time -v -o "$WORK/v" "$@"
  awk -F: '/Maximum resident set size/ {r=$2/1024} /User time/ {c+=$2} /System time/ {c+=$2}
    END {printf "%.0f %.2f\n", r, c}' "$WORK/v"
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
printf '%-13s %8s %6s %9s %8s %7s %9s %10s %4s\n' input objects MB compute_s median_s CPU_s RSS_MiB stderr_KB exit
for size in $SIZES; do
  f=$WORK/$size.yaml
  estate "$size" >"$f" 2>"$WORK/synth.err"
  objects=$(awk '{print $2}' "$WORK/synth.err")
  mb=$(awk -v b="$(wc -c <"$f")" 'BEGIN{printf "%.1f", b/1e6}')
  n=$RUNS
  [[ $size == tenants-100k ]] && n=$RUNS_LARGE
  read -r t med < <(best_of "$n" "$BIN/policyctl" compute -f "$f")
  TIME[$size]=$t
  err=$(awk -v b="$(wc -c <"$WORK/stderr")" 'BEGIN{printf "%.0f", b/1e3}')
  rc=$(cat "$WORK/rc")
  read -r rss cpu < <(rss_cpu "$BIN/policyctl" compute -f "$f")
  printf '%-13s %8s %6s %9s %8s %7s %9s %10s %4s\n' "$size" "$objects" "$mb" "$t" "$med" "$cpu" "$rss" "$err" "$rc"
done
if [[ -n "${TIME[tenants-10k]:-}" && -n "${TIME[tenants-100k]:-}" ]]; then
  awk -v s="${TIME[tenants-10k]}" -v l="${TIME[tenants-100k]}" \
    'BEGIN{ printf "scaling: 10x the objects (tenants-10k -> tenants-100k) took %.1fx the time\n", l/s }'
fi
if [[ -f $WORK/tenants-100k.yaml ]]; then
  for cmd in status lint; do
    read -r t _ < <(best_of 1 "$BIN/policyctl" "$cmd" -f "$WORK/tenants-100k.yaml")
    echo "tenants-100k: $cmd ${t} s"
  done
fi
if [[ $OUTDIR == 1 ]]; then
  f=$WORK/estate-100k.yaml
  estate estate-100k >"$f" 2>/dev/null
  best="" rss=""
  for i in $(seq "$OUTDIR_RUNS"); do
    rm -rf "$WORK/out"
    sync
    # ext4 without a journal does not reuse an inode for a minute after it was freed, and skips
    # over each such inode when it allocates one: creating 138,197 files right after deleting as
    # many spent tens of seconds in the kernel (`tests/benches/README.md`, issue 33).
    sleep "$OUTDIR_PAUSE"
    t0=$(date +%s%N)
    piped /usr/bin/time -v -o "$WORK/v" "$BIN/policyctl" compute -f "$f" --out-dir "$WORK/out"
    t1=$(date +%s%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
    r=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$WORK/v")
    echo "estate-100k: compute --out-dir from scratch, run $i: ${t} s, peak RSS ${r} MiB, exit $(cat "$WORK/rc")"
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t rss=$r; fi
  done
  files=$(find "$WORK/out" -type f | wc -l)
  echo "estate-100k: compute --out-dir from scratch, best ${best} s ($files files, peak RSS ${rss} MiB)"
  read -r t _ < <(best_of 1 "$BIN/policyctl" compute -f "$f" --out-dir "$WORK/out")
  echo "estate-100k: compute --out-dir, up to date ${t} s"
fi
