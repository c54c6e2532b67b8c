# Shared by the benchmark scripts (sourced; `best_of` needs $WORK, a scratch folder).

# Exit unless GNU time is at /usr/bin/time (for peak memory); $1 names the script.
needs_gnu_time() {
  if [[ ! -x /usr/bin/time ]]; then
    echo "$1 needs GNU time at /usr/bin/time (apt-get install time)" >&2
    exit 2
  fi
}

# $POLICYCTL if set, else this checkout's release build (built first).
release_policyctl() {
  if [[ -z "${POLICYCTL:-}" ]]; then
    cargo build --release --quiet --bin policyctl
    POLICYCTL=${CARGO_TARGET_DIR:-target}/release/policyctl
  fi
}

# best wall-clock seconds of N runs of a command (stdout discarded)
best_of() {
  local n=$1; shift
  if command -v hyperfine >/dev/null 2>&1; then
    hyperfine --style none --runs "$n" --export-json "$WORK/h.json" -- "$(printf '%q ' "$@") >/dev/null" >/dev/null 2>&1
    python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["min"])' "$WORK/h.json"
    return
  fi
  local best=""
  for _ in $(seq "$n"); do
    local t0 t1 t
    t0=$(date +%s%N)
    "$@" >/dev/null 2>/dev/null
    t1=$(date +%s%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t; fi
  done
  echo "$best"
}
