#!/usr/bin/env python3
"""scripts/bench_doc.py - docs/BENCHMARKS.md from the benchmark CSV files under docs/.

Usage: scripts/bench_doc.py [--docs DIR] [-o OUT]     (make bench-doc; make test checks it)

Reads every set of bench CSVs: DIR/*.csv and DIR/SUB/*.csv (one folder per run of `make bench`
on one GPU). Each folder holding CSVs needs a RUN.txt beside them naming the run:

    gpu: H100 80GB HBM3 (132 SMs, driver 580.159.04)
    software: CUDA 13.0, CUB 3.0.1        (optional)
    date: 2026-11-21
    note: ...                              (optional, one line)

and writes one Markdown file (default DIR/BENCHMARKS.md): a section per folder, a table per
benchmark and case, each headed with the GPU and the date. Python 3 standard library only; the
output depends on the CSV and RUN.txt files alone (no timestamps), so `make test` can regenerate
it and compare.

The CSV format is what bench/bench_*.cu write: bench,case,variant,n,time_us,value,unit. Rows that
repeat (bench, case, variant, n) are runs of one measurement: the table gives their median. A bench
named X_ratio joins bench X (its variants become ratio columns). Layouts:
  - a case measured at several n: one table per case, a row per n, a column per variant (the
    time in us where the row has one, else the value);
  - otherwise: a row per case, a column per variant; when every case has a variant named
    "warpred" but the others differ from case to case, a row per (case, other variant) with
    both values and their quotient.
"""

FIGURES_DOC = """
Figures in READMEs (--readmes FILE...: rewrite; --check-readmes FILE...: compare, exit 1 on a
difference). A figure block in a Markdown file is an HTML comment holding a template, then the
text rendered from it, then a closing comment:

    <!-- figures docs/h200
    let S = bench_cub36.csv; device_sum; float sum
    On an {gpu} ({date}) the float sum is {min_val(S; CUB ... / warpred median of 3; 2^14..2^22):.2f}x ...
    -->
    On an H200 (2026-11-21) the float sum is 1.18x ...
    <!-- /figures -->

The folder (one run: one GPU, one date; its RUN.txt names them) is the only source of the block's
figures. Placeholders: {gpu} and {date} of the run (both required in every block); and
FUNC(FILE; BENCH; CASE; VARIANT; N) with FUNC one of val (the value column), us (time_us),
min_val, max_val, min_us, max_us (over N given as A..B or *); "let X = FILE; BENCH; CASE" lines
name the first three. N is a number or 2^k. After a colon, a Python format (.2f, .0%); without
one, the median as the CSV wrote it. A `*` in CASE or VARIANT matches any text (only `*` is
special): a figure then takes, at each N, the one measurement whose case and variant match (more
than one is an error), so min_val(F; rows_softmax; float32 L=*; of copy ceiling; 32..16384) spans
cases. variant(FILE; BENCH; CASE; VARIANT; N) is the matching measurement's variant name, or what
VARIANT's first `*` matched (variant(...; warpred (*); 64) gives "8 lanes x 8"). `let` lines are
not rendered; a line "for n in A B C: TEXT" is rendered once per value listed (numbers or 2^k),
with {n} in TEXT replaced by the value as written (so a Markdown table's rows can come from one
line); every other template line is, as it is. A recorded program output (what a sample printed)
is a file of such a folder too:

    <!-- output docs/samples-h100/loss.txt -->
    ```
    (the file, as it is)
    ```
    <!-- /output -->

and out(FILE; REGEX) in a figure block of that folder is the first group of REGEX's first match
in FILE; min_out(FILE; REGEX) and max_out(FILE; REGEX) the least and the greatest first group over
all of REGEX's matches. A line "let NAME = FUNC(...)" (FUNC one of val, us, min_val, max_val,
min_us, max_us, out, min_out, max_out) names that figure's number, and calc(EXPR) is the value of
EXPR: numbers, such names, + - * /, parentheses, min(...) and max(...) (a ratio of two figures:
{calc(a / b):.1f}x; without a format, as %g writes it). Outside the blocks a README may quote no
measured figure (a time, a rate, a ratio such as 1.3x or a percentage): --check-readmes reports
each one it finds.
"""
import argparse
import ast
import csv
import os
import re
import sys

