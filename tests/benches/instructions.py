#!/usr/bin/env python3
"""Instructions executed by `BIN compute -f FILE` for one or more builds, counted by valgrind's
cachegrind (`--cache-sim=no`): nearly the same count from run to run whatever else the machine
does (within about half a percent: the pool's idle threads look for work a varying while), where
the wall time of a shared 2-core VM swings by a third between hours. A count is the work of
every thread; it says nothing of how the work is spread over the cores, of cache misses or of page
faults, so a change that moves work off a lone core shows in `interleaved.py`, not here.

    tests/benches/instructions.py FILE BIN [BIN...]
    tests/benches/instructions.py tenants-10k.yaml /tmp/before/policyctl target/release/policyctl

Prints per build the instructions (millions) and, with two or more, each build's change against
the first. Under valgrind the SHA-256 of the generated names runs the portable code instead of the
CPU's SHA instructions, and costs more than it does natively. About 40 times the native run time.
Needs valgrind.
"""
import os
import re
import subprocess
import sys
import tempfile


def count(binary, path):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cachegrind.out")
        run = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                f"--cachegrind-out-file={out}",
                binary,
                "compute",
                "-f",
                path,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    m = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if not m:
        sys.exit(f"{binary}: no count from valgrind:\n{run.stderr[-2000:]}")
    return int(m.group(1).replace(",", ""))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, binaries = sys.argv[1], sys.argv[2:]
    first = None
    for b in binaries:
        n = count(b, path)
        change = "" if first is None else f"  {100 * (n - first) / first:+.1f} %"
        first = n if first is None else first
        print(f"{b}: {n / 1e6:,.1f} M instructions{change}")


if __name__ == "__main__":
    main()
