#!/usr/bin/env python3
"""bench-report.py: the raid5x benchmark's report (called by scripts/bench.sh).

Reads the guest console log written by scripts/guest.sh for
scripts/bench-guest.sh: one JSON record per run, base64 between
"@@OUT-BEGIN@@" and "@@OUT-END@@" lines. Writes, in --outdir:
  suite: report.md, results.json, bench.png (gnuplot, if installed)
  hunt:  hunt.md, hunt.json
and prints the Markdown on stdout. Standard library only.

A run counts only if it has no error and its verification passed (hunt runs
have no per-run verification; their geometry gets a parity check).
Exit status: 0 every expected run present and verified, 1 otherwise.
"""
import argparse
import base64
import binascii
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

MIB = 1048576.0
SECTOR = 512
KERNEL_TS = re.compile(r"^\[ *\d+\.\d+\]")
ARRAY_ORDER = ["raid456", "raid456t", "raid456u", "raid5x", "raid0"]
# raid5x / BASE ratio columns: (column title, BASE)
RATIO_COLS = [("x/456", "raid456"), ("x/456t", "raid456t"), ("x/456u", "raid456u"),
              ("x/r0", "raid0")]
# the best safe raid456 of a job (every raid456 kind of the group but the
# unsafe raid456u), a column of its own: BEST + the @ group
BEST = "456best"
SUITE_JOBS = [
    "seq-write-2M-buffered", "seq-write-fullstripe", "seq-write-1M",
    "seq-write-64K", "seq-write-100K", "rand-write-4K", "rand-rw-70-30-4K",
    "seq-read-8K-x4", "ext4-copy",
]
# counters shown in the Markdown table (results.json has all of them)
COUNTER_COLS = [
    ("preread_blocks", "preread blk"), ("read_blocks", "read blk"),
    ("write_blocks", "write blk"), ("rmw_stripes", "rmw"),
    ("rcw_stripes", "rcw"), ("full_stripes", "full"),
    ("nocopy_blocks", "uncopied blk"), ("delayed", "delayed"),
    ("activated", "activated"), ("activated_aged", "aged"),
    ("activated_full", "full parked"),
    ("activated_pressure", "pressure"), ("activated_idle", "idle"),
    ("delay_walks", "walks"), ("bypassed", "bypassed"), ("plugs", "plugs"),
    ("plugged_stripes", "plugged"), ("cache_waits", "cache waits"),
    ("aligned_reads", "aligned rd"), ("sync_stripes", "sync"),
    ("bm_stripes", "bm stripes"), ("bm_flushes", "bm flushes"),
]


def parse_log(path):
    """Records from the console log; (records, number of broken blocks)."""
    recs, broken = [], 0
    inb, buf = False, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if "@@OUT-BEGIN@@" in line:
                inb, buf = True, []
                continue
            if "@@OUT-END@@" in line:
                if inb:
                    try:
                        data = base64.b64decode("".join(buf), validate=False)
                        for l in data.decode(errors="replace").splitlines():
                            if l.strip():
                                recs.append(json.loads(l))
                    except (binascii.Error, ValueError):
                        broken += 1
                inb = False
                continue
            if inb and not KERNEL_TS.match(line):
                buf.append(line.strip())
    return recs, broken


def median(v):
    return statistics.median(v) if v else None


def fio_job(run):
    fio = run.get("fio")
    if not fio or not fio.get("jobs"):
        return None
    return fio["jobs"][0]


def run_metrics(run):
    """Derived numbers of one run."""
    m = {}
    job = fio_job(run)
    if run.get("ext4"):
        e = run["ext4"]
        m["mibs"] = e["bytes"] / MIB / e["seconds"] if e["seconds"] else None
        m["array_read_mib"] = 0.0
        m["array_write_mib"] = e["bytes"] / MIB
    elif job:
        bw = sum(j[d]["bw_bytes"] for j in run["fio"]["jobs"] for d in ("read", "write"))
        m["mibs"] = bw / MIB
        m["array_read_mib"] = sum(j["read"]["io_bytes"] for j in run["fio"]["jobs"]) / MIB
        m["array_write_mib"] = sum(j["write"]["io_bytes"] for j in run["fio"]["jobs"]) / MIB
        for d in ("read", "write"):
            p = job[d].get("clat_ns", {}).get("percentile", {})
            if job[d]["io_bytes"] and "99.000000" in p:
                m["p99_%s_ms" % d] = p["99.000000"] / 1e6
    else:
        m["mibs"] = None
    b, a = run.get("member_sectors_before"), run.get("member_sectors_after")
    if b and a:
        m["member_read_mib"] = (a[0] - b[0]) * SECTOR / MIB
        m["member_write_mib"] = (a[1] - b[1]) * SECTOR / MIB
    b, a = run.get("array_bios_before"), run.get("array_bios_after")
    if b and a:
        # bios md received (after the block layer's splits) and their size
        m["array_bios"] = {"read": a[0] - b[0], "write": a[2] - b[2]}
        m["array_bio_kib"] = {d: (a[i + 1] - b[i + 1]) * SECTOR / 1024.0 / n
                              for d, i, n in (("read", 0, a[0] - b[0]), ("write", 2, a[2] - b[2]))
                              if n}
    cb, ca = run.get("counters_before"), run.get("counters_after")
    if isinstance(cb, dict) and isinstance(ca, dict):
        m["counters"] = {k: ca[k] - cb.get(k, 0) for k in ca}
    prof = run.get("profile")
    mib = (m.get("array_read_mib") or 0) + (m.get("array_write_mib") or 0)
    if isinstance(prof, dict) and prof.get("hz") and mib:
        # CPU milliseconds per MiB of array I/O, by who ran and what
        by = prof.get("by", {})
        per = {c: 0.0 for c in PROFILE_COLS}
        for k, n in by.items():
            who, what = k.split("_", 1)
            col = who + "_" + what if who == "thread" else who
            if who == "submit" and what == "copy":
                col = "submit_copy"
            if col in per:
                per[col] += n * 1000.0 / prof["hz"] / mib
        m["profile"] = per
        # fio's I/O time, not the run's wall time (fio and perf start-up)
        rt = max((j.get("job_runtime") or 0 for j in run["fio"]["jobs"]), default=0) \
            if job else 0
        if rt:
            m["thread_busy"] = prof.get("thread_cpu_s", 0) * 1000.0 / rt
        if m.get("mibs"):
            # CPU time the guest had per MiB at this throughput
            m["profile_capacity"] = (run.get("cpus") or 2) * 1000.0 / m["mibs"]
    lk = run.get("locks")
    if isinstance(lk, dict) and mib:
        # --locks: contended acquisitions and their wait, per MiB of array I/O
        m["locks_per_mib"] = lk.get("contended", 0) / mib
        m["lock_wait_ms_per_mib"] = lk.get("wait_ms", 0) / mib
    return m


