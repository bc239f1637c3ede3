#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: turn a run's measurements into a table, a JSON file and an
SVG chart (drawn here: no matplotlib needed).

    report.py RUNDIR [--out DIR] [--readme README.md]
    report.py RESULTS.json > CHART.svg

RUNDIR/bench/ holds what workbench/bench/guest-bench.sh left.  Writes
RUNDIR/bench.{json,md,svg}; --out copies them to DIR/latest.*; --readme
replaces the block between "<!-- bench:begin -->" and "<!-- bench:end -->"
with the table.  Given a JSON file it writes, it draws the chart again.
"""
import json
import os
import re
import shutil
import statistics
import sys
import time
from html import escape

CONFIGS = [  # (key, issue number, label)
    ("native", "1", "native"),
    ("fusebpf", "2", "FUSE-BPF passthrough"),
    ("bpf-trivial", "3a", "FUSE-BPF + trivial filter"),
    ("bpf-hide", "3b", "FUSE-BPF + hiding filter"),
    ("daemon-backing", "4", "FUSE-BPF, daemon backs at lookup"),
    ("fuse", "5", "classic FUSE daemon"),
    ("fuse-pt", "6", "6.12 FUSE passthrough"),
    ("overlay", "7", "overlayfs"),
]
LABEL = {k: f"({n}) {l}" for k, n, l in CONFIGS}
WORKLOADS = [  # (key, label, what one op is, metadata?)
    ("stat-warm", "stat, warm dcache", "lstat", True),
    ("stat-cold", "stat, cold dcache", "lstat", True),
    ("open-close", "open+close", "open+close", True),
    ("readdir", "readdir of the whole directory", "entry", True),
    ("create-unlink", "create+unlink small files", "create or unlink", True),
    ("seq-read", "sequential read 1 MiB", "MiB", False),
    ("seq-write", "sequential write 1 MiB", "MiB", False),
    ("rand-read", "random read 4 KiB", "4 KiB read", False),
    ("untar", "untar source tarball", "file", True),
    ("walk", "find+stat walk", "entry", True),
]
DATA = {"seq-read", "seq-write", "rand-read"}
# Measured on the wall clock when the metadata workloads run under icount
WALL = DATA | {"untar"}


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip()]


def read_meta(path):
    meta = {}
    if os.path.exists(path):
        for line in open(path):
            k, sep, v = line.rstrip("\n").partition("=")
            if sep:
                meta[k] = v
    return meta


def collect(rundir):
    b = os.path.join(rundir, "bench")
    res = {}
    for fs, cfg, wl, rep, sec, ops, nbytes in read_tsv(os.path.join(b, "results.tsv")):
        if float(sec) <= 0:
            continue
        r = res.setdefault(fs, {}).setdefault(cfg, {}).setdefault(
            wl, {"samples": [], "ops": int(ops), "bytes": int(nbytes)})
        r["samples"].append(float(sec))
    for fs in res.values():
        for cfg in fs.values():
            for r in cfg.values():
                s = r["samples"]
                r["min"] = min(s)
                r["median"] = statistics.median(s)
                # How far the repetitions are apart, relative to the median
                r["spread"] = (max(s) - min(s)) / r["median"] if r["median"] else 0
    for fs, cfgs in res.items():
        nat = cfgs.get("native", {})
        for cfg in cfgs.values():
            for wl, r in cfg.items():
                n = nat.get(wl)
                if n and r["median"] > 0:
                    # Speed relative to native: > 1 is faster.
                    r["ratio_median"] = n["median"] / r["median"]
    unavailable = {c: why for c, why in read_tsv(os.path.join(b, "unavailable.tsv"))}
    allocs = [{"config": c, "workload": w, "ops": int(o), "allocations": int(n),
               "per_op": int(n) / max(int(o), 1)}
              for c, w, o, n in read_tsv(os.path.join(b, "allocs.tsv"))]
    # Call sites of the allocations, from the hist triggers' output.
    sites = {}
    adir = os.path.join(b, "allocs")
    if os.path.isdir(adir):
        for f in sorted(os.listdir(adir)):
            m = re.match(r"(native|fusebpf|bpf-trivial|overlay)-(.*)-(kmalloc|kmem_cache_alloc)\.hist$", f)
            if not m:
                continue
            d = sites.setdefault(m.group(2), {}).setdefault(m.group(1), {})
            for line in open(os.path.join(adir, f)):
                mm = re.match(r"\{ call_site: \[[0-9a-f]+\] (\S+)\s*\} hitcount:\s*(\d+)", line)
                if mm:
                    key = f"{mm.group(1)} ({m.group(3)})"
                    d[key] = d.get(key, 0) + int(mm.group(2))
    for a in allocs:
        d = sites.get(a["workload"], {})
        nat, bpf = d.get("native", {}), d.get(a["config"], {})
        if a["config"] in ("fusebpf", "bpf-trivial"):
            ops = max(a["ops"], 1)
            a["extra_sites"] = {k: round((bpf.get(k, 0) - nat.get(k, 0)) / ops, 3)
                                for k in sorted(set(nat) | set(bpf))
                                if abs(bpf.get(k, 0) - nat.get(k, 0)) / ops >= 0.01}
    meta = read_meta(os.path.join(b, "meta.env"))
    for f in ("accel", "seconds", "commit"):
        p = os.path.join(rundir, f)
        if os.path.exists(p):
            meta["vm_" + f] = open(p).read().strip()
    meta["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(b)))
    profiles = {}
    pdir = os.path.join(b, "profile")
    if os.path.isdir(pdir):
        for f in sorted(os.listdir(pdir)):
            if f.endswith(".txt"):
                profiles[f[:-4]] = open(os.path.join(pdir, f)).read()
    graphs = {}
    if os.path.isdir(pdir):
        for f in sorted(os.listdir(pdir)):
            if f.endswith(".graph"):
                graphs[f[:-6]] = parse_graph(os.path.join(pdir, f))
    return {"meta": meta, "results": res, "unavailable": unavailable,
            "allocs": allocs, "profiles": profiles, "graphs": graphs}


GRAPH_LINE = re.compile(r"^\s*\d+\)\s+(?:[+!#*@$]\s*)?([\d.]+) us\s+\|(\s*)(.*)$")


def parse_graph(path):
    """function_graph output -> {function: [depth, us per call of the top
    function, calls]}, the top function being the syscall at depth 0."""
    tot, calls, depth = {}, {}, {}
    top, ntop = None, 0
    for line in open(path, errors="replace"):
        m = GRAPH_LINE.match(line)
        if not m:
            continue
        us, indent, what = float(m.group(1)), len(m.group(2)), m.group(3).strip()
        mm = re.match(r"\} /\* (\S+) \*/", what) or re.match(r"([\w.]+)\(\);", what)
        if not mm:
            continue
        name = mm.group(1)
        d = max(indent - 2, 0) // 2
        tot[name] = tot.get(name, 0.0) + us
        calls[name] = calls.get(name, 0) + 1
        depth[name] = min(depth.get(name, d), d)
        if d == 0:
            top = top or name
            if name == top:
                ntop += 1
    n = max(ntop, 1)
    return {"top": top, "calls_of_top": ntop,
            "functions": {k: [depth[k], round(tot[k] / n, 3), calls[k]]
                          for k in sorted(tot, key=lambda k: -tot[k])}}


# Goals of FUSE-BPF pure passthrough against native (issue 29), by workload
NATIVE_GOAL = {"stat-warm": 0.80, "walk": 0.80, "open-close": 0.70}


def targets(data):
    """The issue's targets, one line each: (fs, what, workload, value, goal, ok)."""
    out = []
    for fs, cfgs in data["results"].items():
        bpf = cfgs.get("fusebpf", {})
        for wl, _, _, meta in WORKLOADS:
            r = bpf.get(wl)
            if not r:
                continue
            if "ratio_median" in r and wl in NATIVE_GOAL:
                out.append((fs, "FUSE-BPF / native", wl, r["ratio_median"],
                            NATIVE_GOAL[wl]))
            f = cfgs.get("fuse", {}).get(wl)
            if meta and f:
                out.append((fs, "FUSE-BPF vs classic FUSE (x faster)", wl,
                            f["median"] / r["median"], 5.0))
            o = cfgs.get("overlay", {}).get(wl)
            if o:
                out.append((fs, "FUSE-BPF vs overlayfs", wl, o["median"] / r["median"],
                            1.10 if wl == "open-close" else 1.0))
            p = cfgs.get("fuse-pt", {}).get(wl)
            if wl in DATA and p:
                out.append((fs, "FUSE-BPF vs 6.12 passthrough", wl,
                            p["median"] / r["median"], 1.0))
            # 3a, 3b and 4 against pure passthrough of the same run
            for cfg, goal in (("bpf-trivial", 0.95), ("bpf-hide", 0.90),
                              ("daemon-backing", 0.95)):
                t = cfgs.get(cfg, {}).get(wl)
                if t:
                    out.append((fs, f"{cfg} / FUSE-BPF", wl,
                                r["median"] / t["median"], goal))
    return [{"fs": fs, "target": t, "workload": wl, "value": round(v, 3), "goal": g,
             "met": v >= g} for fs, t, wl, v, g in out]


