#!/usr/bin/env python3
"""The 10x scaling of issue 33, measured so that both sizes see the same machine: each round runs
every build on the small estate SMALL_RUNS times (default 10), then once on the large one, as
people run it (stdout and stderr into pipes drained by `cat`, as `interleaved.py` does). A round's
ratio is its large run over the median of its small runs; a shared VM's speed drifts between
minutes, and a ratio of two figures taken minutes apart moves with it (10.2-10.9 x for one build
in one hour). Prints, per build, the median small and large wall times over all rounds, the ratio
of those medians, and the median and spread of the rounds' ratios.

    tests/benches/scaling.py ROUNDS SMALL LARGE BIN [BIN...]
    tests/benches/scaling.py 9 tenants-10k.yaml tenants-100k.yaml target/release/policyctl

Not for CI: a shared 2-core machine gives noisy numbers (see tests/benches/README.md).
"""
import os
import statistics
import sys

# interleaved.py's runner, without leaving a __pycache__ folder in the repository.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import one  # noqa: E402


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    rounds, small, large, binaries = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    small_runs = int(os.environ.get("SMALL_RUNS", "10"))
    smalls = {b: [] for b in binaries}
    larges = {b: [] for b in binaries}
    ratios = {b: [] for b in binaries}
    with open(os.devnull, "wb") as devnull:
        for _ in range(rounds):
            for b in binaries:
                these = [one(b, small, devnull)[0] for _ in range(small_runs)]
                big = one(b, large, devnull)[0]
                smalls[b].extend(these)
                larges[b].append(big)
                ratios[b].append(big / statistics.median(these))
    for b in binaries:
        s, g, r = statistics.median(smalls[b]), statistics.median(larges[b]), sorted(ratios[b])
        print(
            f"{b}: small median {s:.2f} ms, large median {g:.2f} ms, ratio of medians {g / s:.2f}; "
            f"round ratios median {statistics.median(r):.2f} (min {r[0]:.2f}, max {r[-1]:.2f})"
        )


if __name__ == "__main__":
    main()
