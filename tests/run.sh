#!/bin/sh
# Runs every test program under $1/tests and adds up their counts.  Exit code 0
# only if every program ran and nothing failed; skipped (inactive) cases are
# counted separately and never as passed.  XC_TEST_JOBS programs run at once
# (default: the machine's processors, at most 4); each writes into its own
# temporary folder (xc_test_tmpdir), and the outputs are printed in name order,
# so the log reads the same at any number of jobs and in any start order.
BIN=${1:-bin}
XC_BIN="$BIN/crosscheck"; export XC_BIN
# Two programs share the cores at once, each with its OpenMP threads: idle
# threads that spin (libgomp's default) burn the other program's CPU, and a
# case with many short parallel regions (test_spgulp's gulps) takes 20 times
# the CPU (41 s against 2.3 s).  Waiting threads sleep, unless the caller
# chose otherwise; results do not depend on it (same bytes at any thread count).
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}; export OMP_WAIT_POLICY
JOBS=${XC_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
[ "$JOBS" -gt 4 ] 2>/dev/null && JOBS=4
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
out_dir=$(mktemp -d "${TMPDIR:-/tmp}/xc-tests.XXXXXX") || exit 2
trap 'rm -rf "$out_dir"' EXIT
trap 'rm -rf "$out_dir"; exit 130' INT TERM
# The programs that take longest (wall seconds, one at a time on a loaded
# 2-core machine, waiting threads asleep: gate 75, memory 23, peers 23, accel
# 22, study 21, cli 19, plugin 15, readme 15, accel_own 15, bench_peer 12,
# fuzz 10; several wait on child processes more than they compute) start
# first, so that no long one is left running alone at the end; the rest in
# name order.
FIRST="test_gate test_memory test_peers test_accel test_study test_cli test_plugin test_readme"
FIRST="$FIRST test_accel_own test_bench_peer test_fuzz"
# one program: its output and exit status into out_dir
{
    for n in $FIRST; do
        [ -x "$BIN/tests/$n" ] && printf '%s\n' "$BIN/tests/$n"
    done
    for t in "$BIN"/tests/test_*; do
        case " $FIRST " in *" $(basename "$t") "*) continue ;; esac
        [ -x "$t" ] && printf '%s\n' "$t"
    done
} | xargs -P "$JOBS" -I{} sh -c 'n=$(basename "$1"); "$1" > "$2/$n.out" 2>&1; echo $? > "$2/$n.rc"' sh {} "$out_dir"
pass=0; fail=0; skip=0; bad=0
for t in "$BIN"/tests/test_*; do
    [ -x "$t" ] || continue
    n=$(basename "$t")
    cat "$out_dir/$n.out" 2>/dev/null
    rc=$(cat "$out_dir/$n.rc" 2>/dev/null || echo 127)
    line=$(grep '^XC-SUMMARY' "$out_dir/$n.out" 2>/dev/null | tail -n 1)
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
