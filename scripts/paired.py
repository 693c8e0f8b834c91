#!/usr/bin/env python3
"""Paired comparison of two arrays of one bench.sh suite run.

    scripts/paired.py RESULTS.json [--base ARRAY[,ARRAY...]] [--vs raid5x]
                      [--jobs JOB,...] [--seed N] [--boot N]

bench.sh runs every array once per repetition, back to back, in an order
that rotates each repetition, so a repetition is a pair: a slow phase of
the machine falls on both arrays of it. For each job this prints, per
base array, the per-repetition ratios vs/base, their median, how many
repetitions vs won, a two-sided sign test (the chance of a split at least
this uneven if neither array were faster), and a bootstrap 95% interval
of the ratio of medians (repetitions resampled as pairs, --boot times).

A ratio whose interval holds 1.0 is no measured difference at this many
repetitions. When --base lists several arrays, "best" also compares vs
with, per repetition, the fastest of them: that bar is biased upward (the
maximum of several noisy runs), which is why the tuning to compare with
should be picked on one run and tested on another (docs/benchmarks.md).
Only runs with verified data count (run error null, verify status ok).
"""
import argparse
import json
import math
import random
import sys
from collections import defaultdict


def median(v):
    s = sorted(v)
    n = len(s)
    return (s[n // 2] + s[(n - 1) // 2]) / 2.0 if n else None


def sign_test(wins, n):
    """Two-sided binomial p for wins out of n at p = 0.5."""
    if not n:
        return None
    k = min(wins, n - wins)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    return min(1.0, 2 * tail)


def boot_ci(pairs, rounds, rng):
    """95% interval of median(vs) / median(base) over resampled pairs."""
    if len(pairs) < 3:
        return None
    est = []
    for _ in range(rounds):
        s = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        b = median([p[0] for p in s])
        if b:
            est.append(median([p[1] for p in s]) / b)
    est.sort()
    return est[int(0.025 * len(est))], est[int(0.975 * len(est)) - 1]


def load(path):
    with open(path) as f:
        d = json.load(f)
    per = defaultdict(dict)     # (job, rep) -> array -> MiB/s
    for r in d["runs"]:
        m = (r.get("metrics") or {}).get("mibs")
        ok = not r.get("error") and (r.get("verify") or {}).get("status") == "ok"
        if m and ok:
            per[(r["job"], r["rep"])][r["array"]] = m
    return d, per


def compare(per, job, bases, vs, rounds, rng):
    pairs, ratios, wins = [], [], 0
    for (j, rep), arr in sorted(per.items()):
        if j != job or vs not in arr or not all(b in arr for b in bases):
            continue
        base = max(arr[b] for b in bases)
        pairs.append((base, arr[vs]))
        ratios.append(arr[vs] / base)
        wins += arr[vs] > base
    if not pairs:
        return None
    mb, mv = median([p[0] for p in pairs]), median([p[1] for p in pairs])
    return {"n": len(pairs), "base": mb, "vs": mv, "ratio": mv / mb,
            "paired": median(ratios), "wins": wins,
            "p": sign_test(wins, len(pairs)),
            "ci": boot_ci(pairs, rounds, rng)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--base", help="arrays to compare with (default: all others)")
    ap.add_argument("--vs", default="raid5x")
    ap.add_argument("--jobs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--boot", type=int, default=4000)
    a = ap.parse_args()
    d, per = load(a.results)
    arrays = d["arrays"]
    if a.vs not in arrays:
        sys.exit("paired.py: %s is not an array of this run (%s)" % (a.vs, ",".join(arrays)))
    bases = a.base.split(",") if a.base else [x for x in arrays if x != a.vs]
    for b in bases:
        if b not in arrays:
            sys.exit("paired.py: %s is not an array of this run" % b)
    jobs = a.jobs.split(",") if a.jobs else d["jobs"]
    rng = random.Random(a.seed)
    print("| job | base | n | base MiB/s | %s MiB/s | ratio of medians | "
          "paired median | %s won | sign test p | bootstrap 95%% |" % (a.vs, a.vs))
    print("|---|---|---|---|---|---|---|---|---|---|")
    for job in jobs:
        rows = [(b, [b]) for b in bases]
        if len(bases) > 1:
            rows.append(("best of %d (biased up)" % len(bases), bases))
        for name, bl in rows:
            c = compare(per, job, bl, a.vs, a.boot, rng)
            if not c:
                continue
            ci = "%.2f-%.2f" % c["ci"] if c["ci"] else "-"
            print("| %s | %s | %d | %.1f | %.1f | %.2f | %.2f | %d of %d | %.3f | %s |" % (
                job, name, c["n"], c["base"], c["vs"], c["ratio"], c["paired"],
                c["wins"], c["n"], c["p"], ci))


if __name__ == "__main__":
    main()
