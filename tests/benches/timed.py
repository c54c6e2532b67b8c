#!/usr/bin/env python3
"""Time a command as people run it, for `default.sh`: RUNS runs, each with stdout and stderr into
pipes drained by `cat` (`interleaved.py`'s runner), timed from the process's spawn to its exit.
Prints the best and the median wall time in seconds; the last run's stderr goes to STDERR_FILE and
its exit code to RC_FILE.

    tests/benches/timed.py RUNS STDERR_FILE RC_FILE COMMAND [ARG...]

A shell that reads the clock around a pipeline (`date` before and after) times its own forks and
execs too: about 3.4 ms on the project's VM, a sixth of kuadrant-operator #1085's run.
"""
import os
import statistics
import sys

# interleaved.py's runner, without leaving a __pycache__ folder in the repository.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import piped  # noqa: E402


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    runs, stderr_file, rc_file, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    walls = []
    code = 0
    with open(os.devnull, "wb") as devnull:
        for _ in range(runs):
            with open(stderr_file, "wb") as err:
                wall, _, code = piped(argv, err, devnull)
            walls.append(wall / 1000)
    with open(rc_file, "w") as rc:
        rc.write(f"{code}\n")
    print(f"{min(walls):.3f} {statistics.median(walls):.3f}")


if __name__ == "__main__":
    main()