def run_ok(run):
    if run.get("error"):
        return False
    if run.get("mode") == "hunt":
        return run.get("fio") is not None
    v = run.get("verify")
    return isinstance(v, dict) and v.get("status") == "ok"


def fmt(v, nd=1):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "%.0f" % v
    return ("%." + str(nd) + "f") % v


def fmt_range(vals):
    if not vals:
        return "-"
    return "%s (%s-%s)" % (fmt(median(vals)), fmt(min(vals)), fmt(max(vals)))


def split_group(a):
    """(name, group): raid5x@bm4M -> ("raid5x", "@bm4M"); no @: group ""."""
    name, _, g = a.partition("@")
    return name, "@" + g if g else ""


def kind_of(a):
    """raid456+sys.x=1@bm -> raid456"""
    return split_group(a)[0].split("+", 1)[0]


def sort_arrays(names):
    """By @ group (none first), then ARRAY_ORDER; a variant NAME+... after
    NAME."""
    def key(a):
        name, g = split_group(a)
        base = name.split("+", 1)[0]
        return (g != "", g, ARRAY_ORDER.index(base) if base in ARRAY_ORDER else 99,
                name != base, name)
    return sorted(names, key=key)


def groups_of(arrays):
    """The @ groups, in report order ("" first)."""
    out = []
    for a in sort_arrays(arrays):
        g = split_group(a)[1]
        if g not in out:
            out.append(g)
    return out


def raid5x_kinds(arrays):
    """raid5x and its variants (raid5x+NAME=VAL: md-raid5x loaded with
    those module parameters), in report order."""
    return [a for a in sort_arrays(arrays) if kind_of(a) == "raid5x"]


def safe456(arrays, g):
    """The safe raid456 kinds of group g (raid456, raid456t, raid456+sys.*;
    not raid456u or any with skip_copy=1)."""
    return [a for a in sort_arrays(arrays) if split_group(a)[1] == g
            and kind_of(a) in ("raid456", "raid456t") and "skip_copy=1" not in a]


def ratio_cols(arrays):
    """The ratio columns (title, numerator, base) of each @ group: raid5x /
    each base of RATIO_COLS, / the best safe raid456 when two or more ran,
    each raid5x variant / raid456 and / raid5x; and for a bitmap group the
    bitmap's cost: raid5x@g / raid5x and raid456@g / raid456."""
    cols = []
    for g in groups_of(arrays):
        x = "raid5x" + g
        cols += [(t + g, x, b + g) for t, b in RATIO_COLS if x in arrays and b + g in arrays]
        if x in arrays and len(safe456(arrays, g)) >= 2:
            cols.append(("x/" + BEST + g, x, BEST + g))
        vs = [v for v in raid5x_kinds(arrays) if split_group(v)[1] == g and v != x]
        for v in vs:
            short = split_group(v)[0].replace("raid5x", "x", 1) + g
            cols += [(short + "/456", v, "raid456" + g)] if "raid456" + g in arrays else []
            cols += [(short + "/x", v, x)] if x in arrays else []
        if g:
            cols += [("x%s/x" % g, x, "raid5x")] if x in arrays and "raid5x" in arrays else []
            cols += [("456%s/456" % g, "raid456" + g, "raid456")] \
                if "raid456" + g in arrays and "raid456" in arrays else []
    return cols


def best_safe(per, arrays):
    """{BEST+g: (median, array)} for each group with two or more safe raid456
    kinds: the one with the highest median in this job."""
    out = {}
    for g in groups_of(arrays):
        safe = safe456(arrays, g)
        cands = [(per[a]["mibs_median"], a) for a in safe
                 if a in per and per[a]["mibs_median"] is not None]
        if len(safe) >= 2 and cands:
            out[BEST + g] = max(cands)
    return out


def aggregate(runs):
    """{job: {array: summary}} over verified runs."""
    out = {}
    for r in runs:
        out.setdefault(r["job"], {}).setdefault(r["array"], []).append(r)
    summary = {}
    for job, per in out.items():
        summary[job] = {}
        for arr, rs in per.items():
            good = [r for r in rs if run_ok(r)]
            ms = [run_metrics(r) for r in good]
            s = {
                "runs": len(rs), "verified": len(good),
                "failed": [{"rep": r.get("rep"), "error": r.get("error"),
                            "verify": r.get("verify")} for r in rs if not run_ok(r)],
                "mibs": [m["mibs"] for m in ms if m.get("mibs") is not None],
            }
            s["mibs_median"] = median(s["mibs"])
            s["mibs_min"] = min(s["mibs"]) if s["mibs"] else None
            s["mibs_max"] = max(s["mibs"]) if s["mibs"] else None
            for k in ("p99_read_ms", "p99_write_ms", "member_read_mib", "member_write_mib",
                      "array_read_mib", "array_write_mib"):
                s[k] = median([m[k] for m in ms if m.get(k) is not None])
            ps = [m["profile"] for m in ms if "profile" in m]
            if ps:
                s["profile"] = {k: median([p[k] for p in ps]) for k in PROFILE_COLS}
                s["thread_busy"] = median([m["thread_busy"] for m in ms if "thread_busy" in m])
                s["profile_capacity"] = median([m["profile_capacity"] for m in ms
                                                if "profile_capacity" in m])
                s["profile_top"] = next((r["profile"].get("top") for r in good
                                         if isinstance(r.get("profile"), dict)), None)
            if any("locks_per_mib" in m for m in ms):
                s["locks_per_mib"] = median([m["locks_per_mib"] for m in ms
                                             if "locks_per_mib" in m])
                s["lock_wait_ms_per_mib"] = median([m["lock_wait_ms_per_mib"] for m in ms
                                                    if "lock_wait_ms_per_mib" in m])
                s["locks_top"] = next((r["locks"].get("top") for r in good
                                       if isinstance(r.get("locks"), dict)), None)
            for d in ("read", "write"):
                s["bios_" + d] = median([m["array_bios"][d] for m in ms if "array_bios" in m])
                s["bio_kib_" + d] = median([m["array_bio_kib"][d] for m in ms
                                            if d in m.get("array_bio_kib", {})])
            cs = [m["counters"] for m in ms if "counters" in m]
            if cs:
                s["counters"] = {k: median([c.get(k, 0) for c in cs]) for k in cs[0]}
            summary[job][arr] = s
    return summary


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


