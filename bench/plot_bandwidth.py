#!/usr/bin/env python3
"""Plots bandwidth against N for the device-wide float sum from bench_reduce's CSV:
warpred, warpred accurate, CUB DeviceReduce::Sum and the read ceiling.
Usage: plot_bandwidth.py bench_reduce.csv out.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["bench"] == "device_sum" and r["case"] == "float sum"]
series = {}
for r in rows:
    series.setdefault(r["variant"], []).append((int(r["n"]), float(r["value"])))

fig, ax = plt.subplots(figsize=(8, 5))
style = {"read ceiling": ("k", "--"), "CUB DeviceReduce::Sum": ("tab:orange", "-"),
         "warpred": ("tab:blue", "-"), "warpred accurate": ("tab:cyan", ":")}
for name in ["read ceiling", "CUB DeviceReduce::Sum", "warpred", "warpred accurate"]:
    if name in series:
        pts = sorted(series[name])
        color, line = style[name]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color, linestyle=line, label=name)
ax.set_xscale("log", base=2)
ax.set_xlabel("N (float elements)")
ax.set_ylabel("GB/s (4N bytes / median time per call)")
ax.set_title("Device-wide float sum on an H100: one call, timed alone")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print("wrote", sys.argv[2])
