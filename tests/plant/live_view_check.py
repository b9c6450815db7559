"""Checks `planter plant --ui` as a person at a browser sees it (docs/cli.md, "The live view"):
plants a roll-out that waits for an approval on the in-process sim with --ui, and reads the page
in headless Chromium while the run waits (the canary's unit declared, the others pending, each
saying it waits for the approval), then, after `planter approve`, again (every unit declared, the
run's end said), and checks that the page's event stream told the change as it happened, with
no reload: a page opened before the approval shows it after.

Screenshots check the colours on screen (a unit waiting and one declared, then all declared), the
browser reaches nothing but this machine, and the page loads nothing from elsewhere.

Usage: live_view_check.py PLANTER WORKDIR
Prints what it saw and exits 0, or names the first mismatch and exits 1. Needs Debian's chromium
and python3-pil (scripts/install-deps).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser

planter, work = sys.argv[1], sys.argv[2]
SEED = """apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: sim.planter.io/index
    planter.nephio.org/rollout: "{maxConcurrency: 2, canaries: [edge1], approval: web-go}"
data: {mode: prod}
"""


def fail(why):
    print("FAIL", why)
    sys.exit(1)


def until(what, check, limit=60):
    """The first truthy answer of check(), asked again until `limit` seconds have passed."""
    deadline = time.monotonic() + limit
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            fail(f"{what}: not within {limit} s")
        time.sleep(0.3)  # sleep-ok(poll): the step of a wait for observed state with a deadline


class Units(HTMLParser):
    """The unit boxes of a page: id -> (state, why), and the header's counts and end."""

    def __init__(self):
        super().__init__()
        self.units, self.counts, self.ended, self.timeline = {}, {}, "", None
        self._unit = self._in = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("class") == "unit":
            self._unit = a["id"]
            self.units[self._unit] = [a.get("data-state"), ""]
        elif tag == "span" and a.get("class") == "why" and self._unit:
            self._in = ("why", self._unit)
        elif tag == "span" and "data-count" in a:
            self._in = ("count", a["data-count"])
        elif tag == "div" and a.get("id") == "ended":
            self._in = ("ended", None)
        elif tag == "a" and a.get("id") == "timeline":
            self.timeline = a.get("href")

    def handle_endtag(self, tag):
        if tag in ("span", "div"):
            self._in = None

    def handle_data(self, data):
        if not self._in:
            return
        kind, key = self._in
        if kind == "why":
            self.units[key][1] += data
        elif kind == "count":
            self.counts[key] = data
        else:
            self.ended += data


browser = shutil.which("chromium") or fail("chromium is not installed: run scripts/install-deps")


# The browser reaches this machine only: the page needs nothing from anywhere else.
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
# The boxes' borders (plant_view_page.cpp): a pending unit's and a declared one's.
PENDING, DECLARED = (0xD6, 0xA4, 0x00), (0x1F, 0x9D, 0x55)


def colours(url):
    """Which of PENDING and DECLARED a screenshot of the page shows."""
    from PIL import Image
    profile = tempfile.mkdtemp(prefix="live-view-chromium-")
    shot = os.path.join(profile, "shot.png")
    try:
        run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                              "--no-first-run", "--hide-scrollbars", OFFLINE,
                              f"--user-data-dir={profile}", "--window-size=1200,800",
                              f"--screenshot={shot}", url],
                             capture_output=True, text=True, timeout=120)
        if run.returncode != 0 or not os.path.exists(shot):
            fail(f"chromium took no screenshot of {url}: {run.stderr[-600:]}")
        seen = set(Image.open(shot).convert("RGB").getdata())
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return {name for name, c in (("pending", PENDING), ("declared", DECLARED)) if c in seen}