# ---------------------------------------------------------------------------
# suite


def tuned_note(header, arrays):
    """The sentences that say what raid456t and raid456u are, when they ran."""
    kinds = {kind_of(a) for a in arrays}
    out = ""
    if "raid456t" in kinds:
        t = header.get("tuned456") or "stripe_cache_size:4096,skip_copy:1,group_thread_cnt:2"
        out += (" raid456t = raid456 %s: md/%s written after creation and read "
                "back (Settings below); x/456t = raid5x%s / raid456t."
                % ("at its best tuning" if "skip_copy:1" in t else "at a safe tuning",
                   ", md/".join(kv.replace(":", " ") for kv in t.split(",")),
                   "" if header.get("tune") else " at its defaults"))
    if "raid456u" in kinds:
        u = header.get("unsafe456") or "stripe_cache_size:4096,skip_copy:1,group_thread_cnt:2"
        out += (" raid456u = raid456 with md/%s: UNSAFE for O_DIRECT writers (with skip_copy "
                "md writes the writer's own page and computes parity from it; a page the "
                "program changes in flight leaves parity that no longer matches the data), "
                "shown for reference, not a bar." % ", md/".join(kv.replace(":", " ")
                                                         for kv in u.split(",")))
    return out


def group_note(arrays):
    """What the @ groups are, when any ran."""
    gs = [g for g in groups_of(arrays) if g]
    if not gs:
        return ""
    return (" NAME@bm: an internal write-intent bitmap with mdadm's default chunk, "
            "@bmSIZE: with a SIZE bitmap chunk, NAME@ll: md's lockless bitmap (llbitmap; "
            "md-mod rebuilt with it, every array of the boot on that md-mod); "
            "each @ group's ratios compare arrays "
            "of that group, and x@g/x and 456@g/456 are the bitmap's cost (with / without: "
            "1.00 = no cost).")


