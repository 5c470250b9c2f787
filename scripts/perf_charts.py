#!/usr/bin/env python3
"""The performance page's charts (docs/performance.md), drawn from the benches' figures.

    python3 scripts/perf_charts.py                      # docs/perf/data/*.json -> docs/perf/*.svg
    python3 scripts/perf_charts.py --out DIR            # the same charts into DIR (the test's check)
    cargo bench --bench perf | tee perf.txt
    python3 scripts/perf_charts.py --read perf perf.txt # perf.txt -> docs/perf/data/perf.json, then the charts

--read BENCH FILE takes what `cargo bench --bench BENCH` printed (perf, restore_points, frames,
scaling, python_rl), keeps its figures in docs/perf/data/BENCH.json (with --source "..." saying
where they come from; the default names the file and its first line) and redraws every chart.
Each chart is one SVG of horizontal bars: a ratio against the real alternative per model, the
parity line at 1 and each figure's target. Python's standard library only; the output depends
on the data alone (no dates, no randomness), so the same data gives the same bytes.
"""

import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "docs", "perf", "data")
OUT = os.path.join(ROOT, "docs", "perf")

# ---- reading the benches' output ------------------------------------------------------------


def read_perf(text):
    """The table `cargo bench --bench perf` prints last: | ratio | model (size) | ... |."""
    figures = {}
    models = None
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "ratio":
            models = [re.sub(r" \(\d+\)$", "", c) for c in cells[1:]]
        elif models and not set(cells[0]) <= set("-"):
            for model, cell in zip(models, cells[1:]):
                if cell:
                    figures.setdefault(cells[0], {})[model] = float(cell)
    return figures


def read_restore_points(text):
    """`LABEL: N state values` lines, then `  NAME  bridge X ns  raw Y ns  ratio Z  (target)`."""
    figures = {}
    model = None
    for line in text.splitlines():
        m = re.match(r"^(\S.*?): \d+ state values$", line)
        if m:
            model = m.group(1)
            continue
        m = re.match(r"^\s+(.+?)\s+bridge\s+[\d.]+ ns\s+raw\s+[\d.]+ ns\s+ratio ([\d.]+)", line)
        if m and model:
            figures.setdefault(m.group(1), {})[model] = float(m.group(2))
    return figures


def read_frames(text):
    """`NAME read ... ratio Rx` (mjb_frame_read_many, or mjb_frame_reader_read: a prepared
    reader) and `NAME host loop ... ratio Rx`."""
    figures = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+read\s+\d+ doubles: (\S+) .* ratio ([\d.]+)x", line)
        if m:
            which = "prepared read / memcpy" if m.group(2) == "mjb_frame_reader_read" else "frame read / memcpy"
            figures.setdefault(which, {})[m.group(1)] = float(m.group(3))
        m = re.match(r"^(\S+)\s+host loop .* ratio ([\d.]+)x", line)
        if m:
            figures.setdefault("host loop / MuJoCo directly", {})[m.group(1)] = float(m.group(2))
    return figures


def read_scaling(text):
    """`scaling: MODEL, ...` then `N = n: bridge ... ratio R (median of the pairs; ...)` (or
    `(rounds: ...)`, the output before issue 23's slices)."""
    figures = {}
    model = "?"
    for line in text.splitlines():
        m = re.match(r"^scaling: (\S+?),", line)
        if m:
            model = m.group(1)
        m = re.match(r"^N = (\d+): bridge .* ratio ([\d.]+) \((rounds|median)", line)
        if m:
            figures.setdefault("bridge / raw throughput, N = %s" % m.group(1), {})[model] = float(m.group(2))
    return figures