# the programs' sections in this order (any other CSV after them, by name)
PROGRAM_ORDER = ["bench_reduce", "bench_cub36", "bench_block", "bench_tail", "bench_compound", "bench_atomics"]


def program_key(program):
    """Sort key of a bench program (a CSV's name without .csv): PROGRAM_ORDER first, the rest by name."""
    return (PROGRAM_ORDER.index(program) if program in PROGRAM_ORDER else len(PROGRAM_ORDER), program)


FIELDS = ["bench", "case", "variant", "n", "time_us", "value", "unit"]
RATIO_UNITS = ("ratio", "speedup")

# What the tables of a bench (the CSV's first column) show, for the known benches: "PROGRAM:bench"
# (PROGRAM: the CSV's name without .csv) before "bench"; anything else gets its bench name as the
# title and no description.
BENCH_INFO = {
    "device_sum": (
        "device-wide reduction",
        "`warpred_device_reduce` against `cub::DeviceReduce` and the read ceiling (a plain vectorized "
        "read kernel with warpred's grid), us per call: each call timed alone with CUDA events, median "
        "of many calls, the variants taking turns call by call; below 256 MiB of input the calls "
        "rotate through an 8 GiB buffer (nothing left in L2). `warpred accurate`: float in, "
        "accumulated in double. Ratio columns: t_CUB / t_warpred, the median of the runs' ratios. "
        "`error`: ulps from the correctly rounded sum.",
    ),
    "bench_cub36:device_sum": (
        "device-wide sum against CUB 3.6",
        "`warpred_device_reduce` against CUB 3.6's `DeviceReduce::Sum`, default (run_to_run) and "
        "reproducible (gpu_to_gpu), and the read ceiling, us per call, timed as bench_reduce's "
        "device-wide reduction. Ratio columns: t_CUB / t_warpred, the median of the runs' ratios.",
    ),
    "rsum_ratio": (
        "reproducible sum",
        "CUB 3.6's gpu_to_gpu sum and warpred's plain sum, each over warpred's reproducible sum "
        "(`warpred_op_rsum`): time ratios, one column per run.",
    ),
    "warp_reduce": (
        "warp reductions",
        "A tight loop of independent warp reductions at full occupancy (256-thread blocks); n = threads "
        "per launch.",
    ),
    "block_reduce": (
        "block reductions",
        "A tight loop of independent block reductions at full occupancy, 256-thread blocks; `<256>`: the "
        "block size as a template argument, otherwise read at run time. n = threads per launch.",
    ),
    "bench_block:warp_reduce": (
        "warp reductions",
        "IEEE max / max_num against `a < b ? b : a` peers; throughput: independent reductions, latency: "
        "a dependent chain. n = 32 (one warp).",
    ),
    "bench_block:block_reduce": (
        "block reductions",
        "warpred's block reduction (block size read at run time, and `<BS>`) against both CUB "
        "algorithms at their fastest; throughput: independent reductions, latency: a dependent chain. "
        "n = the block size. Ratio columns: warpred / the better CUB algorithm.",
    ),
    "block_proto": (
        "block reduction prototypes",
        "`bench_block --rake`: variants of the block reduction's barrier scheme against CUB raking.",
    ),
    "device_argmax": (
        "device-wide argmax",
        "`warpred_device_reduce` with `warpred_op_argmax` against `cub::DeviceReduce::ArgMax` and the "
        "read ceiling, us per call (timed as the device-wide reduction).",
    ),
    "block_argmax": (
        "block argmax",
        "`warpred_arg<float, int>` block reductions against `cub::BlockReduce` with `cub::ArgMax`, 256 "
        "threads, full occupancy; n = threads per launch.",
    ),
    "sum_min_max": (
        "sum + min + max in one pass",
        "One `warpred_tuple3` reduction against three warpred calls; throughput: independent "
        "reductions, latency: each reduction's input depends on the previous result.",
    ),
    "welford": (
        "Welford mean and variance",
        "Welford against the naive (sum, sum of squares) tuple on 2^26 floats of 1e4 + noise: time, and "
        "the relative error of the variance against a double two-pass host reference.",
    ),
    "atomics": (
        "atomics",
        "Throughput of warpred's atomics against the plain alternatives (n updates).",
    ),
}