def suite_report(recs, meta, outdir):
    header = next((r for r in recs if r.get("type") == "header"), {})
    footer = next((r for r in recs if r.get("type") == "footer"), None)
    runs = [r for r in recs if r.get("type") == "run" and r.get("mode") == "suite"]
    for r in runs:
        r.setdefault("cpus", int(header.get("cpus") or 2))
    summary = aggregate(runs)
    jobs = [j for j in SUITE_JOBS if j in summary] + sorted(j for j in summary if j not in SUITE_JOBS)
    arrays = sort_arrays({r["array"] for r in runs})
    total = runs[-1]["total"] if runs else 0
    lines = []
    geo = runs[0]["geometry"] if runs else {}
    delay = str(geo.get("member_delay", 0))
    lines.append("## raid5x benchmark on Linux %s: %s members, %s KiB chunk, %s MiB members, %s reps%s"
                 % (header.get("kernel", "?"),
                    geo.get("members", "?"), geo.get("chunk_kb", "?"), geo.get("member_mb", "?"),
                    header.get("reps", "?"),
                    "" if delay == "0" else ", members behind dm-delay (read:write ms %s%s)"
                    % (delay, "" if ":" in delay else ":0"))
                 + ("" if (header.get("bitmap") or "none") == "none" else
                    ", internal bitmap (%s) on every RAID5 array without an @ part"
                    % ("mdadm's default chunk" if header["bitmap"] == "bm"
                       else header["bitmap"][2:] + " chunk")))
    lines.append("")
    lines.append("MiB/s: median (min-max) of verified runs; ratios of medians; p99 = fio "
                 "completion latency (write, or read for read jobs; read/write for the mix); "
                 "member MiB = sectors read/written summed over the array's loop devices "
                 "(median per run).%s%s" % (tuned_note(header, arrays), group_note(arrays)))
    lines.append("")
    cols = ["job"] + ["%s MiB/s" % a for a in arrays]
    rcols = ratio_cols(arrays)
    cols += [t for t, _, _ in rcols]
    cols += ["p99 ms " + "/".join(arrays), "member rd MiB " + "/".join(arrays),
             "member wr MiB " + "/".join(arrays)]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    for job in jobs:
        per = summary[job]
        row = [job]
        for a in arrays:
            s = per.get(a)
            row.append(fmt_range(s["mibs"]) if s else "-")
        med = {a: per[a]["mibs_median"] if a in per else None for a in arrays}
        med.update({k: v[0] for k, v in best_safe(per, arrays).items()})
        for _, x, b in rcols:
            row.append(fmt(ratio(med.get(x), med.get(b)), 2))

        def p99(s):
            if not s:
                return "-"
            r, w = s.get("p99_read_ms"), s.get("p99_write_ms")
            if r is not None and w is not None:
                return "%s/%s" % (fmt(r, 2), fmt(w, 2))
            return fmt(w if w is not None else r, 2)
        row.append(" / ".join(p99(per.get(a)) for a in arrays))
        row.append(" / ".join(fmt(per[a]["member_read_mib"]) if a in per else "-" for a in arrays))
        row.append(" / ".join(fmt(per[a]["member_write_mib"]) if a in per else "-" for a in arrays))
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    best_rows = [(j, best_safe(summary[j], arrays)) for j in jobs]
    if any(b for _, b in best_rows):
        pools = "; ".join(", ".join(safe456(arrays, g)) for g in groups_of(arrays)
                          if len(safe456(arrays, g)) >= 2)
        lines.append("Best safe raid456 per job (" + BEST + ": the highest median of "
                     + pools + (", within its bitmap group" if len(groups_of(arrays)) > 1
                                else "") + "):")
        lines.append("")
        for j, b in best_rows:
            lines.append("- %s: %s" % (j, "; ".join("%s %s MiB/s (%s)" % (k, fmt(v[0]), v[1])
                                                   for k, v in sorted(b.items()))))
        lines.append("")
    # the bios md received: how the block layer split the job's I/O
    if any(summary[j][a].get("bios_write") or summary[j][a].get("bios_read")
           for j in jobs for a in summary[j]):
        lines.append("Bios md0 received per run, after the block layer split them to its queue "
                     "limits (median: count x KiB per bio; writes, then reads where the job "
                     "reads):")
        lines.append("")
        lines.append("| job | " + " | ".join(arrays) + " |")
        lines.append("|---|" + "---|" * len(arrays))
        for j in jobs:
            cells = []
            for a in arrays:
                s = summary[j].get(a, {})
                c = ["%s x %s" % (fmt(s.get("bios_" + d), 0), fmt(s.get("bio_kib_" + d), 0))
                     for d in ("write", "read") if s.get("bios_" + d)]
                cells.append(" / ".join(c) or "-")
            lines.append("| %s | %s |" % (j, " | ".join(cells)))
        lines.append("")
    # raid5x counters (and each variant's)
    for x in raid5x_kinds(arrays):
        if not any("counters" in summary[j].get(x, {}) for j in jobs):
            continue
        present = [(k, t) for k, t in COUNTER_COLS
                   if any(summary[j].get(x, {}).get("counters", {}).get(k) for j in jobs)]
        lines.append("%s counter deltas per run (median; blocks are 4 KiB; all counters in "
                     "results.json):" % x)
        lines.append("")
        lines.append("| job | " + " | ".join(t for _, t in present) + " |")
        lines.append("|---|" + "---|" * len(present))
        for j in jobs:
            c = summary[j].get(x, {}).get("counters")
            if c is None:
                continue
            lines.append("| %s | %s |" % (j, " | ".join(fmt(c.get(k), 0) for k, _ in present)))
        lines.append("")
    lines += profile_lines(summary, jobs, arrays)
    lines += lock_lines(summary, jobs, arrays)
    notes = suite_notes(summary, jobs)
    if notes:
        lines.append("Observations (automatic):")
        lines.append("")
        lines += ["- " + n for n in notes]
        lines.append("")
    # verification
    bad = [r for r in runs if not run_ok(r)]
    nver = sum(1 for r in runs if run_ok(r))
    lines.append("Verification: %d of %d runs verified (data check on every run; parity check: %s)%s."
                 % (nver, len(runs), header.get("check", "?"),
                    "" if len(runs) == total else "; %d runs expected, %d found" % (total, len(runs))))
    for r in bad:
        lines.append("- FAILED: %s %s rep %s: %s" % (
            r["array"], r["job"], r.get("rep"),
            r.get("error") or json.dumps(r.get("verify"))))
    checks = [r["verify"] for r in runs if isinstance(r.get("verify"), dict)
              and r["verify"].get("parity") in ("ok", "fail")]
    if checks:
        lines.append("Parity checks: %d, all mismatch_cnt 0: %s; median %.1f s each."
                     % (len(checks), "yes" if all(c["parity"] == "ok" for c in checks) else "NO",
                        median([c["parity_seconds"] for c in checks
                                if isinstance(c.get("parity_seconds"), (int, float))] or [0])))
    st_line, st_ok = selftest_line(recs)
    lines.append(st_line)
    lines.append("")
    lines += version_lines(header, footer, meta, recs)
    md = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write(md)
    result = {
        "meta": meta, "header": header, "footer": footer,
        "summary": summary, "jobs": jobs, "arrays": arrays,
        "best_safe_raid456": {j: best_safe(summary[j], arrays) for j in jobs},
        "runs": [dict(r, metrics=run_metrics(r), counts=run_ok(r)) for r in runs],
    }
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    sys.stdout.write(md)
    png = chart(summary, jobs, arrays, outdir, lines[0].lstrip("# "))
    print("\nResults: %s, %s%s" % (os.path.join(outdir, "report.md"),
                                   os.path.join(outdir, "results.json"),
                                   ", " + png if png else " (no chart: gnuplot failed or missing)"))
    ok = runs and not bad and len(runs) == total and footer is not None and st_ok
    return 0 if ok else 1


# (idle is not a column: cpu-clock samples an idle TCG guest CPU far less
# often than a busy one; the busy samples of the md thread match its CPU time
# in /proc within a few percent)
PROFILE_COLS = ["thread_copy", "thread_xor", "thread_other", "submit", "submit_copy",
                "worker", "other"]
PROFILE_TITLES = ["md thread: copy", "md thread: XOR", "md thread: rest", "fio (submit)",
                  "fio: copy", "kernel workers (loop)", "other"]


