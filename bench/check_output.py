#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR GPL-2.0-only
"""CI check of dmapool-bench: run it in --short mode and check what it wrote.

Checks the shape and sanity of the output (every workload, case and
baseline present, linux-6.12 in every table, numbers finite, ratios
consistent, the targets table complete, the plot drawn as SVG and PNG),
never timing: a slow or noisy machine must not fail CI.  The benchmark
itself validates every block the allocators hand out before timing them and
exits non-zero when one is wrong, when dmapool reports anything, or when
valgrind or gnuplot is missing.

usage: check_output.py BENCH_BINARY OUTDIR
"""
import csv
import math
import os
import shutil
import subprocess
import sys

SHAPES = ["16/16/0", "64/64/0", "256/256/0", "1024/1024/0", "4096/4096/0",
          "68/32/4096"]
BASE = "linux-6.12"
BASELINES = [BASE, "linux-embedded", "linux-pagelist", "xarray-fix"]
DMAPOOL = ["dmapool", "dmapool-handle"]
PAIRED = ["dmapool_test", "random-free", "churn", "threads"]
# --short counts instructions for these only, on three cases.
ICOUNT_SUBJECTS = [BASE, "linux-embedded", "dmapool", "dmapool-handle"]
ICOUNT_SHAPES = ["16/16/0", "4096/4096/0", "68/32/4096"]
TARGETS = (["A1", "A2", "A3", "A4", "A5", "H1", "H2", "H3", "H4"] +
           ["O%d" % i for i in range(1, 7)] +
           ["T1", "T2", "T3", "T4", "P1", "P2", "P3", "P4"])
