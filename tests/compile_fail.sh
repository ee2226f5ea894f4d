#!/usr/bin/env bash
# Compiles every tests/compile_fail/*.cu (see its README): each must fail with exactly one error,
# whose text contains the file's "// expect:" line (and names what "// names:" gives, if any). Usage: tests/compile_fail.sh NVCC ARCH LOGDIR
set -u
nvcc=$1 arch=$2 logs=$3
mkdir -p "$logs"
failed=0 count=0
for src in tests/compile_fail/*.cu; do
    name=$(basename "$src" .cu)
    expect=$(sed -n 's|^// expect: ||p' "$src" | head -n 1)
    names=$(sed -n 's|^// names: ||p' "$src" | head -n 1)
    log="$logs/$name.log"
    count=$((count + 1))
    if "$nvcc" -std=c++17 -I. -arch=sm_"$arch" -c "$src" -o /dev/null > "$log" 2>&1; then
        echo "compile_fail/$name: compiled, but must not"; failed=$((failed + 1)); continue
    fi
    errors=$(grep -c -E ': error|: fatal error' "$log")
    if [ -n "$names" ] && ! grep -q -F "$names" "$log"; then
        echo "compile_fail/$name: the error does not name $names"; failed=$((failed + 1)); continue
    fi
    if [ "$errors" != 1 ] || ! grep -q -F "$expect" "$log"; then
        echo "compile_fail/$name: $errors error(s), expected exactly 1 containing \"$expect\":"
        grep -E ': error|: fatal error' "$log" | head -n 5 | cut -c 1-300
        failed=$((failed + 1))
    fi
done
if [ $failed -ne 0 ]; then echo "compile_fail: $failed of $count misuses did not stop with one clear error"; exit 1; fi
echo "compile_fail: $count misuses each stop with exactly one error that says what to do"
