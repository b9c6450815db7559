"""Checks a file against the Trace Event Format (the JSON that Perfetto's UI and chrome://tracing
open), as its specification states it, with what Perfetto needs on top: slices on one thread nest
or follow each other, and each flow event sits inside a slice of its thread.

Usage: trace_schema.py TRACE.json. Prints the counts and exits 0, or names the first problem and
exits 1.
"""
import json
import sys

PHASES = {"B", "E", "X", "i", "I", "C", "b", "n", "e", "s", "t", "f", "P", "N", "O", "D", "M"}


def fail(why):
    print("FAIL", why)
    sys.exit(1)


doc = json.load(open(sys.argv[1]))
if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
    fail("the top level is an object with a traceEvents array")
if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
    fail("displayTimeUnit is ms or ns")
slices = {}  # (pid, tid) -> [(start, end)]
flows = {}   # (cat, id) -> phases seen
counts = {}
for i, e in enumerate(doc["traceEvents"]):
    where = f"event {i} ({e.get('name')!r})"
    if not isinstance(e, dict):
        fail(f"{where}: an event is an object")
    ph = e.get("ph")
    if ph not in PHASES:
        fail(f"{where}: unknown phase {ph!r}")
    counts[ph] = counts.get(ph, 0) + 1
    if not isinstance(e.get("name"), str):
        fail(f"{where}: name is a string")
    for key in ("pid", "tid"):
        if not isinstance(e.get(key), int):
            fail(f"{where}: {key} is an integer")
    if ph == "M":
        if e["name"] not in ("process_name", "process_labels", "process_sort_index",
                             "thread_name", "thread_sort_index"):
            fail(f"{where}: unknown metadata event")
        if not isinstance(e.get("args", {}).get("name", e.get("args", {}).get("sort_index")),
                          (str, int)):
            fail(f"{where}: metadata carries args.name")
        continue
    if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
        fail(f"{where}: ts is a number of microseconds")
    if ph == "X":
        if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
            fail(f"{where}: a complete event has a duration")
        slices.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    if ph in ("s", "t", "f"):
        if "id" not in e or not isinstance(e.get("cat"), str):
            fail(f"{where}: a flow event has an id and a category")
        if ph == "f" and e.get("bp", "e") != "e":
            fail(f"{where}: a flow end's binding point is e")
        flows.setdefault((e["cat"], e["id"]), []).append((ph, e["pid"], e["tid"], e["ts"]))
    if "args" in e and not isinstance(e["args"], dict):
        fail(f"{where}: args is an object")

for thread, spans in slices.items():
    spans.sort()
    stack = []
    for start, end in spans:
        while stack and stack[-1] <= start:
            stack.pop()
        if stack and end > stack[-1]:
            fail(f"slices of thread {thread} overlap without nesting")
        stack.append(end)


def inside(pid, tid, ts):
    return any(s <= ts < e or (s == e == ts) for s, e in slices.get((pid, tid), []))


for key, events in flows.items():
    phases = [p for p, *_ in events]
    if phases[0] != "s" or phases[-1] != "f" or phases.count("s") != 1:
        fail(f"flow {key} starts with s and ends with f")
    for ph, pid, tid, ts in events:
        if not inside(pid, tid, ts):
            fail(f"flow {key}: its {ph} event is in no slice of its thread")

print("ok", json.dumps(dict(sorted(counts.items()))), "flows", len(flows))
