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

fig, (ax, ax_t) = plt.subplots(1, 2, figsize=(13, 5))
style = {"read ceiling": ("k", "--"), "CUB DeviceReduce::Sum": ("tab:orange", "-"),
         "warpred": ("tab:blue", "-"), "warpred accurate": ("tab:cyan", ":")}
times = {}
for r in rows:
    times.setdefault(r["variant"], []).append((int(r["n"]), float(r["time_us"])))
for name in ["read ceiling", "CUB DeviceReduce::Sum", "warpred", "warpred accurate"]:
    color, line = style[name]
    if name in series:
        pts = sorted(series[name])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color, linestyle=line, label=name)
    if name in times:
        pts = sorted(times[name])
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
