#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make fstests' report: per configuration, the tests run, passed, failed
and not run (from fstests' xunit result.xml), the failing tests, the time;
the not-run reasons by test.  Writes RUNDIR/fstests.md and prints it; with
--readme FILE, replaces the block between the fstests markers of FILE.

    report.py RUNDIR [RUNDIR...] [--readme README.md]

With several run directories (one configuration each, say, run one after
the other), each configuration's row comes from the last directory given
that has a result of it, and each row names its run directory and the
tree it ran; the table is printed (and put in the README) only: each run
directory keeps its own fstests.md and notrun.txt.
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


def config_dirs(rundirs):
    """configuration -> the run directory its row comes from"""
    out = {}
    for rundir in rundirs:
        for c in CONFIGS:
            cdir = os.path.join(rundir, "fstests", c)
            if os.path.isdir(cdir) and (c not in out or parse(cdir) is not None):
                out[c] = rundir
    return out


def run_name(rundir):
    return os.path.basename(os.path.realpath(rundir))


def tests_of(rundir):
    group = read(os.path.join(rundir, "group"))
    args = read(os.path.join(rundir, "args"))
    return {"default": "the %d of `workbench/fstests/default`" % len(args.split()),
            "quick": "fstests' generic quick group"}.get(group, "`%s`" % args)


def main(argv):
    readme = None
    if "--readme" in argv:
        i = argv.index("--readme")
        readme = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    rundirs = argv
    where = config_dirs(rundirs)
    configs = [c for c in CONFIGS if c in where]
    several = len(set(where.values())) > 1
    lines = []
    if several:
        lines.append("| configuration | run | passed | failed | not run | time | failing tests | run directory (tree; tests) |")
        lines.append("|---|---:|---:|---:|---:|---:|---|---|")
    else:
        lines.append("| configuration | run | passed | failed | not run | time | failing tests |")
        lines.append("|---|---:|---:|---:|---:|---:|---|")
    notes = []
    for c in configs:
        cdir = os.path.join(where[c], "fstests", c)
        secs = read(os.path.join(cdir, "seconds"), "?")
        t = "%d min" % round(int(secs) / 60) if secs.isdigit() else "stopped"
        src = (" %s (%s; %s) |" % (run_name(where[c]), read(os.path.join(where[c], "commit"), "?"),
                                    tests_of(where[c])) if several else "")
        r = parse(cdir)
        if r is None:
            lines.append("| %s | - | - | - | - | %s | no result.xml (check exit %s) |%s"
                         % (TITLES[c], t, read(os.path.join(cdir, "status"), "?"), src))
            continue
        passed, failed, notrun = r
        exp = expected(c)
        shown = ", ".join(f + (" (expected)" if f in exp else "") for f in sorted(failed))
        lines.append("| %s | %d | %d | %d | %d | %s | %s |%s" % (
            TITLES[c], len(passed) + len(failed), len(passed), len(failed),
            len(notrun), t, shown or "none", src))
        unexpected = [f for f in failed if f not in exp]
        if unexpected:
            notes.append("%s: not in workbench/fstests/expected/%s: %s"
                         % (c, c, " ".join(sorted(unexpected))))
    last = rundirs[-1]
    fst = sorted({read(os.path.join(where[c], "fstests-commit"), "?") for c in configs})
    tests = [tests_of(last)]
    if several:
        head = ["fstests %s, rows from %d runs of make fstests (each row's run"
                " directory, tree and tests in its last column); time: the"
                " configuration's whole check run in a 2-CPU TCG guest:" % (
                    " and ".join(fst), len(set(where.values()))), ""]
    else:
        head = ["fstests %s on %s (%s), tests: %s; time: the configuration's"
                " whole check run in a 2-CPU TCG guest:" % (
                    read(os.path.join(last, "fstests-commit"), "?"),
                    read(os.path.join(last, "commit"), "?"),
                    run_name(last), tests[0]), ""]
    md = "\n".join(head + lines + ([""] + notes if notes else [])) + "\n"
    if len(rundirs) == 1:
        with open(os.path.join(last, "fstests.md"), "w") as f:
            f.write(md)
        # not-run reasons, for the run directory
        with open(os.path.join(last, "notrun.txt"), "w") as f:
            for c in configs:
                r = parse(os.path.join(where[c], "fstests", c))
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