HEADER = ["workload", "case", "subject", "metric", "value", "min", "max",
          "ratio", "ratio_min", "ratio_max", "ratio_to", "vs_default",
          "vs_default_min", "vs_default_max", "reps"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def num(s):
    return float(s) if s != "" else None


def close(a, b, rel=1e-3):
    return abs(a - b) <= rel * max(1.0, abs(b))


def main():
    bench, outdir = sys.argv[1], sys.argv[2]
    shutil.rmtree(outdir, ignore_errors=True)
    proc = subprocess.run([bench, "--short", "--quiet", "--out", outdir],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=540)
    out = proc.stdout
    sys.stdout.write(out)
    check(proc.returncode == 0, f"dmapool-bench exited {proc.returncode}")
    for title in ("dmapool_test:", "random-free:", "churn:", "threads:",
                  "threads-scaling:", "memory:", "icount:", "icount-alloc:",
                  "targets ("):
        check(title in out, f"no '{title}' table on stdout")
    check("no side zeroes blocks" in out,
          "the header does not say that neither side zeroes blocks")
    check(f"{BASE} (A/A)" in out, "no A/A row for the base")

    path = os.path.join(outdir, "bench.csv")
    check(os.path.exists(path), "no bench.csv")
    rows = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            check(reader.fieldnames == HEADER,
                  f"unexpected CSV header {reader.fieldnames}")
            rows = list(reader)
    cells = {}
    for r in rows:
        v = float(r["value"])
        check(math.isfinite(v) and v > 0, f"value not positive: {r}")
        cells[(r["workload"], r["case"], r["subject"], r["metric"])] = r

    def cell(wl, case, subj, metric):
        return cells.get((wl, case, subj, metric))

    # Every case, for the baselines (linux-6.12 first) and dmapool.
    for wl, metric, shapes, subjects in (
            ("dmapool_test", "ns_per_pair", SHAPES, BASELINES + DMAPOOL),
            ("random-free", "ns_per_pair", SHAPES, BASELINES + DMAPOOL),
            ("memory", "meta_bytes", SHAPES, BASELINES + DMAPOOL),
            ("icount", "instr_per_pair", ICOUNT_SHAPES, ICOUNT_SUBJECTS),
            ("icount-alloc", "instr_alloc_per_pair", ICOUNT_SHAPES,
             ICOUNT_SUBJECTS)):
        for case in shapes:
            for subj in subjects:
                check(cell(wl, case, subj, metric) is not None,
                      f"missing {wl} {case} {subj} {metric}")

    for (wl, case, subj, metric), r in cells.items():
        ratio = num(r["ratio"])
        if wl in PAIRED and metric == "ns_per_pair" and ratio is not None:
            # Medians of paired ratios: inside their own min-max, against
            # linux-6.12; the value/base quotient need not match them.
            lo, hi = num(r["ratio_min"]), num(r["ratio_max"])
            check(r["ratio_to"] == BASE, f"{wl} {case} {subj}: ratio_to "
                  f"{r['ratio_to']}")
            check(lo is not None and hi is not None and
                  lo - 1e-9 <= ratio <= hi + 1e-9,
                  f"{wl} {case} {subj}: ratio {ratio} outside {lo}-{hi}")
        if wl in ("icount", "icount-alloc", "memory") and ratio is not None:
            base = cell(wl, case, BASE, metric)
            check(base is not None, f"{wl} {case}: no {BASE} row")
            if base:
                want = float(r["value"]) / float(base["value"])
                check(close(ratio, want),
                      f"ratio of {wl} {case} {subj} is {ratio}, want {want}")
        # Options carry their ratio to the default pool, nothing else does.
        vs = num(r["vs_default"])
        if wl in ("dmapool_test", "random-free", "churn"):
            check((vs is not None) == subj.startswith("dmapool+"),
                  f"{wl} {case} {subj}: vs_default {r['vs_default']!r}")
        if vs is not None:
            check(num(r["vs_default_min"]) <= vs <= num(r["vs_default_max"]),
                  f"{wl} {case} {subj}: vs_default outside its min-max")

    churn = [k for k in cells if k[0] == "churn"]
    for subj in (BASE, "linux-embedded", "dmapool"):
        check(any(k[2] == subj for k in churn), f"churn has no {subj} row")
    for subj in (BASE, "linux-embedded", "dmapool"):
        for case in ("1 thread", "2 threads", "4 threads", "prod/cons"):
            check(cell("threads", case, subj, "ns_per_pair") is not None,
                  f"missing threads {case} {subj}")
        for case in ("2 threads", "4 threads", "prod/cons"):
            check(cell("threads-scaling", case, subj, "scaling") is not None,
                  f"missing threads-scaling {case} {subj}")
    for case in ("1 thread", "2 threads", "4 threads"):
        check(cell("threads", case, "compute-loop", "ns_per_pair")
              is not None, f"missing threads {case} compute-loop")
    check(cell("threads-scaling", "prod/cons bulk", "dmapool", "scaling")
          is not None, "missing threads-scaling prod/cons bulk dmapool")
    for case in ("1 thr bulk32", "2 thr bulk32", "prod/cons bulk"):
        check(cell("threads", case, "dmapool", "ns_per_pair") is not None,
              f"missing threads {case} dmapool")
        check(cell("threads", case, BASE, "ns_per_pair") is None,
              f"threads {case}: {BASE} has no bulk calls")
    # Memory: the percentage is meta / DMA.
    for (wl, case, subj, metric), r in cells.items():
        if wl == "memory" and metric == "meta_bytes":
            dma = cell(wl, case, subj, "dma_bytes")
            pct = cell(wl, case, subj, "meta_pct")
            check(dma is not None and pct is not None,
                  f"memory {case} {subj}: dma_bytes or meta_pct missing")
            if dma and pct:
                want = float(r["value"]) / float(dma["value"]) * 100
                check(abs(float(pct["value"]) - want) < 1e-2 * max(1, want),
                      f"memory {case} {subj}: meta_pct inconsistent")
    # Instruction counts are deterministic and not tiny: an alloc+free pair
    # with a lock cannot take fewer than ten instructions, and the loop
    # around it adds some but not dozens.
    for case in ICOUNT_SHAPES:
        for subj in ICOUNT_SUBJECTS:
            a = cell("icount-alloc", case, subj, "instr_alloc_per_pair")
            w = cell("icount", case, subj, "instr_per_pair")
            if not a or not w:
                continue
            loop = float(w["value"]) - float(a["value"])
            check(float(a["value"]) >= 10,
                  f"icount {case} {subj}: {a['value']} is implausible")
            check(5 <= loop <= 60,
                  f"icount {case} {subj}: the loop's {loop} instructions")
        base = cell("icount", case, BASE, "instr_per_pair")
        check(base is not None and num(base["ratio"]) == 1.0,
              f"icount {case}: {BASE}'s ratio is not 1")

    # The targets: every one, with a verdict, in targets.csv and on stdout.
    tpath = os.path.join(outdir, "targets.csv")
    check(os.path.exists(tpath), "no targets.csv")
    if os.path.exists(tpath):
        with open(tpath, newline="") as f:
            trows = {r["id"]: r for r in csv.DictReader(f)}
        for t in TARGETS:
            check(t in trows, f"targets.csv has no {t}")
            if t in trows:
                st = trows[t]["status"]
                check(st in ("MET", "MISSED", "reported", "n/a"),
                      f"target {t}: status {st!r}")
                if st in ("MET", "MISSED"):
                    check(trows[t]["measured"] != "" and
                          math.isfinite(float(trows[t]["measured"])),
                          f"target {t}: {st} without a measured value")
        for t in ("A1", "A2", "A3", "A4", "A5", "H1", "T1", "T3"):
            st = trows.get(t, {}).get("status")
            check(st in ("MET", "MISSED"),
                  f"target {t} was not judged ({st}): its data is missing")
    for t in TARGETS:
        check(f"  {t} " in out, f"target {t} not printed")

    svg = os.path.join(outdir, "bench.svg")
    check(os.path.exists(svg) and os.path.getsize(svg) > 0, "no bench.svg")
    if os.path.exists(svg):
        with open(svg) as f:
            text = f.read()
        check("<svg" in text, "bench.svg is not an SVG")
        for name in (BASE, "xarray-fix", "dmapool", "linux-embedded",
                     "dmapool+quarantine", "compute-loop", "dmapool-bench"):
            check(name in text, f"bench.svg does not mention {name}")
    png = os.path.join(outdir, "bench.png")
    check(os.path.exists(png), "no bench.png")
    if os.path.exists(png):
        with open(png, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", "bench.png is not a PNG")
    for name in ("bench.txt", "bench.gp", "bench-panels.gp"):
        check(os.path.exists(os.path.join(outdir, name)), f"no {name}")

    print(f"check_output: {len(rows)} CSV rows checked")
    for f in failures:
        print(f"check_output: FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
