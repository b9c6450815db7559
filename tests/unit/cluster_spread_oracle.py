#!/usr/bin/env python3
"""An oracle for choosing N of M clusters under a spread, written from the rules as
docs/placement.md ("Spreading over regions") states them, after kube-scheduler's and KubeFleet's
topologySpreadConstraints; it shares no code with planter. It tries every set of N candidates.

Reads JSON lines, one fleet each:
  {"count": N, "maxSkew": S, "hard": true|false,
   "candidates": [{"name", "domain" (a string or null), "fits", "kept", "score"}, ...]}
Writes one JSON line per fleet: {"size": how many the best choice takes, "total": its score}.

The rules:
- A domain is a value of the topology key some candidate has (fitting or not). The skew of a
  choice is the most chosen in one domain less the fewest chosen in any domain.
- A candidate may be chosen when it fits or was chosen before (kept).
- DoNotSchedule: only candidates with the key; the skew at most maxSkew. The choice takes N when
  some set of N keeps the spread, else the most that can. Of the sets of that size, those holding
  every kept candidate (with the key) win when there are any; among them the highest total score.
- ScheduleAnyway: kept candidates without the key first; then k = min(what is left of N, the
  eligible candidates with the key) of those with the key, with the smallest skew that can be had
  but never required below maxSkew (the kept-holding sets preferred, then the total score); then
  candidates without the key, best score first.
"""
import itertools
import json
import sys


def skew(chosen, domains):
    counts = {d: 0 for d in domains}
    for c in chosen:
        counts[c["domain"]] += 1
    return max(counts.values()) - min(counts.values()) if counts else 0


def total(chosen):
    return sum(c["score"] for c in chosen)


def best_of(sets, kept):
    """The kept-holding sets if any, then the highest total."""
    holding = [s for s in sets if kept <= {c["name"] for c in s}]
    pool = holding or sets
    return max(pool, key=total) if pool else None


def decide(fleet):
    count, max_skew = fleet["count"], fleet["maxSkew"]
    cands = fleet["candidates"]
    domains = sorted({c["domain"] for c in cands if c["domain"] is not None})
    eligible = [c for c in cands if c["fits"] or c["kept"]]
    keyed = [c for c in eligible if c["domain"] is not None]
    kept_keyed = {c["name"] for c in keyed if c["kept"]}
    if fleet["hard"]:
        for size in range(min(count, len(keyed)), -1, -1):
            sets = [s for s in itertools.combinations(keyed, size) if skew(s, domains) <= max_skew]
            if sets:
                best = best_of(sets, kept_keyed)
                return {"size": size, "total": total(best)}
        return {"size": 0, "total": 0}
    keyless = [c for c in eligible if c["domain"] is None]
    first = [c for c in keyless if c["kept"]][:count]
    k = min(count - len(first), len(keyed))
    sets = list(itertools.combinations(keyed, k))
    least = max(max_skew, min(skew(s, domains) for s in sets)) if sets else 0
    best = best_of([s for s in sets if skew(s, domains) <= least], kept_keyed) or ()
    chosen = list(first) + list(best)
    rest = sorted((c for c in keyless if c not in first), key=lambda c: (-c["score"], c["name"]))
    chosen += rest[: max(0, count - len(chosen))]
    return {"size": len(chosen), "total": total(chosen)}


def main():
    for line in open(sys.argv[1]):
        if line.strip():
            print(json.dumps(decide(json.loads(line))))


if __name__ == "__main__":
    main()
