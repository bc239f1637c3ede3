#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find kernel reports in a guest's log: WARN, BUG, Oops, lockdep, KASAN,
kmemleak, hung task and RCU stalls.  Exit 1 and print each report with the
lines around it when there is one.

    logscan.py [--context N] LOG...
"""
import re
import sys

# (kind, pattern) in priority order: the first match names the report.
PATTERNS = [
    ("kasan", r"BUG: KASAN: "),
    ("kmemleak", r"unreferenced object 0x[0-9a-f]+|kmemleak: \d+ new suspected memory leaks"),
    ("lockdep", r"WARNING: (possible (circular|recursive) locking|inconsistent lock state|"
                r"suspicious RCU usage|bad unlock balance|held lock freed|lock held when returning|"
                r"possible irq lock inversion|chain_key collision)|"
                r"INFO: trying to register non-static key|DEBUG_LOCKS_WARN_ON|"
                r"BUG: (lock held when returning|MAX_LOCKDEP)"),
    ("hung", r"INFO: task \S+ blocked for more than \d+ seconds|"
             r"rcu: INFO: \S+ (detected stalls|self-detected stall)|"
             r"BUG: (soft lockup|workqueue lockup)|watchdog: BUG: soft lockup"),
    ("warn", r"WARNING: CPU: \d+ PID: \d+ at |^WARNING: "),
    ("bug", r"kernel BUG at |^BUG: |BUG: (unable to handle|kernel NULL pointer|sleeping function|"
            r"scheduling while atomic|Bad page|bad page)|list_(add|del) corruption"),
    ("oops", r"Oops: |general protection fault|Kernel panic - |UBSAN: |"
             r"Call Trace:"),
]
COMPILED = [(k, re.compile(p)) for k, p in PATTERNS]
STAMP = re.compile(r"^(<\d+>)?\[\s*\d+\.\d+\]\s*(\[\s*[TC]\d+\]\s*)?")


def scan(lines):
    """Return [(kind, index)] of the first line of each report."""
    found = []
    last = -100
    for i, raw in enumerate(lines):
        line = STAMP.sub("", raw.rstrip("\n"))
        for kind, pat in COMPILED:
            if pat.search(line):
                # One report spans many matching lines: count it once.
                if i - last > 40 or not found:
                    found.append((kind, i))
                elif kind != found[-1][0] and PATTERNS_RANK[kind] < PATTERNS_RANK[found[-1][0]]:
                    found[-1] = (kind, found[-1][1])
                last = i
                break
    return found


PATTERNS_RANK = {k: n for n, (k, _) in enumerate(PATTERNS)}


def main(argv):
    context = 30
    if len(argv) > 1 and argv[0] == "--context":
        context = int(argv[1])
        argv = argv[2:]
    total = 0
    for path in argv:
        try:
            with open(path, errors="replace") as f:
                lines = f.readlines()
        except FileNotFoundError:
            continue
        for kind, i in scan(lines):
            total += 1
            print(f"--- kernel report ({kind}) at {path}:{i + 1} ---")
            sys.stdout.writelines(lines[max(0, i - 5):i + context])
    if total:
        print(f"{total} kernel report(s) found")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
