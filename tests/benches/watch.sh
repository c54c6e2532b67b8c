#!/usr/bin/env bash
# `policyctl watch` on the 100k-object synthetic estate (issue 22): one policy file changes, one
# gateway of a hundred is affected (EDITS times, default 3, PAUSE seconds apart, default 2: a user's
# pause between two saves). Measures, in one session:
#   - the first cycle (everything read, parsed, computed and written to --out-dir),
#   - each cycle after an edit: the time `watch` prints (debounced event received -> output files
#     written), and the wall time from the edit to the cycle line on stdout (adds the debounce),
#   - beside them, `policyctl compute --out-dir` from scratch on the same files.
#
#   tests/benches/watch.sh                  # the large estate (100 gateways, 40k routes)
#   ROUTES=4000 GATEWAYS=10 tests/benches/watch.sh
#   COMPUTE=0 tests/benches/watch.sh        # the watch session only
#   PAUSE=1 tests/benches/watch.sh          # edits a second apart (watch hands memory back to the
#                                           # system in pauses over 1.2 s, see its source)
#
# Not for CI: a shared 2-core machine gives noisy numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUTES=${ROUTES:-40000}
GATEWAYS=${GATEWAYS:-100}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet --bin policyctl --example synth
BIN=$CARGO_TARGET_DIR/release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$BIN/examples/synth" --gateways "$GATEWAYS" --listeners 10 --routes "$ROUTES" --seed 1 >"$WORK/estate.yaml"
# Split the stream into files as a repository would hold it: the policies of gateway gw-0 in
# policies/gw-0.yaml, everything else in files of 1,000 documents.
mkdir -p "$WORK/in/policies" "$WORK/in/estate"
python3 - "$WORK" <<'EOF'
import sys, re
work = sys.argv[1]
docs = open(f"{work}/estate.yaml").read().split("\n---\n")
gw0, rest = [], []
for d in docs:
    d = d if d.endswith("\n") else d + "\n"
    (gw0 if re.search(r"^  name: gw-0-(defaults|overrides|auth)$", d, re.M) else rest).append(d)
open(f"{work}/in/policies/gw-0.yaml", "w").write("---\n".join(gw0))
for i in range(0, len(rest), 1000):
    open(f"{work}/in/estate/part-{i // 1000:04}.yaml", "w").write("---\n".join(rest[i:i + 1000]))
print(f"{len(docs)} documents, {len(gw0)} in policies/gw-0.yaml", file=sys.stderr)
EOF

echo "== compute --out-dir, from scratch (best of 2; COMPUTE=0 skips it)"
for _ in $(seq $((${COMPUTE:-1} * 2))); do
  rm -rf "$WORK/out-compute"
  /usr/bin/time -f "%e s, %M KiB peak RSS" "$BIN/policyctl" compute -q -f "$WORK/in" --out-dir "$WORK/out-compute" >/dev/null
done

EDITS=${EDITS:-3}
PAUSE=${PAUSE:-2}
echo "== watch: first cycle, then $EDITS edits of policies/gw-0.yaml, $PAUSE s apart"
rm -rf "$WORK/out"
mkfifo "$WORK/lines"
"$BIN/policyctl" watch -v -f "$WORK/in" --out-dir "$WORK/out" --cycles $((EDITS + 1)) <&- >"$WORK/lines" 2>"$WORK/stderr" &
PID=$!
exec 3<"$WORK/lines"
while IFS= read -r line <&3; do
  case "$line" in
    "cycle 1:"*) echo "$line"; break ;;
  esac
done
for _ in $(seq "$EDITS"); do
  sleep "$PAUSE"
  # The first limit of gw-0's defaults policy: 1000 more, written to a temporary file and renamed
  # over the policy file as editors do. T0: when the rename is done.
  T0=$(python3 - "$WORK/in/policies/gw-0.yaml" <<'EOF'
import os, re, sys, time
p = sys.argv[1]
s = open(p).read()
s = re.sub(r"limit: (\d+)", lambda m: f"limit: {int(m.group(1)) + 1000}", s, count=1)
open(p + ".tmp", "w").write(s)
os.replace(p + ".tmp", p)
print(time.time_ns())
EOF
)
  while IFS= read -r line <&3; do
    case "$line" in
      "cycle "*) T1=$(date +%s%N); echo "$line"; break ;;
      *) echo "  $line" ;;
    esac
  done
  awk -v a="$T0" -v b="$T1" 'BEGIN{printf "  edit -> cycle line on stdout: %.0f ms (includes the 50 ms debounce)\n", (b-a)/1e6}'
done
wait "$PID"
grep "stages:" "$WORK/stderr" || true
"$BIN/policyctl" compute -q -f "$WORK/in" --out-dir "$WORK/out" --check && echo "watch's out-dir equals a fresh compute --out-dir --check"
