#!/usr/bin/python3
"""logwait.py LOG PATTERN PID SIGNAL [TIMEOUT]: send SIGNAL to PID, then
wait for a line of LOG written after it that matches PATTERN (a regular
expression); print that line.

The bench's waits used to be a shell loop, a grep and a sleep forked
every 100 ms, on the CPUs the measured gateway and ibsim run on: pinned,
a third of a sweep's time (tests/bench/README.md, stop 52). The floor
it is compared with is waited for by the shell's wait(), which costs
nothing. This process reads only what was added since its last look,
20 times a second.

Exit 0 on a match, 1 after TIMEOUT seconds (60) without one, 2 on a
usage error.
"""
import os
import re
import signal
import sys
import time


def main(argv):
    if len(argv) not in (5, 6):
        sys.stderr.write(__doc__)
        return 2
    log, pattern, pid, sig = argv[1], re.compile(argv[2]), int(argv[3]), argv[4]
    timeout = float(argv[5]) if len(argv) == 6 else 60.0
    signum = getattr(signal, sig if sig.startswith("SIG") else "SIG" + sig)
    with open(log, "rb") as f:
        f.seek(0, os.SEEK_END)
        os.kill(pid, signum)
        end = time.monotonic() + timeout
        rest = b""
        while True:
            chunk = f.read()
            if chunk:
                lines = (rest + chunk).split(b"\n")
                rest = lines.pop()   # an unfinished line, kept
                for line in lines:
                    text = line.decode("utf-8", "replace")
                    if pattern.search(text):
                        print(text)
                        return 0
            elif time.monotonic() >= end:
                return 1
            else:
                time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