def fmt_abs(r, wl):
    s = r["median"]
    if wl in ("seq-read", "seq-write"):
        rate = f"{r['bytes'] / 2**20 / s:.0f} MiB/s"
    else:
        rate = f"{r['ops'] / s / 1000:.1f}k/s" if r["ops"] / s >= 1000 else f"{r['ops'] / s:.0f}/s"
    return f"{s:.3f} s ({rate})"


def markdown(data):
    m = data["meta"]
    res = data["results"]
    lines = []
    accel = m.get("vm_accel", "?").upper()
    icount = m.get("clock") == "icount"
    if icount:
        lines.append(f"Run of {m.get('date', '?')} (checkout {m.get('vm_commit', '?')}): "
                     f"guest kernel {m.get('kernel', '?')}. **Metadata workloads under "
                     "QEMU icount** (`-icount shift=0,sleep=off`, 1 vCPU: the guest's "
                     "clock counts executed instructions, so repetitions and boots agree "
                     f"to about 1 %), guest time {m.get('vm_seconds', '?')} s; "
                     "**data workloads and untar (marked wall) on the wall clock** of "
                     f"multi-threaded TCG with {m.get('wall_cpus', '?')} vCPUs "
                     "(icount models no memory bandwidth or caches), guest time "
                     f"{m.get('wall_seconds', '?')} s.  Emulated CPU: absolute figures "
                     "are far below a real machine's; read the ratios.")
    else:
        lines.append(f"Run of {m.get('date', '?')} (checkout {m.get('vm_commit', '?')}): "
                     f"guest kernel {m.get('kernel', '?')}, "
                     f"{m.get('cpus', '?')} vCPUs, **{accel}**"
                     + (" (emulated CPU: absolute figures are far below a real machine's; "
                        "read the ratios)" if accel == "TCG" else "")
                     + f", guest time {m.get('vm_seconds', '?')} s.")
    lines.append(f"Sizes: {m.get('nfiles', '?')} files for stat and open+close "
                 f"({m.get('passes', '1')} passes when warm), readdir "
                 f"({m.get('readdir_passes', '?')} passes) and create+unlink "
                 f"({m.get('small', '?')} B each); {m.get('data_mb', '?')} MiB sequential, "
                 f"{m.get('rand_mb', '?')} MiB of random 4 KiB reads (fio, psync, buffered); "
                 f"tarball of {m.get('tarball_files', '?')} entries, "
                 f"{int(m.get('tarball_bytes', 0)) / 2**20:.0f} MiB; "
                 f"{m.get('reps', '?')} repetitions"
                 + (f" ({m['wall_reps']} on the wall clock)" if icount and "wall_reps" in m else "")
                 + ", median shown.")
    lines.append("")
    present = [k for k, _, _ in CONFIGS if any(k in c for c in res.values())]
    for fs in res:
        cfgs = res[fs]
        lines.append(f"**{fs}** (seconds for the whole workload, median; "
                     "in brackets the speed relative to native, higher is better; "
                     "after it, ± the spread of the repetitions: (max − min) / median)")
        lines.append("")
        lines.append("| workload | " + " | ".join(LABEL[k] for k in present) + " |")
        lines.append("|---|" + "---|" * len(present))
        for wl, label, _, _ in WORKLOADS:
            row = [label + (" (wall)" if icount and wl in WALL else "")]
            for k in present:
                r = cfgs.get(k, {}).get(wl)
                if not r:
                    row.append("–")
                elif k == "native":
                    row.append(fmt_abs(r, wl) + f" ±{100 * r['spread']:.1f}%")
                elif "ratio_median" not in r:
                    row.append(f"{r['median']:.3f} s ±{100 * r['spread']:.1f}%")
                else:
                    row.append(f"{r['median']:.3f} s **[{r['ratio_median']:.2f}]** "
                               f"±{100 * r['spread']:.1f}%")
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        if fs == "tmpfs" and "stat-cold" in cfgs.get("native", {}):
            lines.append("On tmpfs, `drop_caches` cannot drop the lower's own dentries: "
                         "native's cold stat is a warm one, while the stacked "
                         "configurations rebuild theirs.")
            lines.append("")
    if data["unavailable"]:
        lines.append("Not available yet: " + "; ".join(
            f"{LABEL.get(c, c)}: {why}" for c, why in data["unavailable"].items()) + ".")
        lines.append("")
    t = data["targets"]
    if t:
        lines.append("Targets (from the issue), FUSE-BPF pure passthrough:")
        lines.append("")
        lines.append("| lower | target | goal | met | missed (value) |")
        lines.append("|---|---|---|---|---|")
        groups = {}
        for x in t:
            groups.setdefault((x["fs"], x["target"], x["goal"]), []).append(x)
        for (fs, name, goal), xs in groups.items():
            met = [x for x in xs if x["met"]]
            miss = [x for x in xs if not x["met"]]
            lines.append(f"| {fs} | {name} | ≥ {goal:g} | {len(met)}/{len(xs)} | "
                         + (", ".join(f"{x['workload']} {x['value']:.2f}" for x in miss) or "–")
                         + " |")
        lines.append("")
    if data["allocs"]:
        lines.append("Heap allocations per operation (kmem:kmalloc + kmem:kmem_cache_alloc "
                      "events of the benchmark process, tmpfs lower):")
        lines.append("")
        by = {}
        for a in data["allocs"]:
            by.setdefault(a["workload"], {})[a["config"]] = a
        lines.append("| operation | native | FUSE-BPF | overlayfs | FUSE-BPF extra per op | where (per op) |")
        lines.append("|---|---|---|---|---|---|")
        for wl, d in by.items():
            n, f, o = d.get("native"), d.get("fusebpf"), d.get("overlay")
            if n and f:
                extra = sorted(f.get("extra_sites", {}).items(), key=lambda kv: -abs(kv[1]))
                lines.append(f"| {wl} | {n['per_op']:.2f} | {f['per_op']:.2f} | "
                             + (f"{o['per_op']:.2f}" if o else "–") + " | "
                             f"{f['per_op'] - n['per_op']:+.2f} | "
                             + (", ".join(f"`{k}` {v:+.2f}" for k, v in extra[:4]) or "–")
                             + " |")
        lines.append("")
    return "\n".join(lines)


