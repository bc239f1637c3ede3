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
    elif plan is None and seen == 0:
        failed += 1
        failures.append((f"{name}: no TAP output (exit {rc})", lines[start:]))
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


KSFT_HEAD = re.compile(r"^# selftests: (\S+): (\S+)$")
KSFT_RESULT = re.compile(r"^(not )?ok \d+ selftests: (\S+): (\S+)(.*)$")


def split_kselftest(rundir):
    """Write tap/NAME.tap and tap/NAME.rc for each program in the output of
    kselftest's runner (RUNDIR/kselftest.tap), in which a program's own TAP
    lines are nested behind '# '.  A program the runner never finished (the
    guest died in it) gets what it printed and status 125."""
    path = os.path.join(rundir, "kselftest.tap")
    if not os.path.exists(path):
        return
    tapdir = os.path.join(rundir, "tap")
    os.makedirs(tapdir, exist_ok=True)

    def write(name, lines, rc):
        with open(os.path.join(tapdir, name + ".tap"), "w") as f:
            f.writelines(line + "\n" for line in lines)
        with open(os.path.join(tapdir, name + ".rc"), "w") as f:
            f.write(f"{rc}\n")

    name, body = None, []
    with open(path, errors="replace") as f:
        for line in f.read().splitlines():
            m = KSFT_HEAD.match(line)
            if m:
                name, body = m.group(2), []
                continue
            m = KSFT_RESULT.match(line)
            if m and m.group(3) == name:
                extra = m.group(4)
                if not m.group(1):
                    rc = 4 if "# SKIP" in extra else 0
                elif "TIMEOUT" in extra:
                    rc = 124
                else:
                    e = re.search(r"exit=(\d+)", extra)
                    rc = int(e.group(1)) if e else 1
                write(name, body, rc)
                name = None
                continue
            if name is not None:
                body.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
    if name is not None:
        write(name, body + [f"# {name}: the runner never finished it"], 125)


def judge_run(rundir):
    """One guest boot: its TAP results and kernel log, printed failures."""
    split_kselftest(rundir)
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
