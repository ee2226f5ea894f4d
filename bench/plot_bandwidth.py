#!/usr/bin/env python3
"""Plots bandwidth against N for the device-wide float sum from bench_reduce's CSV:
warpred, warpred accurate, CUB DeviceReduce::Sum and the read ceiling; plus CUB 3.6's
run_to_run and gpu_to_gpu sums from bench_cub36.csv when that file lies beside it (make bench
CCCL_DIR=...).
Usage: plot_bandwidth.py bench_reduce.csv out.png"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["bench"] == "device_sum" and r["case"] == "float sum"]
cub36 = os.path.join(os.path.dirname(sys.argv[1]), "bench_cub36.csv")
if os.path.exists(cub36):
    rows += [r for r in csv.DictReader(open(cub36))
             if r["bench"] == "device_sum" and r["case"] == "float sum" and r["variant"].startswith("CUB 3.6")]


def medians(key):
    """variant -> sorted [(n, median over the runs of key)]: the benchmarks write one row per run."""
    runs = {}
    for r in rows:
        runs.setdefault(r["variant"], {}).setdefault(int(r["n"]), []).append(float(r[key]))
    return {v: sorted((n, sorted(xs)[len(xs) // 2]) for n, xs in by_n.items()) for v, by_n in runs.items()}


series = medians("value")
times = medians("time_us")

fig, (ax, ax_t) = plt.subplots(1, 2, figsize=(13, 5))
style = {"read ceiling": ("k", "--"), "CUB DeviceReduce::Sum": ("tab:orange", "-"),
         "warpred": ("tab:blue", "-"), "warpred accurate": ("tab:cyan", ":"),
         "CUB 3.6 DeviceReduce::Sum run_to_run": ("tab:red", "-."),
         "CUB 3.6 DeviceReduce::Sum gpu_to_gpu": ("tab:purple", "-.")}
for name in style:
    color, line = style[name]
    if name in series:
        pts = series[name]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color, linestyle=line, label=name)
    if name in times:
        pts = times[name]
        ax_t.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color, linestyle=line, label=name)
ax.set_xscale("log", base=2)
ax.set_xlabel("N (float elements)")
ax.set_ylabel("GB/s (4N bytes / median time per call)")
ax.set_title("Device-wide float sum on an H100: bandwidth")
ax_t.set_xscale("log", base=2)
ax_t.set_yscale("log")
ax_t.set_xlabel("N (float elements)")
ax_t.set_ylabel("median time per call (us)")
ax_t.set_title("time per call, each call timed alone")
for a in (ax, ax_t):
    a.grid(True, which="both", alpha=0.3)
    a.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
