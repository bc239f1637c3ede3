#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make fstests' report: per configuration, the tests run, passed, failed
and not run (from fstests' xunit result.xml), the failing tests, the time;
the not-run reasons by test.  Writes RUNDIR/fstests.md and prints it; with
--readme FILE, replaces the block between the fstests markers of FILE.

    report.py RUNDIR [--readme README.md]
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

CONFIGS = ["ext4", "fusebpf", "bpf-trivial", "daemon-backing", "overlay"]
TITLES = {
    "ext4": "ext4 alone",
    "fusebpf": "FUSE-BPF pure passthrough (root_dir=, no_daemon)",
    "bpf-trivial": "FUSE-BPF + fuse_trivial filter (every pre- and postfilter)",
    "daemon-backing": "daemon backing at LOOKUP (ptfuse -b)",
    "overlay": "overlayfs (fstests -overlay)",
}
BEGIN = "<!-- fstests:begin -->"
END = "<!-- fstests:end -->"
HERE = os.path.dirname(os.path.abspath(__file__))


def expected(config):
    """Tests of the configuration's expected-failure list: name -> reason"""
    out = {}
    path = os.path.join(HERE, "expected", config)
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"^(\S+)\s*#\s*(.*)$", line)
            if m and not line.startswith("#"):
                out[m.group(1)] = m.group(2)
    return out


def parse(cdir):
    """(passed, failed, notrun{name: reason}) of one configuration"""
    xml = os.path.join(cdir, "results", "result.xml")
    passed, failed, notrun = [], [], {}
    if not os.path.exists(xml):
        return None
    root = ET.parse(xml).getroot()
    for tc in root.iter("testcase"):
        name = tc.get("classname", "").replace("xfstests.", "")
        name = tc.get("name") if "/" in tc.get("name", "") else name
        if tc.find("skipped") is not None:
            notrun[name] = tc.find("skipped").get("message", "")
        elif tc.find("failure") is not None or tc.find("error") is not None:
            failed.append(name)
        else:
            passed.append(name)
    return passed, failed, notrun


def read(path, default=""):
    try:
        return open(path).read().strip()
    except OSError:
        return default


def main(argv):
    rundir = argv[0]
    readme = argv[argv.index("--readme") + 1] if "--readme" in argv else None
    base = os.path.join(rundir, "fstests")
    configs = [c for c in CONFIGS if os.path.isdir(os.path.join(base, c))]
    lines = []
    lines.append("| configuration | run | passed | failed | not run | time | failing tests |")
    lines.append("|---|---:|---:|---:|---:|---:|---|")
    notes = []
    for c in configs:
        cdir = os.path.join(base, c)
        secs = read(os.path.join(cdir, "seconds"), "?")
        t = "%d min" % round(int(secs) / 60) if secs.isdigit() else "stopped"
        r = parse(cdir)
        if r is None:
            lines.append("| %s | - | - | - | - | %s | no result.xml (check exit %s) |"
                         % (TITLES[c], t, read(os.path.join(cdir, "status"), "?")))
            continue
        passed, failed, notrun = r
        exp = expected(c)
        shown = ", ".join(f + (" (expected)" if f in exp else "") for f in sorted(failed))
        lines.append("| %s | %d | %d | %d | %d | %s | %s |" % (
            TITLES[c], len(passed) + len(failed), len(passed), len(failed),
            len(notrun), t, shown or "none"))
        unexpected = [f for f in failed if f not in exp]
        if unexpected:
            notes.append("%s: not in workbench/fstests/expected/%s: %s"
                         % (c, c, " ".join(sorted(unexpected))))
    group = read(os.path.join(rundir, "group"))
    tests = {"default": "the %d of `workbench/fstests/default`"
             % len(read(os.path.join(rundir, "args")).split()),
             "quick": "fstests' generic quick group"}.get(
                 group, "`%s`" % read(os.path.join(rundir, "args")))
    head = ["fstests %s on %s (%s), tests: %s; time: the configuration's"
            " whole check run in a 2-CPU TCG guest:" % (
                read(os.path.join(rundir, "fstests-commit"), "?"),
                read(os.path.join(rundir, "commit"), "?"),
                os.path.basename(os.path.realpath(rundir)), tests), ""]
    md = "\n".join(head + lines + ([""] + notes if notes else [])) + "\n"
    with open(os.path.join(rundir, "fstests.md"), "w") as f:
        f.write(md)
    # not-run reasons, for the run directory
    with open(os.path.join(rundir, "notrun.txt"), "w") as f:
        for c in configs:
            r = parse(os.path.join(base, c))
            for name, why in sorted((r[2] if r else {}).items()):
                f.write("%s\t%s\t%s\n" % (c, name, why))
    print(md, end="")
    if readme:
        text = open(readme).read()
        if BEGIN in text and END in text:
            pre, rest = text.split(BEGIN, 1)
            post = rest.split(END, 1)[1]
            open(readme, "w").write(pre + BEGIN + "\n" + md + END + post)
        else:
            print("report.py: no fstests markers in %s" % readme, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