def profile_lines(summary, jobs, arrays):
    """--profile: where each array's CPU time went, per MiB of array I/O."""
    rows = [(j, a) for j in jobs for a in arrays if "profile" in summary[j].get(a, {})]
    if not rows:
        return []
    out = ["Where the CPU went (--profile): CPU ms per MiB of array I/O from perf cpu-clock "
           "samples on every guest CPU (whole run: fio's start-up is in \"fio\"), median "
           "per run. \"md thread busy\" = its CPU time (/proc) over fio's I/O time, 100% = "
           "one CPU (raid0 has none); \"CPU at this rate\" = guest CPUs x time per MiB, "
           "what busy could reach:", ""]
    out.append("| job | array | MiB/s | md thread busy | " + " | ".join(PROFILE_TITLES)
               + " | busy | CPU at this rate |")
    out.append("|---|---|---|---|" + "---|" * (len(PROFILE_COLS) + 2))
    for j, a in rows:
        s = summary[j][a]
        p = s["profile"]
        tb = s.get("thread_busy")
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            j, a, fmt(s["mibs_median"]), "-" if tb is None or a == "raid0" else "%.0f%%" % (100 * tb),
            " | ".join(fmt(p[k], 2) for k in PROFILE_COLS), fmt(sum(p.values()), 2),
            fmt(s.get("profile_capacity"), 2)))
    out.append("")
    for j, a in rows:
        top = summary[j][a].get("profile_top")
        if a != "raid0" and top:
            for who, title in (("thread", "md thread's top symbols"),
                               ("submit", "fio's top symbols"),
                               ("worker", "kernel workers' (loop, flusher) top symbols"),
                               ("other", "the other commands, busiest first")):
                t = [(sym, n) for w, sym, n in top if w == who]
                if t:
                    out.append("- %s %s, %s (samples): %s" % (
                        j, a, title, ", ".join("%s %d" % x for x in t[:10])))
    out.append("")
    return out


def lock_lines(summary, jobs, arrays):
    """--locks: lock contention per MiB of array I/O and who waited."""
    rows = [(j, a) for j in jobs for a in arrays if "locks_per_mib" in summary[j].get(a, {})]
    if not rows:
        return []
    out = ["Lock contention (--locks): from the kernel's lock:contention_begin/end "
           "tracepoints under `perf lock record -a`, every lock of the guest, median per "
           "run; wait = time spent waiting for contended locks (spinning or sleeping):", ""]
    out.append("| job | array | MiB/s | contended per MiB | wait ms per MiB |")
    out.append("|---|---|---|---|---|")
    for j, a in rows:
        s = summary[j][a]
        out.append("| %s | %s | %s | %s | %s |" % (
            j, a, fmt(s["mibs_median"]), fmt(s["locks_per_mib"], 2),
            fmt(s["lock_wait_ms_per_mib"], 3)))
    out.append("")
    for j, a in rows:
        top = summary[j][a].get("locks_top")
        if top:
            out.append("- %s %s, longest waits (one run; type caller: contended, total "
                       "ms, max ms): %s" % (j, a, "; ".join(
                           "%s %s: %d, %.3f, %.3f" % tuple(t) for t in top[:6])))
    out.append("")
    return out


def suite_notes(summary, jobs):
    """Things the module author should look at."""
    notes = []
    for j in jobs:
        per = summary[j]
        x, z = per.get("raid5x"), per.get("raid0")
        if not x or x["mibs_median"] is None:
            continue
        c = x.get("counters") or {}
        is_write = j.startswith("seq-write") or j == "ext4-copy"
        if is_write and c.get("preread_blocks"):
            notes.append("%s: raid5x pre-read %d blocks (%.1f MiB) in a sequential write job "
                         "(member reads %.1f MiB; raid456 %s MiB)"
                         % (j, c["preread_blocks"], c["preread_blocks"] * 4096 / MIB,
                            x.get("member_read_mib") or 0,
                            fmt(per["raid456"].get("member_read_mib")) if "raid456" in per else "-"))
        # against raid456 at its defaults, then at its best tuning
        for b in ("raid456", "raid456t"):
            o = per.get(b)
            if not o or not o["mibs_median"]:
                continue
            spread = len(x["mibs"]) >= 2 and len(o["mibs"]) >= 2
            r = x["mibs_median"] / o["mibs_median"]
            if spread and x["mibs_max"] < o["mibs_min"]:
                notes.append("%s: raid5x slower than %s beyond the run-to-run spread (%.2fx)"
                             % (j, b, r))
            elif spread and x["mibs_min"] > o["mibs_max"]:
                notes.append("%s: raid5x faster than %s beyond the run-to-run spread (%.2fx)"
                             % (j, b, r))
            for d in ("write", "read"):
                px, po = x.get("p99_%s_ms" % d), o.get("p99_%s_ms" % d)
                if px and po and px > 1.5 * po:
                    notes.append("%s: raid5x p99 %s latency %.2f ms vs %s %.2f ms"
                                 % (j, d, px, b, po))
            mx, mo = x.get("member_read_mib"), o.get("member_read_mib")
            if mx is not None and mo is not None and mx > mo * 1.5 + 1:
                notes.append("%s: raid5x member reads %.1f MiB vs %s %.1f MiB" % (j, mx, b, mo))
        if is_write and z and z["mibs_median"] and x["mibs_median"] > z["mibs_median"] * 1.05:
            notes.append("%s: raid5x above the raid0 ceiling (%.2fx)"
                         % (j, x["mibs_median"] / z["mibs_median"]))
        if is_write and c.get("delayed") and c.get("activated"):
            notes.append("%s: raid5x delayed %d stripes; %d activated (aged %d, idle %d, "
                         "pressure %d), rcw %d vs full %d stripes"
                         % (j, c["delayed"], c["activated"], c.get("activated_aged", 0),
                            c.get("activated_idle", 0), c.get("activated_pressure", 0),
                            c.get("rcw_stripes", 0), c.get("full_stripes", 0)))
        if c.get("activated_full"):
            notes.append("%s: raid5x found %d full stripes parked on the delayed list "
                         "(a full stripe never waits: a bug)" % (j, c["activated_full"]))
        if c.get("cache_waits"):
            notes.append("%s: raid5x submitters waited for a free stripe %d times"
                         % (j, c["cache_waits"]))
    return notes


def selftest_line(recs):
    """The parity-check self-test result; (line, ok)."""
    st = [r for r in recs if r.get("type") == "selftest"]
    if not st:
        return "Parity-check self-test: not run.", True
    ok = all(r.get("ok") is True for r in st)
    return ("Parity-check self-test (4 KiB planted behind md's back must give mismatch_cnt > 0): "
            "%s: %s." % ("ok" if ok else "FAILED",
                         ", ".join("%s mismatch_cnt %s" % (r["array"], r["mismatch_cnt"])
                                   for r in st))), ok


