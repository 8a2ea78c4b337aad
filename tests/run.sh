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
# The programs that take longest start first, so that no long one is left
# running alone at the end; the rest in name order.  By CPU seconds (user +
# system, children included) of each program run alone on the 2-core
# machine under load (docs/ci.md, "The time of make test"): gate 15, readme
# 8, study 7, memory 7, accel 6, peer_bugs 5, cli 4, conformance 3, plugin
# 3, accel_own 3, peers 2, psift 2, orbit 2, faults 2, bench_peer 0.7,
# fuzz 1; faults and bench_peer wait on their children longer than their
# CPU seconds say (wall 15 and 16 times their CPU there, the others 10 or
# less).
FIRST="test_gate test_readme test_study test_memory test_accel test_peer_bugs test_cli test_conformance"
FIRST="$FIRST test_plugin test_accel_own test_peers test_psift test_orbit test_faults test_bench_peer test_fuzz"
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