def fail(msg):
    sys.stderr.write("bench_doc.py: %s\n" % msg)
    sys.exit(1)


def read_run(folder, shown):
    """The RUN.txt of a folder: a dict with gpu, date (required) and software, note (optional)."""
    path = os.path.join(folder, "RUN.txt")
    if not os.path.isfile(path):
        fail("%s holds bench CSVs but no RUN.txt (lines 'gpu: ...' and 'date: YYYY-MM-DD')" % shown)
    run = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, val = line.partition(":")
            if not sep:
                fail("%s/RUN.txt: '%s' is not 'key: value'" % (shown, line))
            run[key.strip().lower()] = val.strip()
    for key in ("gpu", "date"):
        if not run.get(key):
            fail("%s/RUN.txt has no '%s:' line" % (shown, key))
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", run["date"]):
        fail("%s/RUN.txt: date '%s' is not YYYY-MM-DD" % (shown, run["date"]))
    return run


def read_csv(path, shown):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != FIELDS:
            fail("%s: header is %s, expected %s" % (shown, ",".join(header or []), ",".join(FIELDS)))
        rows = []
        for i, rec in enumerate(reader, start=2):
            if not rec:
                continue
            if len(rec) != len(FIELDS):
                fail("%s:%d: %d fields, expected %d" % (shown, i, len(rec), len(FIELDS)))
            row = dict(zip(FIELDS, (x.strip() for x in rec)))
            try:
                row["n_int"] = int(row["n"])
            except ValueError:
                fail("%s:%d: n '%s' is not an integer" % (shown, i, row["n"]))
            rows.append(row)
    return rows


def decimals(s):
    m = re.fullmatch(r"[-+]?\d*\.?(\d*)", s)
    return len(m.group(1)) if m else None