def settings_line(recs):
    """Array settings as run: raid5x tunables and raid456's stripe cache."""
    seen = {}
    for r in recs:
        if r.get("type") == "run" and isinstance(r.get("tunables"), dict) and r["array"] not in seen:
            seen[r["array"]] = r["tunables"]
    parts = []
    for a in sort_arrays(seen):
        t = seen[a]
        if not t:
            continue
        parts.append("%s %s" % (a, " ".join("%s=%s" % kv for kv in sorted(t.items()))))
    return "Settings: " + ("; ".join(parts) if parts else "?")


def first_dicts(recs, key):
    """{array: the dict KEY of its first run record that has one}"""
    seen = {}
    for r in recs:
        if r.get("type") == "run" and isinstance(r.get(key), dict) and r["array"] not in seen:
            seen[r["array"]] = r[key]
    return seen


def dicts_line(title, seen):
    return title + "; ".join(
        "%s %s" % (a, " ".join("%s=%s" % kv for kv in sorted(seen[a].items())))
        for a in sort_arrays(seen))


def queue_line(recs):
    """Each array's queue limits as its first run set them up (None for
    records from before they were recorded)."""
    seen = first_dicts(recs, "queue")
    return dicts_line("Queue limits (/sys/block/md0/queue): ", seen) if seen else None


def params_line(recs):
    """md-raid5x's module parameters per raid5x array, when variants
    (raid5x+NAME=VAL) ran."""
    seen = first_dicts(recs, "module_params")
    if len(seen) < 2:
        return None
    return dicts_line("md-raid5x parameters as loaded for each array: ", seen)


def version_lines(header, footer, meta, recs=()):
    mod = header.get("module") or {}
    params = header.get("module_params") or {}
    # extra guest command line: bench.sh --append (a rebuilt report: the
    # module parameters among the guest's command line)
    append = meta.get("guest_append") or " ".join(
        w for w in str(header.get("cmdline", "")).split() if w.startswith("md_raid5x."))
    out = ["Command: `%s`" % meta.get("command", "?"),
           settings_line(recs)]
    out += [l for l in (queue_line(recs), params_line(recs)) if l]
    out += ["Guest kernel: %s%s; module md-raid5x srcversion %s (sha256 %s, git %s), vermagic %s%s"
            % (header.get("kernel", "?"),
               " (command line + `%s`)" % append if append else "",
               mod.get("srcversion") or meta.get("module_srcversion", "?"),
               meta.get("module_sha256", "?"), meta.get("git", "?"),
               (mod.get("vermagic") or meta.get("module_vermagic", "?")).strip(),
               "; parameters " + " ".join("%s=%s" % kv for kv in sorted(params.items()))
               if params else ""),
            "Tools: %s, mdadm %s, %s; guest %s CPUs, %s MiB RAM, dirty_bytes %s; TCG"
            % (header.get("fio", "?"), (header.get("mdadm", "?").split(" - ") + ["", ""])[1],
               meta.get("qemu", "qemu ?"), header.get("cpus", "?"),
               int(header["mem_kb"]) // 1024 if header.get("mem_kb") else "?",
               header.get("dirty_bytes", "?")),
            "Host load average before/after: %s / %s; started %s; guest time %s s%s"
            % (meta.get("host_loadavg_before", "?"), meta.get("host_loadavg_after", "?"),
               meta.get("started", "?"), fmt(footer["elapsed_s"], 0) if footer else "?",
               "" if footer else " (INCOMPLETE: the guest did not finish)")]
    return [l + "  " for l in out[:-1]] + out[-1:]


def gnuplot_terminal():
    try:
        t = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True,
                           text=True, timeout=30)
        return "pngcairo" if "pngcairo" in (t.stdout + t.stderr) else "png"
    except (OSError, subprocess.SubprocessError):
        return None


def chart(summary, jobs, arrays, outdir, title):
    if not shutil.which("gnuplot") or not any(
            s.get("mibs_median") is not None for j in jobs for s in summary[j].values()):
        return None
    term = gnuplot_terminal()
    if not term:
        return None
    dat = os.path.join(outdir, "bench.dat")
    with open(dat, "w") as f:
        f.write("# job " + " ".join("%s_med %s_min %s_max" % (a, a, a) for a in arrays)
                + " x456 x456t xr0\n")
        for j in jobs:
            row = [j]
            for a in arrays:
                s = summary[j].get(a)
                for k in ("mibs_median", "mibs_min", "mibs_max"):
                    row.append("?" if not s or s[k] is None else "%.2f" % s[k])
            med = {a: summary[j][a]["mibs_median"] if a in summary[j] else None for a in arrays}
            for r in (ratio(med.get("raid5x"), med.get(b)) for _, b in RATIO_COLS):
                row.append("?" if r is None else "%.3f" % r)
            f.write(" ".join(row) + "\n")
    png = os.path.join(outdir, "bench.png")
    colors = {"raid456": "#4477aa", "raid456t": "#66ccee", "raid456u": "#ccbb44", "raid5x": "#ee6677",
              "raid0": "#aaaaaa"}
    plots = []
    for i, a in enumerate(arrays):
        c = 2 + 3 * i
        plots.append("'%s' using %d:%d:%d%s title '%s' lc rgb '%s'"
                     % (dat, c, c + 1, c + 2, ":xtic(1)" if i == 0 else "", a,
                        colors.get(a, "#228833")))
    rc = 2 + 3 * len(arrays)
    rplots = []
    for i, (_, b) in enumerate(RATIO_COLS):
        if "raid5x" in arrays and b in arrays:
            rplots.append("'%s' using %d%s title 'raid5x / %s' lc rgb '%s'"
                          % (dat, rc + i, "" if rplots else ":xtic(1)", b, colors.get(b, "#228833")))
    script = """
set terminal %s size 1400,1000 noenhanced font ",10"
set output '%s'
set datafile missing '?'
set multiplot layout 2,1 title "%s"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top right
set xtics rotate by -20 scale 0
set xrange [-0.6:%.1f]
set ylabel 'MiB/s (median, bar = min-max)'
set yrange [0:*]
plot %s
""" % (term, png, title.replace('"', "'"), len(jobs) - 0.4, ", ".join(plots))
    if rplots:
        script += """
set style histogram clustered gap 2
set ylabel 'ratio of medians'
set yrange [0:*]
plot %s, 1 with lines dt 2 lc rgb 'black' notitle
""" % ", ".join(rplots)
    script += "unset multiplot\n"
    gp = os.path.join(outdir, "bench.gp")
    with open(gp, "w") as f:
        f.write(script)
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write("bench-report: gnuplot failed: %s\n" % r.stderr.strip()[-500:])
        return None
    return png


