#!/usr/bin/env python3
"""Write the suite's timing tables into docs/testing.md ("How long it takes").

    python3 scripts/test_times.py [--check]

Reads what the last run of scripts/test.sh (or .ci/run) left in target/test-times/: one
`<lane>.tsv` per engine lane (test target, seconds; `(build)` is the lane's compile) and
`ci-steps.tsv` (step, seconds, exit status) when .ci/run made the run. The tables replace the
text between the `<!-- test-times:begin -->` and `<!-- test-times:end -->` lines. `--check`
only says whether the file would change.
"""
import csv
import datetime
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TIMES = ROOT / "target" / "test-times"
DOC = ROOT / "docs" / "testing.md"
BEGIN = "<!-- test-times:begin -->"
END = "<!-- test-times:end -->"
LANES = ["4.0.0", "3.17.0", "3.3.7", "2.3.7", "2.2.2"]


def rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.reader(f, delimiter="\t") if r]


def lane_table():
    lanes = [lane for lane in LANES if (TIMES / f"{lane}.tsv").is_file()]
    if not lanes:
        sys.exit(f"test_times.py: no lane timings in {TIMES} (run bash scripts/test.sh first)")
    secs = {lane: {r[0]: float(r[1]) for r in rows(TIMES / f"{lane}.tsv")} for lane in lanes}
    targets = sorted(
        {t for lane in lanes for t in secs[lane]},
        key=lambda t: (t != "(build)", -secs[lanes[0]].get(t, 0.0), t),
    )
    out = ["| test target | " + " | ".join(lanes) + " |", "| --- |" + " ---: |" * len(lanes)]
    for t in targets:
        cells = [f"{secs[lane][t]:.0f}" if t in secs[lane] else "" for lane in lanes]
        name = t if t.startswith("(") else f"`{t}`"
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    totals = [f"{sum(secs[lane].values()):.0f}" for lane in lanes]
    out.append("| **lane total** | " + " | ".join(totals) + " |")
    return out


def step_table():
    path = TIMES / "ci-steps.tsv"
    if not path.is_file():
        return []
    steps = rows(path)
    out = ["", "| `.ci/run` step | seconds |", "| --- | ---: |"]
    for name, secs, status in steps:
        out.append(f"| {name}{'' if status == '0' else ' (failed)'} | {secs} |")
    out.append(f"| **sum of the steps** | {sum(int(s[1]) for s in steps)} |")
    return out


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit(__doc__)
    text = DOC.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"test_times.py: {DOC} has no {BEGIN} ... {END} section")
    day = datetime.date.fromtimestamp((TIMES / "4.0.0.tsv").stat().st_mtime).isoformat()
    body = [
        BEGIN,
        f"Seconds per test target and lane, from the run of {day} "
        "(`python3 scripts/test_times.py` after `bash scripts/test.sh` or `.ci/run`; "
        "each target timed alone, after the lane's one build):",
        "",
        *lane_table(),
        *step_table(),
        END,
    ]
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = head + "\n".join(body) + tail
    if check:
        print("docs/testing.md is current" if new == text else "docs/testing.md would change")
        return
    DOC.write_text(new)
    print(f"wrote the timing tables into {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