def median_str(values):
    """The median of numbers given as strings, as the input wrote it (odd count: one of them)."""
    for v in values:
        try:
            float(v)
        except ValueError:
            fail("'%s' is not a number (time_us and value must be numbers or empty)" % v)
    vals = sorted(values, key=float)
    k = len(vals)
    if k % 2:
        return vals[k // 2]
    a, b = vals[k // 2 - 1], vals[k // 2]
    d = [decimals(a), decimals(b)]
    if None in d:  # exponent notation
        return "%.4g" % ((float(a) + float(b)) / 2)
    return "%.*f" % (max(d), (float(a) + float(b)) / 2)


class Cell:
    """One measurement (bench, case, variant, n) over its runs: what a table shows of it."""

    def __init__(self, rows):
        self.unit = rows[0]["unit"]
        times = [r["time_us"] for r in rows if r["time_us"]]
        # a bandwidth row shows its time (the figure measured; GB/s follow from n); others their value
        vals = [r["value"] for r in rows if r["value"]]
        if times and len(times) == len(rows) and (self.unit == "GB/s" or not vals):
            self.text, self.shown_unit = median_str(times), "us"
        else:
            self.text = median_str(vals) if vals else ""
            self.shown_unit = self.unit
        self.runs = len(rows)
        self.value = float(self.text) if self.text else None


def esc(s):
    return s.replace("|", "\\|")


def fmt_n(n, all_n):
    """2^k when every n of the table is a power of two and they reach past 2^16, else n."""
    if all(x > 0 and x & (x - 1) == 0 for x in all_n) and max(all_n) > 1 << 16:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


def md_table(header, rows, numeric_from=1):
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    out = ["| " + " | ".join(esc(h) for h in header) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(esc(c) if c else "" for c in r) + " |")
    return out


def unit_label(units):
    """Caption text for the units of a table's columns (ratio columns need none)."""
    plain = sorted(set(u for u in units if u not in RATIO_UNITS))
    return ", ".join(plain)


def column_header(variant, unit, common):
    if unit in RATIO_UNITS or not unit or unit == common:
        return variant
    return "%s (%s)" % (variant, unit)


class Bench:
    def __init__(self, name, program):
        self.name = name
        self.program = program
        self.cases = []  # first appearance order
        self.variants = {}  # case -> [variant] in first appearance order (measurements, then ratios)
        self.cells = {}  # (case, variant, n) -> [rows]

    def add(self, row):
        case, variant = row["case"], row["variant"]
        if case not in self.variants:
            self.cases.append(case)
            self.variants[case] = []
        if variant not in self.variants[case]:
            self.variants[case].append(variant)
        self.cells.setdefault((case, variant, row["n_int"]), []).append(row)

    def ns(self, case):
        return sorted(set(n for (c, _, n) in self.cells if c == case))

    def cell(self, case, variant, n):
        rows = self.cells.get((case, variant, n))
        return Cell(rows) if rows else None

    def max_runs(self):
        return max(len(r) for r in self.cells.values())


def group_benches(rows, program):
    """Benches of one CSV file in first appearance order; X_ratio rows go into X when X is there."""
    names = []
    for r in rows:
        if r["bench"] not in names:
            names.append(r["bench"])
    benches = {}
    order = []
    for name in names:
        base = name[: -len("_ratio")] if name.endswith("_ratio") and name[: -len("_ratio")] in names else name
        if base not in benches:
            benches[base] = Bench(base, program)
            order.append(base)
    for r in rows:
        name = r["bench"]
        base = name[: -len("_ratio")] if name.endswith("_ratio") and name[: -len("_ratio")] in names else name
        benches[base].add(r)
    return [benches[b] for b in order]


def caption(source, bench, extra):
    parts = ["[%s](%s)" % (source, source)]
    runs = bench.max_runs()
    if runs > 1:
        parts.append("median of %d runs" % runs)
    parts.extend(extra)
    return "*" + "; ".join(parts) + ".*"


def tables_by_n(bench, source, heading):
    """One table per case: a row per n, a column per variant."""
    out = []
    for case in bench.cases:
        variants = bench.variants[case]
        ns = bench.ns(case)
        cells = {(v, n): bench.cell(case, v, n) for v in variants for n in ns}
        units = [c.shown_unit for c in cells.values() if c]
        common = unit_label(units)
        header = ["N" if fmt_n(ns[0], ns).startswith("2^") else "n"]
        for v in variants:
            unit = next((cells[(v, n)].shown_unit for n in ns if cells[(v, n)]), "")
            header.append(column_header(v, unit, common if "," not in common else None))
        body = [[fmt_n(n, ns)] + [cells[(v, n)].text if cells[(v, n)] else "" for v in variants] for n in ns]
        out.append(heading("%s, %s" % (bench_title(bench), case)))
        out.append("")
        extra = ["values in %s" % common] if common and "," not in common else []
        out.append(caption(source, bench, extra))
        out.append("")
        out.extend(md_table(header, body))
        out.append("")
    return out


def tables_by_case(bench, source, heading):
    """A row per case, a column per variant (cases grouped by their set of variants)."""
    out = []
    cases = bench.cases
    single_n = {c: bench.ns(c)[0] for c in cases}
    all_variants = []
    for c in cases:
        for v in bench.variants[c]:
            if v not in all_variants:
                all_variants.append(v)
    uniform = all(bench.variants[c] == bench.variants[cases[0]] for c in cases)
    if not uniform and all("warpred" in bench.variants[c] for c in cases):
        return table_against_warpred(bench, source, heading)
    # groups of cases with the same variants, in first appearance order
    groups = []
    for c in cases:
        key = tuple(bench.variants[c])
        for g in groups:
            if g[0] == key:
                g[1].append(c)
                break
        else:
            groups.append((key, [c]))
    for gi, (variants, gcases) in enumerate(groups):
        cells = {(c, v): bench.cell(c, v, single_n[c]) for c in gcases for v in variants}
        units = [x.shown_unit for x in cells.values() if x]
        common = unit_label(units)
        mixed_rows = "," in common  # the unit goes into each row's label
        ns = sorted(set(single_n[c] for c in gcases))
        header = ["case"] + (["n"] if len(ns) > 1 else [])
        for v in variants:
            unit = next((cells[(c, v)].shown_unit for c in gcases if cells[(c, v)]), "")
            header.append(column_header(v, unit, common if not mixed_rows else unit))
        body = []
        for c in gcases:
            label = c
            if mixed_rows:
                row_units = unit_label([cells[(c, v)].shown_unit for v in variants if cells[(c, v)]])
                if row_units:
                    label = "%s, %s" % (c, row_units)
            row = [label] + ([str(single_n[c])] if len(ns) > 1 else [])
            row += [cells[(c, v)].text if cells[(c, v)] else "" for v in variants]
            body.append(row)
        title = bench_title(bench) if len(groups) == 1 else "%s (%d of %d)" % (bench_title(bench), gi + 1, len(groups))
        out.append(heading(title))
        out.append("")
        extra = []
        if common and not mixed_rows:
            extra.append("values in %s" % common)
        if len(ns) == 1:
            extra.append("n = %d" % ns[0])
        out.append(caption(source, bench, extra))
        out.append("")
        out.extend(md_table(header, body, numeric_from=2 if len(ns) > 1 else 1))
        out.append("")
    return out


def table_against_warpred(bench, source, heading):
    """Every case has "warpred" and its own baselines: a row per (case, baseline)."""
    body = []
    units = []
    ns = set()
    for c in bench.cases:
        n = bench.ns(c)[0]
        ns.add(n)
        ours = bench.cell(c, "warpred", n)
        units.append(ours.shown_unit)
        for v in bench.variants[c]:
            if v == "warpred":
                continue
            base = bench.cell(c, v, n)
            units.append(base.shown_unit)
            if base.shown_unit in RATIO_UNITS:
                body.append([c, v, base.text, "", ""])
                continue
            q = ""
            if base.value and ours.value:
                # a time: less is better
                x = base.value / ours.value if base.shown_unit == "us" else ours.value / base.value
                q = ("%.0fx" if x >= 100 else "%.1fx" if x >= 10 else "%.2fx") % x
            body.append([c, v, base.text, ours.text, q])
    common = unit_label(units)
    out = [heading(bench_title(bench)), ""]
    extra = ["values in %s" % common] if common and "," not in common else []
    if len(ns) == 1:
        extra.append("n = %d" % ns.pop())
    extra.append("last column: how many times the baseline's rate warpred reaches, computed from the two")
    out.append(caption(source, bench, extra))
    out.append("")
    out.extend(md_table(["case", "baseline", "its value", "warpred", "warpred / baseline"], body, numeric_from=2))
    out.append("")
    return out


def bench_info(bench):
    """(title, description or None) of a bench."""
    return BENCH_INFO.get("%s:%s" % (bench.program, bench.name)) or BENCH_INFO.get(bench.name) or (bench.name, None)


def bench_title(bench):
    return bench_info(bench)[0]


def render_set(folder, shown, run, docs):
    """The section of one folder: every CSV in it, every bench in each CSV."""
    gpu_short = run["gpu"].split(" (")[0]
    out = ["## %s, %s (`%s/`)" % (gpu_short, run["date"], shown), ""]
    desc = "%s%s, measured %s." % (run["gpu"], ", " + run["software"] if run.get("software") else "", run["date"])
    if run.get("note"):
        desc += " " + run["note"]
    out += [desc, ""]
    names = [f for f in os.listdir(folder) if f.endswith(".csv")]
    for name in sorted(names, key=lambda f: program_key(f[: -len(".csv")])):
        path = os.path.join(folder, name)
        source = os.path.relpath(path, docs).replace(os.sep, "/")
        program = name[: -len(".csv")]

        def heading(text, program=program):
            return "### %s, %s: %s (%s)" % (gpu_short, run["date"], text, program)

        for bench in group_benches(read_csv(path, os.path.join(shown, name)), program):
            multi_n = any(len(bench.ns(c)) > 1 for c in bench.cases)
            part = tables_by_n(bench, source, heading) if multi_n else tables_by_case(bench, source, heading)
            desc = bench_info(bench)[1]
            if desc:  # what the bench measures, under its first table's heading
                part = part[:2] + [desc, ""] + part[2:]
            out.extend(part)
    return out


def gpu_model(run):
    """The GPU's model as RUN.txt names it, without the details in brackets or the vendor."""
    name = run["gpu"].split(" (")[0]
    return name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name


def newest_runs(runs, docs):
    """A table of the newest CSV of each benchmark program on each GPU model (the latest date, then
    the last folder name of that date), so that a reader finds today's figures without the history."""
    newest = {}
    for folder, shown, run in runs:
        for name in os.listdir(folder):
            if name.endswith(".csv"):
                key = (name[: -len(".csv")], gpu_model(run))
                when = (run["date"], shown)
                if key not in newest or when > newest[key][0]:
                    source = os.path.relpath(os.path.join(folder, name), docs).replace(os.sep, "/")
                    newest[key] = (when, source)
    rows = []
    by_program = sorted(newest.items(), key=lambda kv: (program_key(kv[0][0]), kv[0][1]))
    for (program, gpu), ((date, _), source) in by_program:
        rows.append("| %s | %s | %s | [%s](%s) |" % (program, gpu, date, source, source))
    return [
        "The newest run of each benchmark on each GPU (every run's tables follow, oldest first):",
        "",
        "| benchmark | GPU | date | CSV |",
        "|---|---|---|---|",
    ] + rows + [""]


def render(docs):
    sets = []
    top = [f for f in os.listdir(docs) if f.endswith(".csv")]
    if top:
        sets.append((docs, "docs"))
    for sub in sorted(os.listdir(docs)):
        folder = os.path.join(docs, sub)
        if os.path.isdir(folder) and any(f.endswith(".csv") for f in os.listdir(folder)):
            sets.append((folder, "docs/" + sub))
    if not sets:
        fail("no bench CSV files in %s or its folders" % docs)
    runs = [(folder, shown, read_run(folder, shown)) for folder, shown in sets]
    out = [
        "# Benchmarks",
        "",
        "<!-- Generated by scripts/bench_doc.py from the CSV files under docs/ and each folder's RUN.txt:",
        "     edit those and run `make bench-doc`, not this file (make test fails when it is stale). -->",
        "",
        "Every table below comes from the CSV files that `make bench` wrote on one GPU (one folder of",
        "`docs/` per run; its `RUN.txt` names the GPU and the date); tables never mix GPUs. Where a CSV",
        "holds several runs of a measurement, a cell is the median of the runs; times are us per call,",
        "rates as the column or caption says, and ratio columns are copied from the CSV. Runs:",
        "",
    ]
    for folder, shown, run in runs:
        out.append("- `%s/`: %s, %s" % (shown, run["gpu"], run["date"]))
    out.append("")
    out.extend(newest_runs(runs, docs))
    for folder, shown, run in runs:
        out.extend(render_set(folder, shown, run, docs))
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


BLOCK = re.compile(r"<!-- figures (\S+)\n(.*?)-->\n(.*?)<!-- /figures -->", re.S)
PLACEHOLDER = re.compile(r"\{(gpu|date|(min_val|max_val|min_us|max_us|val|us|min_out|max_out|out|calc|variant)\(((?:[^(){}\\]|\\.|\([^(){}]*\))*)\)(?::([^{}]*))?)\}")
OUTPUT = re.compile(r"<!-- output (\S+) -->\n(.*?)<!-- /output -->", re.S)
MEASURED = re.compile(
    r"(?<![\w.^/-])\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?"
    r"(?:\s?(?:us|ms|GB/s|TB/s|G [a-z]+(?: [a-z]+)?/s)\b|x(?![\w])|\s?%)"
)


def parse_n(text, where):
    text = text.strip()
    m = re.fullmatch(r"2\^(\d+)", text)
    try:
        return 1 << int(m.group(1)) if m else int(text)
    except ValueError:
        fail("%s: '%s' is not a number or 2^k" % (where, text))


class Figures:
    """One block's data: the CSVs of one folder."""

    def __init__(self, folder, where):
        if not os.path.isdir(folder):
            fail("%s: no folder %s" % (where, folder))
        self.folder, self.where = folder, where
        self.run = read_run(folder, folder)
        self.csvs = {}

    def cells(self, args):
        if len(args) != 5:
            fail("%s: a figure needs FILE; BENCH; CASE; VARIANT; N, got %s" % (self.where, "; ".join(args)))
        name, bench, case, variant, n = args
        if name not in self.csvs:
            path = os.path.join(self.folder, name)
            if not os.path.isfile(path):
                fail("%s: no file %s" % (self.where, path))
            self.csvs[name] = read_csv(path, path)
        case_re, variant_re = glob_re(case), glob_re(variant)
        rows = [r for r in self.csvs[name]
                if r["bench"] == bench and case_re.fullmatch(r["case"]) and variant_re.fullmatch(r["variant"])]
        if n.strip() == "*":
            ns = sorted(set(r["n_int"] for r in rows))
        elif ".." in n:
            lo, hi = (parse_n(x, self.where) for x in n.split(".."))
            ns = sorted(set(r["n_int"] for r in rows if lo <= r["n_int"] <= hi))
        else:
            ns = [parse_n(n, self.where)]
        out = []
        for k in ns:
            got = [r for r in rows if r["n_int"] == k]
            if not got:
                fail("%s: no rows for %s / %s / %s / %s / n=%d in %s" % (self.where, name, bench, case, variant, k, self.folder))
            if len(set((r["case"], r["variant"]) for r in got)) > 1:
                fail("%s: %s / %s / %s / n=%d matches more than one measurement in %s"
                     % (self.where, bench, case, variant, k, name))
            out.append(got)
        return out

    def value(self, func, args, fmt):
        if func in ("out", "min_out", "max_out"):
            if len(args) != 2:
                fail("%s: %s(FILE; REGEX), got %s" % (self.where, func, "; ".join(args)))
            with open(os.path.join(self.folder, args[0]), encoding="utf-8") as f:
                found = [m.group(1) for m in re.finditer(args[1], f.read(), re.M)]
            if not found:
                fail("%s: /%s/ matches nothing in %s" % (self.where, args[1], args[0]))
            text = found[0] if func == "out" else (min if func == "min_out" else max)(found, key=float)
            return format(float(text), fmt) if fmt else text
        if func == "variant":
            found = self.cells(args)
            if len(found) != 1 or fmt:
                fail("%s: variant(FILE; BENCH; CASE; VARIANT; N) takes one N and no format, got %s" % (self.where, "; ".join(args)))
            name = found[0][0]["variant"]
            m = glob_re(args[3]).fullmatch(name)
            return m.group(1) if m.groups() else name
        field = "time_us" if func.endswith("us") else "value"
        texts = []
        for rows in self.cells(args):
            vals = [r[field] for r in rows if r[field]]
            if not vals:
                fail("%s: %s is empty for %s" % (self.where, field, "; ".join(args)))
            texts.append(median_str(vals))
        if func.startswith("min"):
            text = min(texts, key=float)
        elif func.startswith("max"):
            text = max(texts, key=float)
        else:
            text = texts[0]
        return format(float(text), fmt) if fmt else text


def glob_re(pattern):
    """A case or variant name where `*` matches any text (each `*` a group), as a regex."""
    return re.compile("(.*?)".join(re.escape(p) for p in pattern.split("*")))


CALC_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def calc(expr, names, where):
    """The value of EXPR: numbers, names from NAMES, + - * /, parentheses, min(...) and max(...)."""
    def ev(node):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in CALC_OPS:
            return CALC_OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max")
                and node.args and not node.keywords):
            return (min if node.func.id == "min" else max)(ev(a) for a in node.args)
        fail("%s: calc(%s): '%s' is not a number, a let name, + - * /, min or max" % (where, expr, ast.unparse(node)))
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        fail("%s: calc(%s) is not an expression" % (where, expr))
    try:
        return ev(tree.body)
    except ZeroDivisionError:
        fail("%s: calc(%s) divides by zero" % (where, expr))


def render_block(folder, template, where):
    figs = Figures(folder, where)
    lets, names, lines = {}, {}, []
    for line in template.split("\n")[:-1] if template.endswith("\n") else template.split("\n"):
        m = re.match(r"^let (\w+) = (.*)$", line)
        if m:
            f = re.fullmatch(r"(min_val|max_val|min_us|max_us|val|us|min_out|max_out|out)\((.*)\)", m.group(2).strip())
            if f:  # a named figure for calc()
                args = [x.strip() for x in f.group(2).split(";")]
                if args and args[0] in lets:
                    args = lets[args[0]] + args[1:]
                names[m.group(1)] = float(figs.value(f.group(1), args, None))
                continue
            lets[m.group(1)] = [x.strip() for x in m.group(2).split(";")]
            continue
        m = re.match(r"^for n in ([^:]+): (.*)$", line)
        if m:  # one line per value, {n} replaced by it
            for k in m.group(1).split():
                parse_n(k, where)
                lines.append(m.group(2).replace("{n}", k))
            continue
        lines.append(line)
    text = "\n".join(lines) + "\n"
    if "{gpu}" not in text or "{date}" not in text:
        fail("%s: a figure block must name the GPU and the date ({gpu}, {date})" % where)

    def sub(m):
        if m.group(1) in ("gpu", "date"):
            return figs.run["gpu"].split(" (")[0] if m.group(1) == "gpu" else figs.run["date"]
        if m.group(2) == "calc":
            value = calc(m.group(3), names, where)
            return format(value, m.group(4)) if m.group(4) else "%g" % value
        args = [x.strip() for x in m.group(3).split(";")]
        if args and args[0] in lets:
            args = lets[args[0]] + args[1:]
        return figs.value(m.group(2), args, m.group(4))

    return PLACEHOLDER.sub(sub, text)


def process_readme(path, write):
    """Renders every figure block of a Markdown file; returns the problems found (check mode)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    problems = []

    def sub(m):
        line = text.count("\n", 0, m.start()) + 1
        rendered = render_block(m.group(1), m.group(2), "%s:%d" % (path, line))
        if rendered != m.group(3):
            problems.append("%s:%d: the figure block no longer matches %s (run make bench-doc)" % (path, line, m.group(1)))
        return "<!-- figures %s\n%s-->\n%s<!-- /figures -->" % (m.group(1), m.group(2), rendered)

    def sub_output(m):
        line = text.count("\n", 0, m.start()) + 1
        folder = os.path.dirname(m.group(1))
        read_run(folder, folder)  # the run's GPU and date
        if not os.path.isfile(m.group(1)):
            fail("%s:%d: no file %s" % (path, line, m.group(1)))
        with open(m.group(1), encoding="utf-8") as f:
            rendered = "```\n" + f.read() + "```\n"
        if rendered != m.group(2):
            problems.append("%s:%d: the output block no longer matches %s (run make bench-doc)" % (path, line, m.group(1)))
        return "<!-- output %s -->\n%s<!-- /output -->" % (m.group(1), rendered)

    new = OUTPUT.sub(sub_output, BLOCK.sub(sub, text))
    blank = lambda m: "\n" * m.group(0).count("\n")  # noqa: E731
    outside = OUTPUT.sub(blank, BLOCK.sub(blank, text))
    for k, line in enumerate(outside.split("\n"), 1):
        for m in MEASURED.finditer(line):
            problems.append("%s:%d: a measured figure outside a figure block: '%s'" % (path, k, m.group(0)))
    if write and new != text:
        with open(path + ".tmp", "w", encoding="utf-8", newline="\n") as f:
            f.write(new)
        os.replace(path + ".tmp", path)
    return problems


def main():
    ap = argparse.ArgumentParser(description="docs/BENCHMARKS.md from the bench CSVs under docs/",
                                 epilog=FIGURES_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", default="docs", help="the folder holding the CSV sets (default docs)")
    ap.add_argument("-o", "--output", help="the file to write (default DOCS/BENCHMARKS.md)")
    ap.add_argument("--readmes", nargs="+", metavar="FILE", help="render the figure blocks of these files")
    ap.add_argument("--check-readmes", nargs="+", metavar="FILE", help="fail when a figure block is stale")
    ap.add_argument("--pending", nargs="*", default=[], metavar="FILE",
                    help="files whose figures outside blocks are counted, not failed (not yet converted)")
    args = ap.parse_args()
    if args.readmes or args.check_readmes:
        problems, pending = [], 0
        for path in args.readmes or args.check_readmes:
            found = process_readme(path, write=bool(args.readmes))
            if path in args.pending:
                pending += sum("outside" in p for p in found)
                found = [p for p in found if "outside" not in p]
            problems += found
        stale = [p for p in problems if "outside" in p or not args.readmes]
        for p in stale:
            print(p)
        if pending:
            print("note: %d measured figures outside figure blocks in %d READMEs not yet converted (%s)"
                  % (pending, len(args.pending), " ".join(args.pending)))
        if stale:
            sys.exit(1)
        return
    if not os.path.isdir(args.docs):
        fail("no folder %s" % args.docs)
    text = render(args.docs)
    out = args.output or os.path.join(args.docs, "BENCHMARKS.md")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
