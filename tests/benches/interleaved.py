#!/usr/bin/env python3
"""Interleaved runs of `BIN compute -f FILE` for two or more builds, as people run it: stdout and
stderr each into a pipe drained by `cat`. Each round runs every build once, in turn, so a change of
the machine's speed (a shared VM's swings by a third between hours) falls on every build alike.
Prints, per build, the minimum, first quartile and median wall time of the process (spawn to exit)
and the median CPU time (user + sys), in milliseconds.

    tests/benches/interleaved.py ROUNDS FILE BIN [BIN...]
    tests/benches/interleaved.py 60 issue1085.yaml /tmp/before/policyctl target/release/policyctl

Not for CI: a shared 2-core machine gives noisy numbers (see tests/benches/README.md).
"""
import os
import statistics
import subprocess
import sys
import time


def piped(argv, stderr_sink, devnull):
    """Run `argv` with stdout and stderr each into a pipe drained by `cat` (stdout's into
    `devnull`, stderr's into `stderr_sink`). Returns the wall time of the process, from its spawn
    to its exit (the readers' start and end are outside it), its CPU time (user + sys), both in
    milliseconds, and its exit code."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    readers = [
        subprocess.Popen(["cat"], stdin=r, stdout=sink)
        for r, sink in ((out_r, devnull), (err_r, stderr_sink))
    ]
    os.close(out_r)
    os.close(err_r)
    start = time.perf_counter()
    pid = os.posix_spawn(
        argv[0],
        argv,
        os.environ,
        file_actions=[(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)],
    )
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - start) * 1000
    os.close(out_w)
    os.close(err_w)
    for r in readers:
        r.wait()
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, os.waitstatus_to_exitcode(status)


def one(binary, path, devnull):
    wall, cpu, code = piped([binary, "compute", "-f", path], devnull, devnull)
    if code not in (0, 1):
        sys.exit(f"{binary} exited with {code}")
    return wall, cpu


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, path, binaries = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    walls = {b: [] for b in binaries}
    cpus = {b: [] for b in binaries}
    with open(os.devnull, "wb") as devnull:
        for _ in range(rounds):
            for b in binaries:
                wall, cpu = one(b, path, devnull)
                walls[b].append(wall)
                cpus[b].append(cpu)
    for b in binaries:
        w = sorted(walls[b])
        print(
            f"{b}: wall min {w[0]:.2f} p25 {w[len(w) // 4]:.2f} "
            f"median {statistics.median(w):.2f}  cpu median {statistics.median(cpus[b]):.2f}"
        )


if __name__ == "__main__":
    main()
