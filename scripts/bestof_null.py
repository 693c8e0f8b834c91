#!/usr/bin/env python3
"""bestof_null.py: how low "raid5x / best safe raid456" falls by chance.

usage: scripts/bestof_null.py RESULTS.json JOB [--perms N] [--seed S]

The suite's bar is raid5x against the best of several raid456 tunings,
each a median of a few runs. Where the tunings cannot change what raid456
does (a read inside a chunk goes straight to the member whatever
stripe_cache_size and group_thread_cnt are), the best of them is the
largest of several samples of one distribution, and raid5x would fall
below it by chance even if it ran the same code. This prints, for JOB in
one bench run, the observed ratio (median raid5x / largest median of the
safe raid456 kinds without a bitmap, as bench-report.py's safe456 picks
them: not raid456u, nothing with skip_copy=1) and its distribution
under the null hypothesis that every array of a repetition is the same:
the array labels are permuted within each repetition (the arrays of a
repetition run back to back, so the boot's drift stays paired). Only
repetitions where every array has a verified run count (paired.py's
load).
"""
import argparse
import importlib.util
import os
import random

from paired import load, median


def safe456_of(path):
    """bench-report.py's safe456 (which raid456 kinds are the bar)."""
    spec = importlib.util.spec_from_file_location("bench_report", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.safe456


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("job")
    ap.add_argument("--perms", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    d, per = load(a.results)
    safe456 = safe456_of(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "bench-report.py"))
    # in the run's own order: the permutations depend on it (--seed)
    safe = [x for x in d["arrays"] if x in safe456(d["arrays"], "")]
    if "raid5x" not in d["arrays"] or not safe:
        raise SystemExit("bestof_null: the run needs raid5x and a safe raid456 kind")
    arrs = safe + ["raid5x"]
    reps = {rep: {x: v[x] for x in arrs} for (job, rep), v in per.items()
            if job == a.job and all(x in v for x in arrs)}
    if len(reps) < 2:
        raise SystemExit("bestof_null: fewer than 2 complete repetitions of %s" % a.job)

    def ratio(lab):
        med = {x: median([lab[k][x] for k in lab]) for x in arrs}
        return med["raid5x"] / max(med[x] for x in safe)

    obs = ratio(reps)
    rnd = random.Random(a.seed)
    sims = []
    for _ in range(a.perms):
        lab = {}
        for k, v in reps.items():
            vals = list(v.values())
            rnd.shuffle(vals)
            lab[k] = dict(zip(arrs, vals))
        sims.append(ratio(lab))
    sims.sort()
    n = len(sims)
    below = sum(s <= obs for s in sims) / n
    print("%s, %s: %d safe raid456 kinds, %d repetitions" % (a.results, a.job, len(safe), len(reps)))
    print("observed raid5x / best safe: %.2f" % obs)
    print("same code everywhere (labels permuted within repetitions, %d permutations): "
          "median %.2f, 5-95%% %.2f-%.2f; share at or below the observed: %.2f"
          % (n, sims[n // 2], sims[n // 20], sims[n * 19 // 20], below))


if __name__ == "__main__":
    main()
