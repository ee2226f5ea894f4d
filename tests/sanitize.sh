#!/usr/bin/env bash
# make sanitize: the GPU tests (and the samples, for the tools that take them) under each
# compute-sanitizer tool. Every tool runs at the same time, and each tool's programs are dealt into
# SHARDS groups that run at the same time too: the instrumentation is mostly CPU-bound, so a machine
# with many cores finishes in a fraction of the time one program after another takes.
# racecheck, the slowest, runs with WARPRED_TEST_QUICK=2 (the longest tests take fewer shapes), the
# others with 1.
#
# Usage: tests/sanitize.sh LOGDIR SANITIZER "TOOLS" "SAMPLE_TOOLS" SHARDS [run.sh option...] -- test... -- sample-item...
# Writes LOGDIR/sanitize_TOOL.log (the shards' logs one after another) and prints, a tool at a time,
# the sanitizer's SUMMARY lines counted, any failing programs and the tool's totals; exits non-zero
# if any tool found an error or any program failed.
set -u
logdir=$1 sanitizer=$2 tools=$3 sample_tools=$4 shards=$5
shift 5
run_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do run_opts+=("$1"); shift; done
shift
tests=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do tests+=("$1"); shift; done
[ $# -gt 0 ] && shift
samples=("$@")
[ "$shards" -ge 1 ] 2>/dev/null || shards=1

# every shards-th item from the k-th on
deal() {
    local k=$1 i=0 item
    shift
    for item in "$@"; do
        [ $((i % shards)) -eq "$k" ] && printf '%s\n' "$item"
        i=$((i + 1))
    done
}

for tool in $tools; do
    items=("${tests[@]}")
    case " $sample_tools " in *" $tool "*) items+=("${samples[@]}") ;; esac
    case $tool in racecheck) quick=2 ;; *) quick=1 ;; esac
    for ((k = 0; k < shards; k++)); do
        mapfile -t mine < <(deal "$k" "${items[@]}")
        [ ${#mine[@]} -eq 0 ] && continue
        (
            WARPRED_TEST_QUICK=$quick WARPRED_SAMPLE_QUICK=1 tests/run.sh "${run_opts[@]}" \
                --wrap "$sanitizer --tool $tool --error-exitcode 99" "${mine[@]}" \
                > "$logdir/sanitize_$tool.$k.log" 2>&1
            echo $? > "$logdir/sanitize_$tool.$k.rc"
        ) &
    done
done
wait

ok=1
for tool in $tools; do
    log=$logdir/sanitize_$tool.log
    : > "$log"
    rc=0
    for ((k = 0; k < shards; k++)); do
        [ -f "$logdir/sanitize_$tool.$k.log" ] || continue
        cat "$logdir/sanitize_$tool.$k.log" >> "$log"
        [ "$(cat "$logdir/sanitize_$tool.$k.rc")" = 0 ] || rc=1
        rm -f "$logdir/sanitize_$tool.$k.log" "$logdir/sanitize_$tool.$k.rc"
    done
    grep -h "SUMMARY" "$log" | sort | uniq -c | sed "s/^/$tool: /"
    grep -h "^failing programs:" "$log" | sed "s/^/$tool: /"
    # the shards' totals added up
    sed -n 's/^tests: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log" |
        awk -v t="$tool" '{ p += $1; f += $2; s += $3 } END { printf "%s: tests: %d passed, %d failed, %d skipped\n", t, p, f, s }'
    [ $rc -eq 0 ] || ok=0
done
if [ $ok -eq 1 ]; then
    echo "sanitize: all tools clean"
else
    echo "sanitize: FAILED (logs in $logdir/sanitize_*.log)"
    exit 1
fi
