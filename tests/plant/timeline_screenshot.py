"""Renders a plant's timeline (`--timeline t.html`) in headless Chromium and checks the picture
against what the plant's report (`--report r.json`) says happened, as docs/plant.md ("The
timeline") describes the chart: a legend with a swatch for each kind of wait that occurred, one row per unit where rows
that look alike at the chart's resolution (900 pixels for the whole run, 420 pixels of labels
before it) are drawn once, each row's stretches in time order, and the critical path's rows on a
tinted band.

Usage: timeline_screenshot.py TIMELINE.html REPORT.json SHOT.png --min-critical-rows N
                              [--last-row PART,PART,...]
Prints what it saw and exits 0, or names the first mismatch and exits 1. Needs Debian's chromium
and python3-pil (scripts/install-deps).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

# The chart's documented palette (docs/plant.md, "The timeline").
PALETTE = {
    "cluster": (0xB3, 0x9D, 0xDB),
    "api": (0x81, 0xB4, 0xE0),
    "namespace": (0x8F, 0xD0, 0xC9),
    "ready": (0xF3, 0xD2, 0x7A),
    "room": (0xF0, 0xA6, 0xA0),
    "retry": (0xC9, 0xC9, 0xC9),
    "queued": (0xCF, 0xE8, 0xD2),
    "onwire": (0x3F, 0x8F, 0x54),
    "inflight": (0x8C, 0xC7, 0xA0),
    "failed": (0xC0, 0x39, 0x2B),
    "blocked": (0xE5, 0x98, 0x66),
    "mark": (0x17, 0x39, 0x1F),
}
CRITICAL_ROW = (0xFB, 0xE3, 0xE0)
LABELS, CHART = 420, 900


def fail(why):
    print("FAIL", why)
    sys.exit(1)


args = argparse.ArgumentParser()
args.add_argument("html")
args.add_argument("report")
args.add_argument("png")
args.add_argument("--min-critical-rows", type=int, required=True)
args.add_argument("--last-row", default="")
a = args.parse_args()

report = json.load(open(a.report))
units = [u for u in report["units"] if u["state"] != "not-chosen"]
elapsed = max(report["elapsedSeconds"], 1e-6)


def px(t):
    return int(LABELS + CHART * min(max(t / elapsed, 0.0), 1.0) + 0.5)


# The rows the chart should have: per cluster, units whose stretches and mark fall on the same
# pixels (and that wait for the same things) share one; a row on the critical path is its own.
looks = set()
clusters = set()
for u in units:
    waits = tuple((w["for"], px(w["fromSeconds"]), px(w.get("toSeconds", elapsed)))
                  for w in u.get("waits", []))
    apply = ()
    if "declaredSeconds" in u and "sentSeconds" in u:
        d, s = u["declaredSeconds"], u["sentSeconds"]
        wire = min(max(d - u["onWireSeconds"], s), d)
        apply = (px(s), px(wire), px(d), wire > s)  # a queued stretch is drawn when there was one
    looks.add((u["cluster"], u["state"], u.get("criticalPath", False), waits, apply,
               px(u.get("declaredSeconds", -1))))
    clusters.add(u["cluster"])
declared_rows = sum(1 for look in looks if look[1] == "declared")
expected_parts = {w["kind"] for u in units for w in u.get("waits", [])}
unknown = expected_parts - PALETTE.keys()
if unknown:
    fail(f"the report names kinds of wait the chart has no colour for: {sorted(unknown)}")

browser = shutil.which("chromium") or fail("chromium is not installed: run scripts/install-deps")
height = 420 + 16 * len(units) + 24 * len(clusters) + 200
profile = tempfile.mkdtemp(prefix="timeline-chromium-")
try:
    run = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--force-device-scale-factor=1", f"--user-data-dir={profile}",
         f"--window-size=1440,{height}", f"--screenshot={a.png}",
         "file://" + os.path.abspath(a.html)],
        capture_output=True, text=True, timeout=120)
finally:
    shutil.rmtree(profile, ignore_errors=True)
if run.returncode != 0 or not os.path.exists(a.png):
    fail(f"chromium did not take the screenshot (exit {run.returncode}): {run.stderr[-600:]}")

img = Image.open(a.png).convert("RGB")
w, h = img.size
pix = img.load()


def bands(color, min_run=1):
    """The runs of image rows holding at least min_run pixels of `color` in one stretch."""
    out, start = [], None
    for y in range(h):
        run = best = 0
        for x in range(w):
            run = run + 1 if pix[x, y] == color else 0
            best = max(best, run)
        if best >= min_run and start is None:
            start = y
        if best < min_run and start is not None:
            out.append((start, y))
            start = None
    if start is not None:
        out.append((start, h))
    return out


# The legend: a swatch (12 by 11 pixels) of each kind of wait that occurred, and of the mark.
for part in sorted(expected_parts | {"mark", "onwire"}):
    swatches = [b for b in bands(PALETTE[part], 12) if b[1] - b[0] >= 11]
    if not swatches:
        fail(f"the legend has no swatch for {part} {PALETTE[part]}")
print("legend:", ", ".join(sorted(expected_parts | {"mark", "onwire"})))

# Rows: a declared row carries a mark (2 pixels wide, the row's height); the legend's swatch of
# the mark is the first band of that colour.
marks = [b for b in bands(PALETTE["mark"], 2) if b[1] - b[0] >= 11]
if len(marks) - 1 != declared_rows:
    fail(f"{len(marks) - 1} declared rows drawn, the report makes {declared_rows}: {marks}")
print("declared rows:", declared_rows, "of", len(units), "declared units")

# The critical path: at least as many units in the report as the test expects, and a band under
# each of the report's rows.
on_path = sum(1 for u in units if u.get("criticalPath"))
if on_path < a.min_critical_rows:
    fail(f"the report puts {on_path} units on the critical path, expected {a.min_critical_rows} or more")
# Adjacent rows on the path make one band: count them by height.
critical = bands(CRITICAL_ROW, 20)  # the band runs on past the chart, where nothing covers it
rows = sum(round((b - t) / 16) for t, b in critical)
if rows != on_path:
    fail(f"{rows} rows on the critical path's band, the report puts {on_path} units on it: {critical}")
print("critical path rows:", on_path)

if a.last_row:
    # The last row, read from left to right along its bar's top line (above any text).
    top = marks[-1][0] + 3
    seq = []
    run_color, run_len = None, 0
    for x in range(w):
        c = pix[x, top]
        if c == run_color:
            run_len += 1
            continue
        if run_color is not None and run_len >= 2:
            name = next((k for k, v in PALETTE.items() if v == run_color), None)
            if name and (not seq or seq[-1] != name):
                seq.append(name)
        run_color, run_len = c, 1
    want = a.last_row.split(",")
    it = iter(seq)
    if not all(any(s == p for s in it) for p in want):
        fail(f"the last row reads {seq}, expected {want} in that order")
    print("last row:", " -> ".join(seq))
print("OK")
