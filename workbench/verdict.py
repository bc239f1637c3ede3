#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a test run: count the TAP results in RUNDIR/tap, scan the guest's
kernel log for reports, print what failed and end with the closing line
'N passed, N failed[, N skipped]'.  Exit 1 on any failure.

    verdict.py RUNDIR
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logscan  # noqa: E402

RESULT = re.compile(r"^(not )?ok (\d+) (.*?)(?: # (SKIP|TODO)\b.*)?$")
PLAN = re.compile(r"^1\.\.(\d+)")


def judge_tap(path, rc):
    """Return (passed, failed, skipped, failures[(name, output)])."""
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    passed = failed = skipped = 0
    failures = []
    plan = None
    start = 0
    for i, line in enumerate(lines):
        m = PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        if m.group(4) == "SKIP":
            skipped += 1
        elif m.group(1):
            failed += 1
            failures.append((m.group(3), lines[start:i + 1]))
        else:
            passed += 1
        start = i + 1
    name = os.path.basename(path)[:-4]
    seen = passed + failed + skipped
    if plan is not None and seen < plan:
        failed += plan - seen
        failures.append((f"{name}: {plan - seen} test(s) never reported (exit {rc})",
                         lines[start:]))
    elif rc not in (None, 0) and failed == 0:
        failed += 1
        failures.append((f"{name}: exit status {rc}", lines[start:]))
    return passed, failed, skipped, failures


def main(rundirs):
    passed = failed = skipped = 0
    for rundir in rundirs:
        p, f, s = judge_run(rundir)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{passed} passed, {failed} failed{tail}")
    return 1 if failed else 0


def judge_run(rundir):
    """One guest boot: its TAP results and kernel log, printed failures."""
    tapdir = os.path.join(rundir, "tap")
    passed = failed = skipped = 0
    failures = []
    taps = sorted(f for f in os.listdir(tapdir) if f.endswith(".tap")) if os.path.isdir(tapdir) else []
    expected = os.path.join(rundir, "expected")
    if os.path.exists(expected):
        for name in open(expected).read().split():
            if not os.path.exists(os.path.join(tapdir, name + ".rc")):
                failures.append((f"{name}: never ran", []))
                failed += 1
    if not taps:
        failures.append(("no test results", []))
        failed += 1
    for tap in taps:
        rcfile = os.path.join(tapdir, tap[:-4] + ".rc")
        rc = int(open(rcfile).read().strip() or 0) if os.path.exists(rcfile) else None
        p, f, s, fl = judge_tap(os.path.join(tapdir, tap), rc)
        passed, failed, skipped = passed + p, failed + f, skipped + s
        failures += fl

    for name, out in failures:
        print(f"=== FAILED: {name}")
        for line in out[-60:]:
            print(f"    {line}")

    dmesg = os.path.join(rundir, "dmesg.log")
    logs = [dmesg] if os.path.exists(dmesg) else [os.path.join(rundir, "console.log")]
    logs.append(os.path.join(rundir, "kmemleak.txt"))
    reports = 0
    for path in logs:
        if not os.path.exists(path):
            continue
        with open(path, errors="replace") as f:
            lines = f.readlines()
        for kind, i in logscan.scan(lines):
            reports += 1
            print(f"=== FAILED: kernel report ({kind}) at {path}:{i + 1}")
            sys.stdout.writelines("    " + line for line in lines[max(0, i - 5):i + 40])
    failed += reports
    return passed, failed, skipped


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
