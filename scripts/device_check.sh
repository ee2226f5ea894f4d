#!/usr/bin/env bash
# What a GPU session runs in one go (see README, "Tests"): build for the GPU's arch, make test,
# make sanitize, make run, make bench; logs under $OUT (or build/device). REQUIRE_GPU=1: a GPU
# that cannot run the build is a failure here, never a skip.
# Usage: scripts/device_check.sh [make args...]   e.g. CMOCKA_PREFIX=$PWD/.deps/cmocka/usr
set -uo pipefail
out=${OUT:-build/device}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
args=(ARCHS=90 REQUIRE_GPU=1 "$@")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
make "${args[@]}" all > "$out/build.log" 2>&1 || { tail -n 60 "$out/build.log"; exit 1; }
status=0
make "${args[@]}" test > "$out/test.log" 2>&1 || status=1
grep -E "^\[  (FAILED|ERROR) |^ERROR|^failing|^tests:|^note:|^(sample .*|[a-z_-]+/warpred_consumer): " "$out/test.log"
make "${args[@]}" sanitize 2>&1 | tee "$out/sanitize.log" | tail -n 12 || status=1
make "${args[@]}" run > "$out/run.log" 2>&1 || status=1
grep -E "^sample .*: |^samples:|^no usable GPU" "$out/run.log"
if [ "${SKIP_BENCH:-0}" != 1 ]; then
    make "${args[@]}" bench > "$out/bench.log" 2>&1 || status=1
    grep -v "^/usr/local/cuda/bin/nvcc\|^build/" "$out/bench.log"
    cp build/sm_90/*.csv build/sm_90/*.png "$out/" 2>/dev/null
fi
# the device returns at most 8 files: logs and disassembly travel in one archive
cp build/sm_90/sanitize_*.log "$out/" 2>/dev/null
[ -n "${SASS:-}" ] && cuobjdump -sass build/sm_90/bench_reduce > "$out/bench_reduce.sass" 2>&1
(cd "$out" && tar czf logs.tar.gz $(ls ./*.log ./*.sass 2>/dev/null) && rm -f ./*.log ./*.sass)
exit $status