# ---------------------------------------------------------------------------
# hunt


# hunt cell keys of raid5x against each baseline: (ratio, verdict)
HUNT_KEYS = {"raid456": ("ratio", "verdict"), "raid456t": ("ratio_456t", "verdict_456t")}


def hunt_report(recs, meta, outdir):
    header = next((r for r in recs if r.get("type") == "header"), {})
    footer = next((r for r in recs if r.get("type") == "footer"), None)
    runs = [r for r in recs if r.get("type") == "run" and r.get("mode") == "hunt"]
    checks = [r for r in recs if r.get("type") == "hunt_check"]
    total = runs[-1]["total"] if runs else 0
    # the baselines raid5x met: raid456 and/or raid456t (--hunt-arrays)
    bases = [b for b in HUNT_KEYS if any(r["array"] == b for r in runs)] or ["raid456"]
    cells = {}
    for r in runs:
        g = r["geometry"]
        # by label: "fs" stays its own cell even where it equals 1m
        key = (g["members"], g["chunk_kb"], r["rw"], r["bs_bytes"], r["bs"], r["qd"])
        c = cells.setdefault(key, {"members": g["members"], "chunk_kb": g["chunk_kb"],
                                   "rw": r["rw"], "bs": r["bs"], "bs_bytes": r["bs_bytes"],
                                   "qd": r["qd"], "runs": {}})
        c["runs"].setdefault(r["array"], []).append(r)
    out_cells = []
    for key in sorted(cells):
        c = cells[key]
        e = {k: v for k, v in c.items() if k != "runs"}
        for a, rs in c["runs"].items():
            ms = [run_metrics(r) for r in rs if run_ok(r)]
            e[a] = {
                "mibs": [m["mibs"] for m in ms if m.get("mibs") is not None],
                "errors": [r.get("error") for r in rs if not run_ok(r)],
                "member_read_mib_per_gib": median([m["member_read_mib"] / m["array_write_mib"] * 1024
                                                   for m in ms if m.get("array_write_mib")]),
                "member_write_mib_per_gib": median([m["member_write_mib"] / m["array_write_mib"] * 1024
                                                    for m in ms if m.get("array_write_mib")]),
                "p99_write_ms": median([m["p99_write_ms"] for m in ms if m.get("p99_write_ms")]),
            }
            cs = [m["counters"] for m in ms if "counters" in m]
            if cs:
                # per GiB written, so cells of different throughput compare
                per = []
                for m in ms:
                    if "counters" in m and m.get("array_write_mib"):
                        per.append({k: v * 1024 / m["array_write_mib"] for k, v in m["counters"].items()})
                e[a]["counters_per_gib"] = {k: median([p[k] for p in per]) for k in per[0]} if per else None
            v = e[a]["mibs"]
            e[a]["median"] = median(v)
            e[a]["min"] = min(v) if v else None
            e[a]["max"] = max(v) if v else None
        # ratio/verdict: raid5x vs raid456; ratio_456t/verdict_456t: vs raid456t
        x = e.get("raid5x")
        e["ratio"], e["verdict"] = None, "incomplete"
        for b in bases:
            o = e.get(b)
            rk, vk = HUNT_KEYS[b]
            e[rk] = ratio(x["median"] if x else None, o["median"] if o else None)
            e[vk] = "incomplete"
            if x and o and (len(x["mibs"]) < 2 or len(o["mibs"]) < 2):
                e[vk] = "n<2"
            elif x and o:
                if x["max"] < o["min"]:
                    e[vk] = "slower"
                elif x["min"] > o["max"]:
                    e[vk] = "faster"
                else:
                    e[vk] = "overlap"
        out_cells.append(e)

    def cell_name(e):
        return "%s disks, %s KiB chunk, %s write bs=%s qd%s" % (
            e["members"], e["chunk_kb"], e["rw"], e["bs"] if e["bs"] != "fs" else
            "fs(%dK)" % (e["bs_bytes"] // 1024), e["qd"])

    def side(e, a):
        s = e.get(a) or {}
        return "%s (%s-%s)" % (fmt(s.get("median")), fmt(s.get("min")), fmt(s.get("max")))
    bm = header.get("bitmap") or "none"
    lines = ["## raid5x counter-example hunt (seed 003) on Linux %s: raid5x vs %s%s"
             % (header.get("kernel", "?"), " and ".join(bases),
                "" if bm == "none" else ", every array with an internal bitmap (%s)"
                % ("mdadm's default chunk" if bm == "bm" else bm[2:] + " chunk")), ""]
    lines.append("Cells: %d (members %s x chunk %s KiB x %d rw/bs/qd cells), %d reps each, %s s "
                 "time-based fio per run, %s alive at once, alternating per cell. A "
                 "counter-example is a cell where every raid5x run is slower than every run of "
                 "the other array (no min-max overlap).%s"
                 % (len(out_cells), header.get("hunt_members", "?"),
                    header.get("hunt_chunks", "?"),
                    len(str(header.get("hunt_cells", "")).split(",")),
                    header.get("hunt_reps", 0), header.get("hunt_runtime_s", "?"),
                    ", ".join(sort_arrays({r["array"] for r in runs})) or "the arrays",
                    tuned_note(header, bases)))
    lines.append("")
    slower_by = {}
    for b in bases:
        rk, vk = HUNT_KEYS[b]
        slower = sorted([e for e in out_cells if e[vk] == "slower"], key=lambda e: e[rk])
        slower_by[b] = slower
        faster = [e for e in out_cells if e[vk] == "faster"]
        overlap = [e for e in out_cells if e[vk] == "overlap"]
        lines.append("Counter-examples%s: %d; raid5x faster beyond the spread: %d; overlapping: %d; "
                     "fewer than 2 runs a side (no spread, no verdict): %d." % (
                         "" if bases == ["raid456"] else " against " + b,
                         len(slower), len(faster), len(overlap),
                         len(out_cells) - len(slower) - len(faster) - len(overlap)))
    lines.append("")
    for b in bases:
        rk, _ = HUNT_KEYS[b]
        for e in slower_by[b]:
            xs, os_ = e.get("raid5x", {}), e.get(b, {})
            extra = ""
            cx = xs.get("counters_per_gib") or {}
            if cx:
                extra = "; raid5x per GiB written: preread %s blk, rmw %s, rcw %s, full %s" % (
                    fmt(cx.get("preread_blocks"), 0), fmt(cx.get("rmw_stripes"), 0),
                    fmt(cx.get("rcw_stripes"), 0), fmt(cx.get("full_stripes"), 0))
            lines.append("- **%s**: raid5x %s vs %s %s MiB/s, ratio %s; member reads per GiB "
                         "written %s vs %s MiB; p99 %s vs %s ms%s"
                         % (cell_name(e), side(e, "raid5x"), b, side(e, b), fmt(e[rk], 2),
                            fmt(xs.get("member_read_mib_per_gib")),
                            fmt(os_.get("member_read_mib_per_gib")),
                            fmt(xs.get("p99_write_ms"), 2), fmt(os_.get("p99_write_ms"), 2), extra))
    if not any(slower_by.values()):
        lines.append("- none found")
    lines.append("")
    lines.append("All cells (MiB/s median (min-max)):")
    lines.append("")
    # raid456t's columns come last: the first ten keep their places
    # (scripts/plots.sh reads them by position)
    tcols = "raid456t" in bases
    lines.append("| members | chunk KiB | rw | bs | qd | raid456 | raid5x | x/456 | verdict | "
                 "member rd MiB/GiB 456/x |" + (" raid456t | x/456t | verdict 456t | "
                                                 "member rd MiB/GiB 456t |" if tcols else ""))
    lines.append("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|---|---|" if tcols else ""))
    for e in out_cells:
        row = "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |" % (
            e["members"], e["chunk_kb"], e["rw"],
            e["bs"] if e["bs"] != "fs" else "fs=%dK" % (e["bs_bytes"] // 1024), e["qd"],
            side(e, "raid456"), side(e, "raid5x"), fmt(e["ratio"], 2), e["verdict"],
            fmt((e.get("raid456") or {}).get("member_read_mib_per_gib")),
            fmt((e.get("raid5x") or {}).get("member_read_mib_per_gib")))
        if tcols:
            row += " %s | %s | %s | %s |" % (
                side(e, "raid456t"), fmt(e["ratio_456t"], 2), e["verdict_456t"],
                fmt((e.get("raid456t") or {}).get("member_read_mib_per_gib")))
        lines.append(row)
    lines.append("")
    badchk = [c for c in checks if c.get("mismatch_cnt") != 0]
    lines.append("Parity checks after each geometry (region written by the cells): %d, %s."
                 % (len(checks), "all mismatch_cnt 0" if not badchk else "FAILED: " + "; ".join(
                     "%s %s: mismatch_cnt %s" % (c["geometry"], c["array"], c["mismatch_cnt"])
                     for c in badchk)))
    errs = [r for r in runs if not run_ok(r)]
    for r in errs:
        lines.append("- ERROR: %s %s %s rep %s: %s" % (r["array"], r["geometry"], r["job"],
                                                      r.get("rep"), r.get("error")))
    if len(runs) != total:
        lines.append("- %d runs expected, %d found" % (total, len(runs)))
    st_line, st_ok = selftest_line(recs)
    lines.append(st_line)
    lines.append("")
    lines += version_lines(header, footer, meta, recs)
    md = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "hunt.md"), "w") as f:
        f.write(md)
    with open(os.path.join(outdir, "hunt.json"), "w") as f:
        json.dump({"meta": meta, "header": header, "footer": footer, "cells": out_cells,
                   "counter_examples": [cell_name(e) for e in slower_by.get("raid456", [])],
                   "counter_examples_456t": [cell_name(e) for e in slower_by.get("raid456t", [])],
                   "checks": checks,
                   "runs": [dict(r, metrics=run_metrics(r)) for r in runs]},
                  f, indent=1, sort_keys=True)
    # the terminal gets the summary and the counter-examples, not the big table
    print("\n".join(l for l in lines if not l.startswith("|") and l != "All cells (MiB/s median (min-max)):"))
    print("\nResults: %s (all cells), %s" % (os.path.join(outdir, "hunt.md"),
                                            os.path.join(outdir, "hunt.json")))
    ok = (runs and not errs and not badchk and len(runs) == total and footer is not None
          and st_ok)
    return 0 if ok else 1


class UsageParser(argparse.ArgumentParser):
    """argparse with the project's convention: a usage error exits 64."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(64, "%s: error: %s\n" % (self.prog, message))


def main():
    ap = UsageParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log", required=True, help="guest console log")
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--mode", choices=["suite", "hunt"], default=None)
    ap.add_argument("--meta", action="append", default=[], help="KEY=VALUE for the report")
    a = ap.parse_args()
    meta = dict(m.split("=", 1) for m in a.meta if "=" in m)
    recs, broken = parse_log(a.log)
    if broken:
        sys.stderr.write("bench-report: %d unreadable result blocks in %s\n" % (broken, a.log))
    if not recs:
        sys.stderr.write("bench-report: no results in %s\n" % a.log)
        return 1
    header = next((r for r in recs if r.get("type") == "header"), {})
    mode = a.mode or header.get("mode", "suite")
    os.makedirs(a.outdir, exist_ok=True)
    rc = hunt_report(recs, meta, a.outdir) if mode == "hunt" else suite_report(recs, meta, a.outdir)
    return 1 if broken else rc


if __name__ == "__main__":
    sys.exit(main())
