#!/usr/bin/env bash
# Runs cmocka test programs, shows their output, and ends with one line of totals:
#   tests: N passed, N failed, N skipped
# Exits non-zero if any program failed or crashed. Usage: tests/run.sh [--wrap "cmd"] prog...
set -u
wrap=""
if [ "${1:-}" = "--wrap" ]; then wrap=$2; shift 2; fi
passed=0 failed=0 skipped=0 bad=""
for prog in "$@"; do
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
done
[ -n "$bad" ] && echo "failing programs:$bad"
[ $skipped -gt 0 ] && echo "note: $skipped GPU test(s) SKIPPED (no usable GPU here); they did not pass"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ -z "$bad" ] && [ $failed -eq 0 ]