def svg(data):
    res = data["results"]
    present = [k for k, _, _ in CONFIGS if k != "native" and any(k in c for c in res.values())]
    colors = {"fusebpf": "#1f77b4", "fuse": "#d62728", "fuse-pt": "#ff7f0e",
              "overlay": "#2ca02c", "bpf-trivial": "#9467bd", "bpf-hide": "#8c564b",
              "daemon-backing": "#e377c2"}
    fss = list(res)
    W, panel_h, top, left = 980, 300, 70, 60
    H = top + len(fss) * (panel_h + 60) + 14 * len(data["unavailable"]) + 10
    lo, hi = 0.01, 2.0
    import math

    def y_of(v, y0):
        v = min(max(v, lo), hi)
        return y0 + panel_h * (math.log10(hi) - math.log10(v)) / (math.log10(hi) - math.log10(lo))

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'font-family="sans-serif" font-size="11">',
         f'<rect width="{W}" height="{H}" fill="white"/>']
    m = data["meta"]
    o.append(f'<text x="{left}" y="22" font-size="15" font-weight="bold">make bench: speed '
             'relative to the lower filesystem used directly (1 = native, log scale)</text>')
    o.append(f'<text x="{left}" y="40">{escape(m.get("date", ""))}, kernel '
             f'{escape(m.get("kernel", ""))}, {escape(m.get("vm_accel", "?").upper())} with '
             f'{escape(m.get("cpus", "?"))} vCPUs, median of {escape(m.get("reps", "?"))} runs; '
             'dashed line: 0.95 (the target of FUSE-BPF passthrough); '
             'an empty slot: not run</text>')
    for n, (c, why) in enumerate(data["unavailable"].items()):
        o.append(f'<text x="{left}" y="{H - 14 * (len(data["unavailable"]) - n)}">'
                 f'Not available yet: {escape(LABEL.get(c, c))}: {escape(why)}</text>')
    # legend
    x = left
    for k in present:
        o.append(f'<rect x="{x}" y="50" width="10" height="10" fill="{colors.get(k, "#777")}"/>')
        o.append(f'<text x="{x + 14}" y="59">{escape(LABEL[k])}</text>')
        x += 16 + 6.2 * len(LABEL[k]) + 14
    nw = len(WORKLOADS)
    gw = (W - left - 20) / nw
    bw = min(14, (gw - 10) / max(len(present), 1))
    for i, fs in enumerate(fss):
        y0 = top + 20 + i * (panel_h + 60)
        o.append(f'<text x="{left}" y="{y0 - 6}" font-size="13" font-weight="bold">'
                 f'lower: {escape(fs)}</text>')
        for v in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2):
            y = y_of(v, y0)
            o.append(f'<line x1="{left}" x2="{W - 20}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="{"#444" if v == 1 else "#ddd"}"/>')
            o.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
        y = y_of(0.95, y0)
        o.append(f'<line x1="{left}" x2="{W - 20}" y1="{y:.1f}" y2="{y:.1f}" '
                 'stroke="#1f77b4" stroke-dasharray="4 3"/>')
        for j, (wl, label, _, _) in enumerate(WORKLOADS):
            gx = left + j * gw + (gw - bw * len(present)) / 2
            for n, k in enumerate(present):
                r = res[fs].get(k, {}).get(wl)
                bx = gx + n * bw
                if not r or "ratio_median" not in r:
                    continue
                v = r["ratio_median"]
                yt = y_of(v, y0)
                yb = y_of(lo, y0)
                o.append(f'<rect x="{bx:.1f}" y="{yt:.1f}" width="{bw - 1:.1f}" '
                         f'height="{yb - yt:.1f}" fill="{colors.get(k, "#777")}">'
                         f'<title>{escape(fs)} {escape(LABEL[k])} {escape(label)}: '
                         f'{v:.3f} x native ({r["median"]:.3f} s)</title></rect>')
                if k == "fusebpf":
                    o.append(f'<text x="{bx + bw / 2:.1f}" y="{yt - 3:.1f}" font-size="9" '
                             f'text-anchor="middle">{v:.2f}</text>')
            o.append(f'<text x="{left + j * gw + gw / 2:.1f}" y="{y0 + panel_h + 14}" '
                     f'text-anchor="middle" font-size="10">{escape(wl)}</text>')
    o.append("</svg>")
    return "\n".join(o)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    if args[0].endswith(".json"):
        # Redraw the chart from a results file: report.py latest.json > chart.svg
        with open(args[0]) as f:
            print(svg(json.load(f)))
        return 0
    rundir = args[0]
    out = readme = None
    if "--out" in args:
        out = args[args.index("--out") + 1]
    if "--readme" in args:
        readme = args[args.index("--readme") + 1]
    data = collect(rundir)
    if not data["results"]:
        print("report.py: no results in " + rundir, file=sys.stderr)
        return 1
    data["targets"] = targets(data)
    md = markdown(data)
    js = json.dumps(data, indent=1) + "\n"
    # The chart is drawn from the JSON, as report.py RESULTS.json draws it.
    files = {"json": js, "md": md + "\n", "svg": svg(json.loads(js)) + "\n"}
    for ext, text in files.items():
        with open(os.path.join(rundir, "bench." + ext), "w") as f:
            f.write(text)
    if out:
        os.makedirs(out, exist_ok=True)
        for ext in files:
            shutil.copy(os.path.join(rundir, "bench." + ext), os.path.join(out, "latest." + ext))
    if readme and os.path.exists(readme):
        text = open(readme).read()
        block = md + "\n"
        if out:
            chart = os.path.relpath(os.path.join(out, "latest.svg"),
                                    os.path.dirname(os.path.abspath(readme)))
            block = f"![make bench: speed relative to native]({chart})\n\n" + block
        new = re.sub(r"(<!-- bench:begin -->\n).*?(<!-- bench:end -->)",
                     lambda mm: mm.group(1) + block + mm.group(2), text, flags=re.S)
        if new != text:
            open(readme, "w").write(new)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
