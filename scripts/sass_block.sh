#!/bin/bash
# scripts/sass_block.sh - run ON THE GPU MACHINE (needs cuobjdump, and ncu for the counters):
# SASS, resource usage and a few ncu counters of the block/warp reduction kernels of
# bench/bench_block.cu: where the reductions spend their instructions and stall. Everything lands
# under $OUT (default ./sass_block_out):
#   build.log                 the sm_90 build of bench_block
#   res_usage.txt             registers / shared memory of every kernel (cuobjdump -res-usage, demangled)
#   sass/<name>.sass          SASS of each studied kernel (demangled name in the first line)
#   sass_summary.txt          per kernel: instructions, SHFL, BAR, LDS, STS, VOTE, BRA, FMNMX/DMNMX, registers
#   ncu.csv                   ncu per kernel of `bench_block --profile` (raw page, one row per kernel): instructions
#                             executed, cycles, issue activity, warp stall reasons (barrier, short scoreboard,
#                             ...), occupancy, registers
#   ncu.log                   ncu's own messages
# Usage: OUT=/some/dir scripts/sass_block.sh     (about 1-2 minutes)
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/sass_block_out}
mkdir -p "$OUT/sass"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_BIN=$(dirname "$NVCC")
CUOBJDUMP=${CUOBJDUMP:-$CUDA_BIN/cuobjdump}
NCU=${NCU:-$(command -v ncu || echo "$CUDA_BIN/ncu")}
DEMANGLE=$(command -v cu++filt || command -v "$CUDA_BIN/cu++filt" || command -v c++filt || echo cat)
BIN=build/sm_90/bench_block

echo "== build" | tee "$OUT/summary.txt"
make ARCHS=90 "$BIN" > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }

echo "== resource usage" | tee -a "$OUT/summary.txt"
"$CUOBJDUMP" -res-usage "$BIN" 2> "$OUT/cuobjdump.err" | "$DEMANGLE" > "$OUT/res_usage.txt"

echo "== SASS" | tee -a "$OUT/summary.txt"
"$CUOBJDUMP" -sass "$BIN" 2>> "$OUT/cuobjdump.err" > "$OUT/sass_all_mangled.txt"
# split per function; keep the kernels of the studied rows (float/int/double sum at 256, 1000, 1024;
# max at 256; every warp kernel), name each file after its mangled name
awk -v dir="$OUT/sass" '
  /Function : / { if (file != "") close(file); name = $NF; keep = (name ~ /k_block/ || name ~ /k_warp/); file = dir "/" name ".sass" }
  keep { print > file }
' "$OUT/sass_all_mangled.txt"
rm -f "$OUT/sass_all_mangled.txt"
# keep only the rows the analysis needs: block size 256, 1000, 1024 (Li256E, Li1000E, Li1024E) and the warp kernels
for f in "$OUT"/sass/*.sass; do
  b=$(basename "$f" .sass)
  case "$b" in
    *k_block*Li128E*|*k_block*Li256E*|*k_block*Li1024E*|*k_block*Li1000E*) ;;
    *) rm -f "$f" ;;
  esac
done
{
  printf "%-70s %6s %5s %4s %4s %4s %4s %4s %6s\n" kernel instr SHFL BAR LDS STS VOTE BRA MNMX
  for f in "$OUT"/sass/*.sass; do
    b=$(basename "$f" .sass)
    d=$(echo "$b" | "$DEMANGLE")
    n=$(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$f")
    c() { grep -cE "^\s+/\*[0-9a-f]{4}\*/.*\b$1" "$f"; }
    printf "%-70s %6s %5s %4s %4s %4s %4s %4s %6s\n" "${d:0:70}" "$n" "$(c SHFL)" "$(c BAR)" "$(c LDS)" "$(c STS)" "$(c VOTE)" \
      "$(c BRA)" "$(c MNMX)"
    sed -i "1s|^|// $d\n|" "$f"
  done
} > "$OUT/sass_summary.txt"
cat "$OUT/sass_summary.txt" | head -n 80

echo "== ncu" | tee -a "$OUT/summary.txt"
if [ -x "$NCU" ] || command -v "$NCU" > /dev/null 2>&1; then
  # sections, not raw metric names, so that no name missing from this ncu version stops the run;
  # --page raw: every collected counter, one CSV row per kernel
  timeout 500 "$NCU" --section LaunchStats --section Occupancy --section InstructionStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section SchedulerStats --csv --page raw --print-units base \
    "$BIN" --profile > "$OUT/ncu.csv" 2> "$OUT/ncu.log"
  echo "ncu exit $?: $(wc -l < "$OUT/ncu.csv") lines in ncu.csv" | tee -a "$OUT/summary.txt"
else
  echo "ncu not found ($NCU): no counters" | tee -a "$OUT/summary.txt"
fi
echo "done: $OUT" | tee -a "$OUT/summary.txt"
