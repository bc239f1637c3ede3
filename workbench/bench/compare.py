#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench BENCH_BASE=...: the base kernel's timings against the new
kernel's, both from the same run.

    compare.py BASE_RUNDIR NEW_RUNDIR BASE_NAME NEW_NAME > compare.md

Each RUNDIR/bench/ holds what guest-bench.sh left (report.py reads the
same files).  For every lower filesystem, configuration and workload both
boots measured: the two medians, the change of the new kernel's median
(negative is faster), and each side's spread ((max - min) / median of its
repetitions).  A change smaller than the larger spread is not a change.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import CONFIGS, WORKLOADS, collect  # noqa: E402


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    base_dir, new_dir, base_name, new_name = sys.argv[1:]
    base = collect(base_dir)["results"]
    new = collect(new_dir)["results"]
    if not base or not new:
        print("compare.py: no results in " + (new_dir if base else base_dir),
              file=sys.stderr)
        return 1
    print(f"Base kernel `{base_name}`, new kernel `{new_name}`, one "
          "`make bench` run; seconds per workload, medians.\n")
    print("| lower | configuration | workload | base | new | change | "
          "spread base / new |")
    print("|---|---|---|---|---|---|---|")
    seen = 0
    for fs in sorted(set(base) & set(new)):
        for cfg, num, label in CONFIGS:
            b, n = base[fs].get(cfg, {}), new[fs].get(cfg, {})
            for wl, _, _, _ in WORKLOADS:
                if wl not in b or wl not in n:
                    continue
                rb, rn = b[wl], n[wl]
                change = (rn["median"] - rb["median"]) / rb["median"] * 100
                noise = max(rb["spread"], rn["spread"]) * 100
                mark = "" if abs(change) > noise else " (noise)"
                print(f"| {fs} | ({num}) {label} | {wl} | "
                      f"{rb['median']:.4f} | {rn['median']:.4f} | "
                      f"{change:+.1f} %{mark} | "
                      f"{rb['spread'] * 100:.1f} / {rn['spread'] * 100:.1f} % |")
                seen += 1
    if not seen:
        print("compare.py: the two boots share no measurement", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
