#!/usr/bin/env bash
# Every output of every read-only command on every testdata estate, at both emulated releases, into one
# folder: stdout, stderr and the exit code of each run, one file each. Two folders made by two binaries
# are compared with `diff -r` (or `cmp`) to show that a refactor or an optimisation changed no byte.
#
#   tests/benches/outputs.sh target/release/policyctl /tmp/outputs-before
#   (change, rebuild)
#   tests/benches/outputs.sh target/release/policyctl /tmp/outputs-after
#   diff -r /tmp/outputs-before /tmp/outputs-after && echo identical
#
# Colour is off and the terminal width fixed, so that the bytes depend on the binary and the input only.
set -uo pipefail
cd "$(dirname "$0")/../.."

bin=${1:?usage: outputs.sh BINARY OUTDIR}
out=${2:?usage: outputs.sh BINARY OUTDIR}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
rm -rf "$out"
mkdir -p "$out"
export NO_COLOR=1 COLUMNS=100

# Every estate: each folder that holds manifests directly, and each loose manifest file of the folders of
# single-file fixtures. Sorted, so that the run order is the same everywhere.
estates() {
  find testdata -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) \
    -not -path 'testdata/tests/*' -not -path 'testdata/requests/*' -not -path 'testdata/cel/*' \
    -not -name '*.snap' -printf '%h\n' | sort -u
  find testdata/invalid testdata/hostile -maxdepth 1 -type f \( -name '*.yaml' -o -name '*.json' \) | sort
}

run() {
  local name=$1; shift
  "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.code"
}

n=0
while read -r estate; do
  key=${estate//\//_}
  for v in 1.4 1.5; do
    run "$key.$v.compute" compute --kuadrant-version "$v" -f "$estate"
    run "$key.$v.compute-json" compute --kuadrant-version "$v" -o json -f "$estate"
    run "$key.$v.status" status --kuadrant-version "$v" -f "$estate"
    run "$key.$v.status-yaml" status --kuadrant-version "$v" -o yaml -f "$estate"
    run "$key.$v.lint" lint --kuadrant-version "$v" -f "$estate"
    run "$key.$v.lint-json" lint --kuadrant-version "$v" -o json -f "$estate"
    run "$key.$v.lint-sarif" lint --kuadrant-version "$v" -o sarif -f "$estate"
    run "$key.$v.graph" graph --kuadrant-version "$v" -f "$estate"
    run "$key.$v.graph-json" graph --kuadrant-version "$v" -o json -f "$estate"
    run "$key.$v.audit" audit --kuadrant-version "$v" -f "$estate"
    run "$key.$v.audit-json" audit --kuadrant-version "$v" -o json --require auth,ratelimit -f "$estate"
    n=$((n + 11))
  done
done < <(estates)

run toystore.test test -f testdata/examples/ testdata/tests/toystore/
run guides.test test -f testdata/guides/simple-rl-simulate testdata/tests/guides/simple-rl.yaml
# Each guide estate with its cases (testdata/tests/guides/<estate>.yaml).
for cases in testdata/tests/guides/*.yaml; do
  estate=$(basename "$cases" .yaml)
  # simple-rl.yaml is for simple-rl-simulate (run above).
  [[ -d testdata/guides/$estate && $estate != simple-rl ]] || continue
  run "guides.$estate.test" test -f "testdata/guides/$estate" "$cases"
  n=$((n + 1))
done
run toystore.simulate simulate -f testdata/examples/ --identity '{"username":"alice"}' \
  http://api.toystore.example.com/toys
run authenticated-rl.requests simulate -f testdata/guides/authenticated-rl \
  --requests testdata/requests/authenticated-rl.yaml
run authenticated-rl.requests-json simulate -o json -f testdata/guides/authenticated-rl \
  --requests testdata/requests/authenticated-rl.yaml
n=$((n + 5))
echo "$n runs in $out"
