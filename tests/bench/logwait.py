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

Exit 0 on a match, 1 after TIMEOUT seconds (60) without one, however
much else the log gets meanwhile; 2 on a usage error, a log that cannot
be read or a signal that cannot be sent.
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
    log, sig = argv[1], argv[4]
    try:
        pattern = re.compile(argv[2])
        pid = int(argv[3])
        timeout = float(argv[5]) if len(argv) == 6 else 60.0
        signum = signal.Signals[sig if sig.startswith("SIG")
                                else "SIG" + sig]
    except (re.error, ValueError, KeyError) as e:
        sys.stderr.write("logwait: bad argument: %s\n" % e)
        return 2
    try:
        f = open(log, "rb")
    except OSError as e:
        sys.stderr.write("logwait: %s\n" % e)
        return 2
    with f:
        f.seek(0, os.SEEK_END)
        try:
            os.kill(pid, signum)
        except OSError as e:
            sys.stderr.write("logwait: signal to %d: %s\n" % (pid, e))
            return 2
        end = time.monotonic() + timeout
        rest = b""
        while time.monotonic() < end:
            chunk = f.read()
            if not chunk:
                time.sleep(0.05)
                continue
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()   # an unfinished line, kept
            for line in lines:
                text = line.decode("utf-8", "replace")
                if pattern.search(text):
                    print(text)
                    return 0
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