def page(url, budget_ms=None):
    """The page's DOM after its script ran, as headless Chromium has it."""
    profile = tempfile.mkdtemp(prefix="live-view-chromium-")
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", OFFLINE,
            f"--user-data-dir={profile}", "--dump-dom"]
    if budget_ms:
        args.append(f"--virtual-time-budget={budget_ms}")
    try:
        run = subprocess.run(args + [url], capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if run.returncode != 0:
        fail(f"chromium could not read {url} (exit {run.returncode}): {run.stderr[-600:]}")
    units = Units()
    units.feed(run.stdout)
    return units


seed = os.path.join(work, "seed.yaml")
kubeconfig = os.path.join(work, "sim.kubeconfig")
with open(seed, "w") as f:
    f.write(SEED)
proc = subprocess.Popen(
    [planter, "plant", "--sim", "--sim-clusters", "3", "--sim-kubeconfig-out", kubeconfig,
     "--ui", "127.0.0.1:0", "--keep", "--timeout", "120", seed],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
said = []
threading.Thread(target=lambda: [said.append(line) for line in proc.stdout], daemon=True).start()
try:
    url = until("the live view's address in plant's output",
                lambda: next((l.split("live view: ")[1].strip() for l in said
                              if l.startswith("live view: ")), None))
    plan = json.load(urllib.request.urlopen(url + "plan", timeout=30))
    on = {f"u{i}": u["cluster"] for i, u in enumerate(plan["units"])}
    if sorted(on.values()) != ["edge1", "edge2", "edge3"]:
        fail(f"the plan's units are on {sorted(on.values())}, not on edge1..edge3")

    # The event stream, read from before the approval.
    events = []

    def listen():
        with urllib.request.urlopen(url + "events", timeout=120) as stream:
            for line in stream:
                line = line.decode()
                if line.startswith("data: "):
                    events.append(json.loads(line[6:]))

    threading.Thread(target=listen, daemon=True).start()

    def waiting():
        p = page(url)
        states = {on[i]: s for i, (s, _) in p.units.items()}
        return p if states == {"edge1": "declared", "edge2": "pending",
                               "edge3": "pending"} else None

    before = until("the canary declared and the rest pending, on the page", waiting)
    for i, (state, why) in before.units.items():
        if on[i] != "edge1" and "planter-approval-web-go" not in why:
            fail(f"{on[i]}'s unit does not say it waits for the approval: {why!r}")
    if before.counts != {"declared": "1 declared", "pending": "2 pending"}:
        fail(f"the header counts {before.counts}, not 1 declared and 2 pending")
    # On screen: a unit waiting and one declared, in their colours.
    if colours(url) != {"pending", "declared"}:
        fail(f"a screenshot while it waits shows {colours(url)}, not pending and declared")
    # Nothing of the page comes from elsewhere.
    source = urllib.request.urlopen(url, timeout=30).read().decode()
    for outside in ("<link", "<script src", "src=\"http", "href=\"http", "@import", "url("):
        if outside in source:
            fail(f"the page loads something ({outside!r}): it must need nothing else")
    # The run's timeline comes when the run ends.
    try:
        urllib.request.urlopen(url + "timeline", timeout=30)
        fail("the timeline is served while the run goes on")
    except urllib.error.HTTPError as e:
        if e.code != 404:
            fail(f"the timeline, asked for while the run goes on, answers {e.code}")
    if before.timeline is not None:
        fail("the page links to a timeline while the run goes on")
    print(f"while it waits: {before.counts}; edge2 says {before.units[next(i for i in on if on[i] == 'edge2')][1]!r}")

    # A page opened before the approval shows it, through its event stream: Chromium runs the
    # page while the approval is given beside it.
    approved = {}

    def approve():
        time.sleep(2)  # sleep-ok(time): the page is open and listening before the approval
        approved["run"] = subprocess.run([planter, "approve", "web-go", "--kubeconfig",
                                          kubeconfig], capture_output=True, text=True)

    threading.Thread(target=approve, daemon=True).start()
    # Chromium's virtual-time budget: room for the approval, 2 s in, and the declarations after
    # it on a machine busy with other tests (8 s was missed once in a -j2 suite).
    live = page(url, budget_ms=15000)
    if approved.get("run") is None or approved["run"].returncode != 0:
        fail(f"planter approve: {approved.get('run')}")
    states = {on[i]: s for i, (s, _) in live.units.items()}
    after = page(url)
    if {on[i]: s for i, (s, _) in after.units.items()} != dict.fromkeys(on.values(), "declared"):
        fail(f"after the approval the page shows {after.units}")
    if "every unit declared" not in after.ended:
        fail(f"the page does not say the run ended: {after.ended!r}")
    print(f"after the approval: {after.counts}; {after.ended.strip()}")
    # Once it ended, the page links to the run's timeline: the approval's wait on it.
    if after.timeline != "timeline":
        fail(f"the page, once the run ended, links to the timeline as {after.timeline!r}")
    timeline = urllib.request.urlopen(url + "timeline", timeout=30).read().decode()
    for told in ("<svg", "critical-path", "planter-approval-web-go"):
        if told not in timeline:
            fail(f"the run's timeline does not have {told!r}")
    print("the run's timeline is linked once it ended, and shows the wait for the approval")
    if colours(url) != {"declared"}:
        fail(f"a screenshot after the approval shows {colours(url)}, not declared alone")
    print("on screen: pending and declared while it waits, declared alone after")
    if states != dict.fromkeys(on.values(), "declared"):
        fail(f"a page opened before the approval still shows {states} after it")
    print("a page opened before the approval shows every unit declared after it")
    # The stream told each change as it came: edge2's unit pending first, declared later.
    edge2 = next(i[1:] for i in on if on[i] == "edge2")
    seen = [e["units"][edge2]["state"] for e in events if edge2 in e["units"]]
    if not seen or seen[0] != "pending" or seen[-1] != "declared":
        fail(f"the event stream told edge2's unit as {seen}")
    print(f"events: {len(events)}; edge2's unit in them: {' -> '.join(seen)}")
finally:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
print("ok")
