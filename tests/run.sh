#!/usr/bin/env bash
# Runs test programs and samples, shows their output, and ends with one line of totals:
#   tests: N passed, N failed, N skipped          (or, with --samples:  samples: N ok, N failed, N skipped)
# Exits non-zero if anything failed or crashed.
#
# Usage: tests/run.sh [--wrap "cmd"] [--gpu-probe PROG] [--require-gpu] [--samples] item...
#   item            a cmocka program: its own PASSED / FAILED / ERROR / SKIPPED lines are counted
#   gpu:PATH        a program that needs a GPU and is one test by its exit status (a sample, a consumer
#                   build); PATH ending in .py runs with python3. Without a usable GPU (as PROG, the probe,
#                   says) it is SKIPPED, not run. Exit 0 with a line starting "SKIPPED:" counts as skipped
#                   (the program could not run here: a missing package, too few GPUs).
#   skip:NAME:VAR   one SKIPPED test (NAME sample_X reads "sample X"); the environment variable VAR holds the reason.
#   --wrap "cmd"    run every program under cmd (compute-sanitizer); a sample's options for it come from
#                   the environment variable SAMPLE_SANITIZE_FLAGS_<name> (set in its sample.mk)
#   --require-gpu   no usable GPU is a failure, not a skip (for GPU machines)
#   --samples       the make run form: no usable GPU -> one sentence, exit 0 (1 with --require-gpu)
set -u
wrap="" probe="" require_gpu=0 samples_mode=0
while [ $# -gt 0 ]; do
    case "$1" in
        --wrap) wrap=$2; shift 2 ;;
        --gpu-probe) probe=$2; shift 2 ;;
        --require-gpu) require_gpu=1; shift ;;
        --samples) samples_mode=1; shift ;;
        *) break ;;
    esac
done

# "sample demo" for build/.../sample_demo and samples/demo/main.py; the last two path parts otherwise
label_of() {
    local path=$1 base
    base=$(basename "$path")
    case "$base" in
        sample_*) echo "sample ${base#sample_}" ;;
        main.py) echo "sample $(basename "$(dirname "$path")")" ;;
        *) case "$path" in */*) echo "$(basename "$(dirname "$path")")/$base" ;; *) echo "$path" ;; esac ;;
    esac
}

gpu_ok=1 gpu_why=""
for item in "$@"; do
    case "$item" in gpu:*) needs_gpu=1 ;; *) continue ;; esac
done
if [ -n "${needs_gpu:-}" ] && [ -n "$probe" ]; then
    if gpu_why=$("$probe" 2>&1); then
        echo "$gpu_why"
    else
        gpu_ok=0
        gpu_why=$(printf '%s' "$gpu_why" | head -n 1)
    fi
fi

if [ $samples_mode -eq 1 ] && [ $gpu_ok -eq 0 ]; then
    n=0 py=0
    for item in "$@"; do case "$item" in gpu:*.py) py=$((py + 1)) ;; gpu:*) n=$((n + 1)) ;; esac; done
    echo "no usable GPU here ($gpu_why): $n sample(s) were built$([ $py -gt 0 ] && echo " and $py Python sample(s) found"), none was run."
    [ $require_gpu -eq 0 ]
    exit
fi

passed=0 failed=0 skipped=0 bad="" summary=""
add_line() { summary="$summary$1"$'\n'; }

run_status_item() {  # one program, one test, by exit status
    local path=$1 label out rc
    label=$(label_of "$path")
    if [ $gpu_ok -eq 0 ]; then
        skipped=$((skipped + 1)); add_line "$label: SKIPPED (no usable GPU)"; return
    fi
    # a sample may add options for the wrapper (SAMPLE_SANITIZE_FLAGS_<name>, from its sample.mk)
    local extra="" var
    if [ -n "$wrap" ]; then
        var="SAMPLE_SANITIZE_FLAGS_${label#sample }"
        case "$var" in *[!A-Za-z0-9_]*) ;; *) extra=${!var:-} ;; esac
    fi
    echo "=== $label${wrap:+ (under: $wrap${extra:+ $extra})}"
    case "$path" in
        *.py) out=$($wrap $extra python3 "$path" 2>&1) ;;
        *) out=$($wrap $extra "$path" 2>&1) ;;
    esac
    rc=$?
    printf '%s\n' "$out"
    if [ $rc -ne 0 ]; then
        failed=$((failed + 1)); bad="$bad ${label#sample }(exit $rc)"; add_line "$label: FAILED (exit $rc)"
    elif printf '%s\n' "$out" | grep -q '^SKIPPED:'; then
        skipped=$((skipped + 1))
        add_line "$label: skipped ($(printf '%s\n' "$out" | sed -n 's/^SKIPPED: *//p' | head -n 1))"
    else
        passed=$((passed + 1)); add_line "$label: ok"
    fi
}

run_cmocka() {
    local prog=$1 name out rc p f e s
    name=$(basename "$prog")
    echo "=== $name${wrap:+ (under: $wrap)}"
    out=$($wrap "$prog" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    e=$(printf '%s\n' "$out" | sed -n 's/^\[  ERROR   \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0} + ${e:-0})); skipped=$((skipped + ${s:-0}))
    if [ $rc -ne 0 ]; then
        bad="$bad $name(exit $rc)"
        # a crash or a sanitizer report with no cmocka failure line still counts as a failure
        [ -z "${f:-}" ] && [ -z "${e:-}" ] && failed=$((failed + 1))
    fi
}

for item in "$@"; do
    case "$item" in
        gpu:*) run_status_item "${item#gpu:}" ;;
        skip:*)
            rest=${item#skip:}; name=${rest%%:*}; var=${rest#*:}
            skipped=$((skipped + 1)); add_line "$(label_of "$name"): skipped (${!var:-no reason given})" ;;
        *) run_cmocka "$item" ;;
    esac
done

echo
printf '%s' "$summary"
[ -n "$bad" ] && echo "failing programs:$bad"
if [ $gpu_ok -eq 0 ]; then
    echo "note: no usable GPU here ($gpu_why): GPU tests and samples were SKIPPED; they did not pass"
    [ $require_gpu -eq 1 ] && { echo "REQUIRE_GPU=1: no usable GPU is a failure"; failed=$((failed + 1)); }
elif [ $skipped -gt 0 ]; then
    echo "note: $skipped test(s) SKIPPED; they did not pass"
fi
if [ $samples_mode -eq 1 ]; then
    echo "samples: $passed ok, $failed failed, $skipped skipped"
else
    echo "tests: $passed passed, $failed failed, $skipped skipped"
fi
[ -z "$bad" ] && [ $failed -eq 0 ]