def read_python_rl(text):
    """`NAME skip K  mujoco ... ratio R  (...)` and `NAME reset ... ratio R`."""
    figures = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+skip (\d+)\s+mujoco .*?ratio ([\d.]+)\s+\(general", line)
        if m:
            key = "mjbridge / MuJoCo throughput, frame skip %s" % m.group(2)
            figures.setdefault(key, {})[m.group(1)] = float(m.group(3))
        m = re.match(r"^(\S+)\s+reset\s+.* ratio ([\d.]+)$", line)
        if m:
            figures.setdefault("restore / (setState + forward)", {})[m.group(1)] = float(m.group(2))
    return figures


READERS = {
    "perf": read_perf,
    "restore_points": read_restore_points,
    "frames": read_frames,
    "scaling": read_scaling,
    "python_rl": read_python_rl,
}

# ---- what each chart shows ------------------------------------------------------------------

# A bar: (bench, figure key, model as the bench names it, the bar's label, its target or None).
CHARTS = [
    {
        "file": "documents.svg",
        "title": "Documents: mjbridge against serde_json, time per call",
        "axis": "mjbridge time / serde_json time (lower is better)",
        "bars": [
            ("perf", "read / serde write", m, "checkpoint read / serde write, " + label, 1.0)
            for m, label in [
                ("walker (own)", "walker 258"),
                ("107 boxes (own)", "boxes 3,324"),
                ("1032 boxes (own)", "boxes 31,999"),
                ("humanoid.xml (shared)", "humanoid 233"),
                ("22_humanoids.xml (shared)", "22 humanoids 4,979"),
            ]
        ]
        + [
            ("perf", "restore / serde parse", m, "restore / serde typed parse, " + label, 1.2)
            for m, label in [
                ("walker (own)", "walker 258"),
                ("107 boxes (own)", "boxes 3,324"),
                ("1032 boxes (own)", "boxes 31,999"),
                ("humanoid.xml (shared)", "humanoid 233"),
                ("22_humanoids.xml (shared)", "22 humanoids 4,979"),
            ]
        ],
    },
    {
        "file": "nlohmann.svg",
        "title": "Documents: nlohmann::json (no checks) against mjbridge, time per call",
        "axis": "nlohmann::json time / mjbridge time (higher is better)",
        "bars": [
            ("perf", "nlohmann write / read", m, "write / checkpoint read, " + label, 2.5)
            for m, label in [
                ("walker (own)", "walker 258"),
                ("1032 boxes (own)", "boxes 31,999"),
                ("humanoid.xml (shared)", "humanoid 233"),
            ]
        ]
        + [
            ("perf", "nlohmann restore / restore", m, "parse + mj_setState / restore, " + label, 2.5)
            for m, label in [
                ("walker (own)", "walker 258"),
                ("1032 boxes (own)", "boxes 31,999"),
                ("humanoid.xml (shared)", "humanoid 233"),
            ]
        ],
    },
    {
        "file": "raw_mujoco.svg",
        "title": "Calls against the same work written on MuJoCo directly, time",
        "axis": "mjbridge time / MuJoCo time (lower is better)",
        "bars": [
            ("perf", "step / mj_step", "walker (own)", "mjb_step(1) / mj_step, walker", 1.02),
            ("perf", "step / mj_step", "humanoid.xml (shared)", "mjb_step(1) / mj_step, humanoid", 1.02),
            ("frames", "host loop / MuJoCo directly", "humanoid", "host loop (ctrl, step, frame), humanoid", 1.10),
            ("frames", "host loop / MuJoCo directly", "many_bodies", "host loop (ctrl, step, frame), many_bodies", 1.10),
            ("restore_points", "capture+free / mj_getState into a kept buffer", "humanoid (shared)", "restore point capture / mj_getState, humanoid", 1.5),
            ("restore_points", "capture+free / mj_getState into a kept buffer", "1032 boxes (own)", "restore point capture / mj_getState, 1,032 boxes", 1.2),
            ("restore_points", "apply / mj_setState + mj_getState + compare", "humanoid (shared)", "restore point apply / set + get + compare, humanoid", 2.0),
            ("restore_points", "apply / mj_setState + mj_getState + compare", "1032 boxes (own)", "restore point apply / set + get + compare, 1,032 boxes", 2.0),
            ("restore_points", "planner loop, H = 10 (bridge / raw time)", "humanoid (shared)", "planner loop (apply + 10 steps), humanoid", 1.03),
            ("python_rl", "restore / (setState + forward)", "host", "Python reset: restore / mj_setState + mj_forward, host (target 3)", None),
            ("python_rl", "restore / (setState + forward)", "humanoid", "Python reset: restore / mj_setState + mj_forward, humanoid", None),
        ],
    },
    {
        "file": "throughput.svg",
        "title": "Throughput against the alternative",
        "axis": "mjbridge throughput / alternative throughput (higher is better)",
        "bars": [
            ("scaling", "bridge / raw throughput, N = 1", "many_bodies.xml", "1 thread: mjb_step / mj_step, many_bodies", 0.97),
            ("scaling", "bridge / raw throughput, N = 2", "many_bodies.xml", "2 threads: mjb_step / mj_step, many_bodies", 0.97),
            ("scaling", "bridge / raw throughput, N = 1", "small_arm.xml", "1 thread: mjb_step / mj_step, small_arm", 0.97),
            ("scaling", "bridge / raw throughput, N = 2", "small_arm.xml", "2 threads: mjb_step / mj_step, small_arm", 0.97),
            ("python_rl", "mjbridge / MuJoCo throughput, frame skip 1", "host", "Python stepper / MuJoCo's bindings, host, skip 1", 0.9),
            ("python_rl", "mjbridge / MuJoCo throughput, frame skip 5", "host", "Python stepper / MuJoCo's bindings, host, skip 5", 0.9),
            ("python_rl", "mjbridge / MuJoCo throughput, frame skip 1", "humanoid", "Python stepper / MuJoCo's bindings, humanoid, skip 1", 0.9),
            ("python_rl", "mjbridge / MuJoCo throughput, frame skip 5", "humanoid", "Python stepper / MuJoCo's bindings, humanoid, skip 5", 0.9),
        ],
    },
    {
        "file": "frames.svg",
        "title": "A frame read (lock-free, checked) against memcpy from mjData",
        "axis": "frame read time / memcpy time (lower is better)",
        "bars": [
            ("frames", "frame read / memcpy", "humanoid", "mjb_frame_read_many, humanoid (174 doubles)", 1.5),
            ("frames", "frame read / memcpy", "many_bodies", "mjb_frame_read_many, many_bodies (3,687 doubles)", 1.5),
            ("frames", "prepared read / memcpy", "humanoid", "mjb_frame_reader_read, humanoid (174 doubles)", 2.0),
            ("frames", "prepared read / memcpy", "many_bodies", "mjb_frame_reader_read, many_bodies (3,687 doubles)", 2.0),
        ],
    },
]

# ---- drawing --------------------------------------------------------------------------------

WIDTH = 940
LABEL_W = 480
ROW = 26
TOP = 64
BOTTOM = 46


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def fmt(x):
    return ("%.3f" % x).rstrip("0").rstrip(".") if x < 10 else "%.1f" % x


def svg(chart, data):
    bars = []
    for bench, key, model, label, target in chart["bars"]:
        try:
            value = data[bench]["figures"][key][model]
        except KeyError:
            sys.exit("%s: no figure %r for %r in %s.json" % (chart["file"], key, model, bench))
        bars.append((label, value, target))
    top = max([v for _, v, _ in bars] + [t for _, _, t in bars if t is not None] + [1.0])
    scale_max = next(s for s in [1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 15, 20] if s >= top * 1.08)
    plot_x0 = LABEL_W
    plot_w = WIDTH - LABEL_W - 70
    sources = sorted({b[0] for b in chart["bars"]})
    height = TOP + ROW * len(bars) + BOTTOM + 12 * len(sources)

    def x(v):
        return plot_x0 + plot_w * v / scale_max

    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="sans-serif" font-size="12">' % (WIDTH, height, WIDTH, height),
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        '<text x="10" y="22" font-size="15" font-weight="bold">%s</text>' % esc(chart["title"]),
        '<text x="10" y="42" fill="#444444">%s; ' % esc(chart["axis"])
        + '<tspan fill="#c0392b">| target</tspan>, dashed: parity (1)</text>',
    ]
    # Grid and its ticks.
    steps = 5
    for i in range(steps + 1):
        v = scale_max * i / steps
        gx = x(v)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e5e5e5"/>'
                   % (gx, TOP - 6, gx, TOP + ROW * len(bars)))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444444">%s</text>'
                   % (gx, TOP + ROW * len(bars) + 18, fmt(v)))
    for i, (label, value, target) in enumerate(bars):
        y = TOP + ROW * i
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (LABEL_W - 10, y + 15, esc(label)))
        out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="#2e6da4"/>'
                   % (plot_x0, y + 4, x(value) - plot_x0, ROW - 8))
        out.append('<text x="%.1f" y="%d">%s</text>' % (x(value) + 5, y + 15, fmt(value)))
        if target is not None:
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#c0392b" stroke-width="2"/>'
                       % (x(target), y + 1, x(target), y + ROW - 1))
    px = x(1.0)
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#222222" stroke-dasharray="4 3"/>'
               % (px, TOP - 6, px, TOP + ROW * len(bars)))
    for j, b in enumerate(sources):
        out.append('<text x="10" y="%d" font-size="10" fill="#666666">%s</text>'
                   % (height - 12 * (len(sources) - j) + 4, esc("%s: %s" % (data[b]["bench"], data[b]["source"]))))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def load(folder):
    data = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                data[name[:-5]] = json.load(f)
    return data


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=OUT, help="folder for the SVG files (default docs/perf)")
    ap.add_argument("--data", default=DATA, help="folder of the figures (default docs/perf/data)")
    ap.add_argument("--read", nargs=2, metavar=("BENCH", "FILE"),
                    help="take the figures of `cargo bench --bench BENCH` from FILE first")
    ap.add_argument("--source", help="with --read: where the figures come from (run, machine, date)")
    ap.add_argument("--no-charts", dest="charts", action="store_false",
                    help="with --read: keep the figures, draw nothing (a partial run)")
    args = ap.parse_args()
    if args.read:
        bench, path = args.read
        if bench not in READERS:
            sys.exit("--read: no reader for bench %r (have: %s)" % (bench, ", ".join(sorted(READERS))))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        figures = READERS[bench](text)
        if not figures:
            sys.exit("--read %s: no figures found in %s" % (bench, path))
        lines = [l.strip() for l in text.splitlines() if l.strip()]
        # The line that names the run: its engine, rounds or model.
        header = re.compile(r"^(mjbridge \S+ (on MuJoCo|\(engine)|engine \S+$|scaling: |rounds \d+)")
        first = next((l for l in lines if header.match(l)), lines[0] if lines else "")
        record = {
            "bench": "cargo bench --bench %s" % bench,
            "source": args.source or "%s (%s)" % (os.path.basename(path), first.strip()),
            "figures": figures,
        }
        os.makedirs(args.data, exist_ok=True)
        with open(os.path.join(args.data, bench + ".json"), "w", encoding="utf-8") as f:
            json.dump(record, f, indent=2, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    if args.charts is False:
        return
    data = load(args.data)
    os.makedirs(args.out, exist_ok=True)
    for chart in CHARTS:
        with open(os.path.join(args.out, chart["file"]), "w", encoding="utf-8", newline="\n") as f:
            f.write(svg(chart, data))
    print("wrote %d charts to %s" % (len(CHARTS), args.out))


if __name__ == "__main__":
    main()
