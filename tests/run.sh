#!/bin/sh
# Runs every test program under $1/tests and adds up their counts.  Exit code 0
# only if every program ran and nothing failed; skipped (inactive) cases are
# counted separately and never as passed.
BIN=${1:-bin}
XC_BIN="$BIN/crosscheck"; export XC_BIN
pass=0; fail=0; skip=0; bad=0
for t in "$BIN"/tests/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out"
    line=$(printf '%s\n' "$out" | grep '^XC-SUMMARY' | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAILED: $t crashed or printed no summary (exit $rc)"
        bad=$((bad + 1)); continue
    fi
    run=$(echo "$line" | sed 's/.*run=\([0-9]*\).*/\1/')
    f=$(echo "$line" | sed 's/.*failed=\([0-9]*\).*/\1/')
    i=$(echo "$line" | sed 's/.*inactive=\([0-9]*\).*/\1/')
    pass=$((pass + run - f)); fail=$((fail + f)); skip=$((skip + i))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAILED: $t exited $rc"; bad=$((bad + 1))
    fi
done
fail=$((fail + bad))
echo
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
