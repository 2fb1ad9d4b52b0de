#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR GPL-2.0-only
"""CI check of dmapool-bench: run it in --short mode and check what it wrote.

Checks the shape and sanity of the output (every workload, case and
baseline present, numbers finite, ratios consistent, the plot drawn), never
timing: a slow or noisy machine must not fail CI.  The benchmark itself
validates every block the allocators hand out before timing them and exits
non-zero when one is wrong, when dmapool reports anything, or when
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
BASELINES = ["linux-embedded", "linux-pagelist", "xarray-fix"]
TIMED = ["dmapool_test", "random-free", "churn", "threads"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def main():
    bench, outdir = sys.argv[1], sys.argv[2]
    shutil.rmtree(outdir, ignore_errors=True)
    proc = subprocess.run([bench, "--short", "--quiet", "--out", outdir],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=540)
    sys.stdout.write(proc.stdout)
    check(proc.returncode == 0, f"dmapool-bench exited {proc.returncode}")
    for title in ("dmapool_test:", "random-free:", "churn:", "threads:",
                  "memory:", "icount:"):
        check(title in proc.stdout, f"no '{title}' table on stdout")

    path = os.path.join(outdir, "bench.csv")
    check(os.path.exists(path), "no bench.csv")
    rows = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            check(reader.fieldnames == ["workload", "case", "subject",
                                        "metric", "value", "min", "max",
                                        "ratio_vs_linux_embedded", "reps"],
                  f"unexpected CSV header {reader.fieldnames}")
            rows = list(reader)
    cells = {}
    for r in rows:
        v = float(r["value"])
        check(math.isfinite(v) and v > 0,
              f"value not positive: {r}")
        cells[(r["workload"], r["case"], r["subject"], r["metric"])] = r

    def cell(wl, case, subj, metric):
        return cells.get((wl, case, subj, metric))

    # Every dmapool_test shape, for the baselines and default dmapool.
    for wl, metric in (("dmapool_test", "ns_per_pair"),
                       ("random-free", "ns_per_pair"),
                       ("memory", "meta_bytes"),
                       ("icount", "instr_per_pair")):
        for case in SHAPES:
            for subj in BASELINES + ["dmapool", "dmapool-handle"]:
                check(cell(wl, case, subj, metric) is not None,
                      f"missing {wl} {case} {subj} {metric}")
    # Ratios: linux-embedded is 1, the others value / linux-embedded's.
    for (wl, case, subj, metric), r in cells.items():
        if wl not in TIMED + ["icount"] or r["ratio_vs_linux_embedded"] == "":
            continue
        base = cell(wl, case, "linux-embedded", metric)
        if base is None:
            continue
        want = float(r["value"]) / float(base["value"])
        got = float(r["ratio_vs_linux_embedded"])
        check(abs(got - want) <= 1e-3 * max(1.0, want),
              f"ratio of {wl} {case} {subj} is {got}, want {want}")
    churn = [k for k in cells if k[0] == "churn"]
    check(any(k[2] == "dmapool" for k in churn), "churn has no dmapool row")
    check(any(k[2] == "linux-embedded" for k in churn),
          "churn has no linux-embedded row")
    for subj in ("linux-embedded", "dmapool"):
        for case in ("1 thread", "2 threads"):
            check(cell("threads", case, subj, "ns_per_pair") is not None,
                  f"missing threads {case} {subj}")
        check(cell("threads", "2 threads", subj, "scaling") is not None,
              f"missing threads scaling for {subj}")
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
    # with a lock cannot take fewer than ten instructions.
    for case in SHAPES:
        r = cell("icount", case, "linux-embedded", "instr_per_pair")
        if r:
            check(float(r["value"]) >= 10,
                  f"icount {case}: {r['value']} instructions is implausible")

    svg = os.path.join(outdir, "bench.svg")
    check(os.path.exists(svg) and os.path.getsize(svg) > 0, "no bench.svg")
    if os.path.exists(svg):
        with open(svg) as f:
            text = f.read()
        check("<svg" in text, "bench.svg is not an SVG")
        for name in ("xarray-fix", "dmapool", "linux-embedded"):
            check(name in text, f"bench.svg does not mention {name}")
    txt = os.path.join(outdir, "bench.txt")
    check(os.path.exists(txt), "no bench.txt")

    print(f"check_output: {len(rows)} CSV rows checked")
    for f in failures:
        print(f"check_output: FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
