#!/usr/bin/env python3
"""Plots bandwidth against the row length L for bench_segmented's rows (2^26 elements in rows of L):
float sum, max, argmax and double sum with warpred, CUB's DeviceSegmentedReduce (offsets) and the
read ceiling; CUB 3.6's fixed-size DeviceSegmentedReduce from bench_segmented_cub36.csv when that
file lies beside it (make bench CCCL_DIR=...); the float sum's forced strategies and the
reproducible sum against the plain one. GB/s (log scale) are those of the bytes a perfect kernel
moves for each variant (input, offsets where the form takes them, one result per row); the
ceiling's are its input's.
Usage: plot_segmented.py bench_segmented.csv out.png [GPU name for the titles]"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["bench"] == "segmented_rows"]
cub36 = os.path.join(os.path.dirname(sys.argv[1]), "bench_segmented_cub36.csv")
if os.path.exists(cub36):
    rows += [r for r in csv.DictReader(open(cub36))
             if r["bench"] == "segmented_rows" and r["variant"].startswith("CUB 3.")]
gpu = sys.argv[3] if len(sys.argv) > 3 else ""


def medians(case, key="value"):
    """variant -> sorted [(L, median over the runs of key)]: the benchmarks write one row per run."""
    runs = {}
    for r in rows:
        if r["case"] == case:
            runs.setdefault(r["variant"], {}).setdefault(int(r["n"]), []).append(float(r[key]))
    return {v: sorted((n, sorted(xs)[len(xs) // 2]) for n, xs in by_n.items()) for v, by_n in runs.items()}


def style(name):
    """(color, line) of a variant, by what it is."""
    if name == "read ceiling":
        return "k", "--"
    if name.startswith("CUB 3."):
        return "tab:red", "-."
    if name.startswith("CUB"):
        return "tab:orange", "-"
    fixed = {"warpred": ("tab:blue", "-"), "warpred ranges": ("tab:cyan", ":"),
             "warpred rsum": ("tab:green", "-"), "warpred sum": ("tab:blue", ":"),
             "warpred LANES": ("tab:purple", ":"), "warpred BLOCK": ("tab:brown", ":"),
             "warpred SPLIT": ("tab:olive", ":"), "warpred CLUSTER": ("tab:pink", ":")}
    return fixed.get(name, ("tab:gray", ":"))


STRATEGIES = ["warpred", "warpred LANES", "warpred BLOCK", "warpred SPLIT", "warpred CLUSTER"]
panels = [("float sum", lambda v: v not in STRATEGIES[1:], "float sum"),
          ("float max", None, "float max"),
          ("float argmax", None, "float argmax (value + int index)"),
          ("double sum", None, "double sum"),
          ("float sum", lambda v: v in STRATEGIES or v == "read ceiling", "float sum: AUTO and forced strategies"),
          ("float rsum", None, "reproducible sum (warpred_op_rsum) vs plain")]

fig, axes = plt.subplots(2, 3, figsize=(18, 10))
for ax, (case, keep, title) in zip(axes.flat, panels):
    series = medians(case)
    for name, pts in series.items():
        if keep and not keep(name):
            continue
        color, line = style(name)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, color=color, linestyle=line,
                label="read ceiling (GB/s of the input)" if name == "read ceiling" else name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")  # CUB's block per segment sits two orders of magnitude lower at small L
    ax.set_xlabel("L (elements per row; 2^26 / L rows)")
    ax.set_ylabel("GB/s (bytes a perfect kernel moves / median time)")
    ax.set_title(("%s on %s" % (title, gpu)) if gpu else title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
