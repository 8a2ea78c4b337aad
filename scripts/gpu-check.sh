#!/bin/sh
# GPU check in two halves, so the lent H100/H200 spends its minutes on GPU work:
#
#   sh scripts/gpu-check.sh build     here: static build (GSL, FFTW, jansson, CUnit,
#                                     libgomp and cudart linked in) into build/dev/
#   sh scripts/gpu-check.sh device [all|tests|bench|sanitize]
#                                     on the device machine (build/dev carried);
#                                     tests: the test binaries, conformance, run, the
#                                     candidate cross-checks, memcheck and racecheck
#                                     (about 8 minutes on an H200); bench: the
#                                     benchmarks (about 8 minutes); sanitize: memcheck,
#                                     racecheck and initcheck; all (the default): all of it:
#                                     GPU tests, the conformance suite, gpu-vs-reference cross-check on the
#                                     default datasets and the real files,
#                                     compute-sanitizer memcheck, racecheck and initcheck over the
#                                     GPU tests, `compare cands` of the gpu searcher (exact,
#                                     and with the paper's approximations) against the cpu on
#                                     J1807-0847, the accel (FDAS/FDJS) GPU tests and gpu
#                                     vs cpu accel candidates on J1807-0847, the subband and
#                                     tree GPU tests (and their speed against loss), the GPU
#                                     benchmarks, the fused single-pulse pipeline's
#                                     tests and benchmark; a short table last.
#
# `make gpu-check` runs the build half; the device half is what the device tool runs,
# one part per call (a call holds at most 10 minutes):
#   run(command="sh scripts/gpu-check.sh device tests", carry=["build/dev"])
#   run(command="sh scripts/gpu-check.sh device bench", carry=["build/dev"])
# Each heading shows the seconds since the part began.
set -u
MODE=${1:-build}
DEV=build/dev
# sumline LABEL TEXT: one row of the device half's summary table
sumline() { printf '%-28s %s\n' "$1" "$2"; }
# logrow LABEL PATTERN LOG EXIT: a row with the last line of OUTDIR/LOG that matches
# PATTERN (grep -E; nothing when LOG is missing) and the exit status
logrow() { sumline "$1" "$(grep -E "$2" "$OUTDIR/$3" 2>/dev/null | tail -1) exit=$4"; }
case "$MODE" in
build)
    make --no-print-directory STATIC=1 CUDA=1 BUILD=$DEV/obj BIN=$DEV/full \
        $DEV/full/crosscheck $DEV/full/tests/test_gpu $DEV/full/tests/test_gpu_pulscan \
        $DEV/full/tests/test_gpu_accel $DEV/full/tests/test_gpu_approx $DEV/full/tests/test_gpu_sp $DEV/full/tests/test_conformance \
        $DEV/full/tests/test_gpu_tail $DEV/full/tests/test_gpu_bands $DEV/full/tests/test_gpu_psshare || exit 1
    mkdir -p $DEV/bin
    for f in crosscheck tests/test_gpu tests/test_gpu_pulscan tests/test_gpu_accel tests/test_gpu_approx tests/test_gpu_sp \
        tests/test_conformance tests/test_gpu_tail tests/test_gpu_bands tests/test_gpu_psshare; do
        strip -o $DEV/bin/$(basename $f) $DEV/full/$f || exit 1
    done
    ls -la $DEV/bin
    echo "carry build/dev/bin to the device and run: sh scripts/gpu-check.sh device"
    ;;
device)
    PART=${2:-all}
    case "$PART" in all|tests|bench|sanitize) ;; *) echo "usage: sh scripts/gpu-check.sh device [all|tests|bench|sanitize]" >&2; exit 2 ;; esac
    want() { for p in "$@"; do [ "$PART" = "$p" ] && return 0; done; return 1; }
    T0=$(date +%s)
    sect() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
    OUTDIR=${OUT:-/tmp/gpu-check}
    mkdir -p "$OUTDIR"
    B=$DEV/bin
    # cuFFT is linked dynamically (no static library): the toolkit's copy
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUTDIR/device.txt"
    : > "$OUTDIR/conformance.log"; : > "$OUTDIR/bench_dedisperse.txt"
    : > "$OUTDIR/test_gpu.log"; : > "$OUTDIR/memcheck.log"; : > "$OUTDIR/racecheck.log"
    : > "$OUTDIR/run.txt"; : > "$OUTDIR/bench.txt"; : > "$OUTDIR/test_gpu_pulscan.log"
    : > "$OUTDIR/memcheck_pulscan.log"; : > "$OUTDIR/racecheck_pulscan.log"; : > "$OUTDIR/bench_pulscan.txt"
    : > "$OUTDIR/test_gpu_accel.log"; : > "$OUTDIR/accel.txt"
    # Pulscan cases for the sanitizers: all but the 1.2M-bin overflow case (slow
    # under memcheck; its kernels are the ones the other cases run).
    PS_SAN=gpu_ps_listed,gpu_ps_powers,gpu_ps_borrow,gpu_ps_peaks,gpu_ps_cands,gpu_ps_wide,gpu_ps_hand,gpu_ps_errors,gpu_ps_plan
    if want all tests; then
    # The GPU test binaries, one a row: seconds, binary, log name, its exit-status
    # variable, lines shown, what grep -E shows of its log, the heading.
    while IFS=';' read -r secs bin log rc lines pat title; do
        sect "$title"
        timeout "$secs" "$B/$bin" > "$OUTDIR/$log.log" 2>&1; eval "$rc=\$?"
        grep -E "$pat" "$OUTDIR/$log.log" | tail -"$lines"
    done <<'TESTS'
200;test_gpu;test_gpu;rc_t;60;Test:|FAILED|XC-SUMMARY|SKIPPED|^ +[0-9]+\. ;GPU tests
200;test_gpu_pulscan;test_gpu_pulscan;rc_pt;30;Test:|FAILED|XC-SUMMARY|SKIPPED|^ +[0-9]+\. ;GPU Pulscan tests
300;test_gpu_accel;test_gpu_accel;rc_at;30;Test:|FAILED|XC-SUMMARY|SKIPPED|^ +[0-9]+\. |  gpu vs cpu|  J1807|  largest|templates, hwmax;GPU accel (FDAS/FDJS) tests
200;test_gpu_approx;test_gpu_approx;rc_st;12;Test:|FAILED|XC-SUMMARY|SKIPPED|differs|bit for bit;GPU subband and tree tests (bit for bit against their references)
200;test_gpu_sp;test_gpu_sp;rc_sp;20;Test:|FAILED|XC-SUMMARY|SKIPPED|detection|candidate|^ +[0-9]+\. ;GPU single-pulse tests (detections bit for bit against the reference, host and device planes; the fused pipeline's candidates)
100;test_gpu_tail;test_gpu_tail;rc_tl;10;Test:|FAILED|XC-SUMMARY|SKIPPED;GPU dedispersion of a job's last, short chunk
100;test_gpu_bands;test_gpu_bands;rc_bd;10;Test:|FAILED|XC-SUMMARY|SKIPPED;GPU dedispersion in DM bands over a job's whole time
100;test_gpu_psshare;test_gpu_psshare;rc_ps;10;Test:|FAILED|XC-SUMMARY|SKIPPED;GPU Pulscan searches of one pulsar sharing its normalised spectrum
200;test_conformance;conformance;rc_k;30;Test:|FAILED|XC-SUMMARY|SKIPPED|rows fail;conformance suite (every registered implementation, the device ones included)
TESTS
    sect "cross-check: gpu and the GPU subband/tree against the references (default datasets, real files, prepsubband)"
    timeout 400 $B/crosscheck run -quiet -impl gpu,gpu-direct,subband-gpu,tree-gpu,tree-padded-gpu -out "$OUTDIR/run" > "$OUTDIR/run.txt" 2>&1; rc_x=$?
    grep -E "^(gpu|subband-gpu|tree)" "$OUTDIR/run.txt" | cut -c1-170
    tail -1 "$OUTDIR/run.txt"
    sect "compare cands on J1807-0847 (zmax 200): gpu exact vs cpu, gpu with the paper's approximations vs cpu"
    F=datasets/sigpyproc3/GBT_J1807-0847.fft
    F0=$F
    $B/crosscheck pulscan -impl cpu -zmax 200 -i $F -o "$OUTDIR/j1807-cpu.csv" > /dev/null 2>&1
    $B/crosscheck pulscan -impl gpu -zmax 200 -i $F -o "$OUTDIR/j1807-gpu.csv" > /dev/null 2>&1
    $B/crosscheck pulscan -impl gpu -zmax 200 -norm mom -logp poly -i $F -o "$OUTDIR/j1807-gpu-approx.csv" > /dev/null 2>&1
    $B/crosscheck compare cands "$OUTDIR/j1807-gpu.csv" "$OUTDIR/j1807-cpu.csv" -rtol_power 1e-12 -dsigma 1e-9 \
        > "$OUTDIR/cmp-exact.txt" 2>&1; rc_c=$?
    grep -E "^matched|^offsets|^overall" "$OUTDIR/cmp-exact.txt"
    $B/crosscheck compare cands "$OUTDIR/j1807-gpu-approx.csv" "$OUTDIR/j1807-cpu.csv" > "$OUTDIR/cmp-approx.txt" 2>&1
    grep -E "^A:|^B:|^matched|^offsets|^overall" "$OUTDIR/cmp-approx.txt"
    sect "accel on J1807-0847: gpu vs cpu (zmax 0 h1; zmax 200 h4; zmax 20 wmax 60 h2)"
    # within the gpu entry's tolerance (2e-3 relative on power and sigma;
    # -dsigma is absolute: 0.2 covers 2e-3 of sigma up to 100)
    for cfg in "0 0 1" "200 0 4" "20 60 2"; do
        set -- $cfg
        for im in cpu gpu; do
            timeout 120 $B/crosscheck accel -impl $im -zmax $1 -wmax $2 -numharm $3 -i $F0 \
                -o "$OUTDIR/j1807-accel-z$1-w$2-h$3-$im.csv" >> "$OUTDIR/accel.txt" 2>&1 || rc_ac=1
        done
        $B/crosscheck compare cands "$OUTDIR/j1807-accel-z$1-w$2-h$3-gpu.csv" "$OUTDIR/j1807-accel-z$1-w$2-h$3-cpu.csv" \
            -rtol_power 2e-3 -dsigma 0.2 > "$OUTDIR/cmp-accel-z$1-w$2-h$3.txt" 2>&1 || rc_ac=1
        echo "zmax $1 wmax $2 numharm $3: $(grep -E '^overall' "$OUTDIR/cmp-accel-z$1-w$2-h$3.txt")"
        grep -E "^matched|^offsets" "$OUTDIR/cmp-accel-z$1-w$2-h$3.txt"
    done
    tail -6 "$OUTDIR/accel.txt"
    sect "study on the device: 1 worker vs 8 workers with 3 device searches at once (paper size, 8 pulsars)"
    # the paper's spec with every searcher on the gpu; the outputs must be the same bytes
    T="$OUTDIR/study-gpu"
    S=datasets/study-table1-paper-gpu.json
    rm -rf "$T"; mkdir -p "$T"
    timeout 120 $B/crosscheck study -spec $S -out "$T/one" -n 8 -quiet > "$T/log" 2>&1 &&
        timeout 120 $B/crosscheck study -spec $S -out "$T/many" -n 8 -workers 8 -device_jobs 3 -quiet \
        >> "$T/log" 2>&1 && grep -q '"gpu"' "$T/one/study.json" &&
        cmp "$T/one/detections.csv" "$T/many/detections.csv" && cmp "$T/one/rates.csv" "$T/many/rates.csv" &&
        cmp "$T/one/recovery.json" "$T/many/recovery.json"; rc_sd=$?
    echo "same bytes: exit=${rc_sd:-skipped}"; tail -3 "$T/log"
    fi
    if want all bench; then
    sect "benchmark: gpu dedisperser (kernel, end to end, PCIe bound)"
    timeout 150 $B/crosscheck bench gpu -json "$OUTDIR/bench-gpu.json" > "$OUTDIR/bench.txt" 2>&1; rc_b=$?
    tail -30 "$OUTDIR/bench.txt"
    sect "bench dedisperse: plan and execute apart, every dedisperser (quick: 512 channels)"
    timeout 150 $B/crosscheck bench dedisperse -quick -impl reference,cpu,gpu,gpu-direct -threads 16 \
        -json "$OUTDIR/bench-dedisperse.json" > "$OUTDIR/bench_dedisperse.txt" 2>&1; rc_bd=$?
    tail -12 "$OUTDIR/bench_dedisperse.txt"
    # best of 2: the first gpu run also pays for loading cuFFT's kernels
    sect "bench accel: 2^20 bins, zmax 1200, 1 and 4 harmonics, cpu on 16 threads vs gpu"
    OMP_WAIT_POLICY=passive timeout 200 $B/crosscheck bench accel -impl cpu -nbins 1048576 -zmax 1200 -numharm 1,4 \
        -ncpus 16 -runs 2 -json "$OUTDIR/bench-accel.json" > "$OUTDIR/bench_accel.txt" 2>&1; rc_ab=$?
    tail -6 "$OUTDIR/bench_accel.txt"
    sect "bench dedisperse: subband and tree on the GPU against direct gpu (Table 2 plan, 1024 channels, 8-bit)"
    # speed against loss: subband at four smear budgets, the trees at two subband sizes
    timeout 200 $B/crosscheck bench dedisperse -impl gpu,subband-gpu -nchans 1024 -nbits 8 -repeat 2 \
        -subbudget 0.8,2,4,8 -json "$OUTDIR/bench-subband-gpu.json" -report "$OUTDIR/curve-subband-gpu" \
        > "$OUTDIR/bench_approx.txt" 2>&1; rc_sb=$?
    timeout 200 $B/crosscheck bench dedisperse -impl gpu,tree-gpu,tree-padded-gpu -nchans 1024 -nbits 8 -repeat 2 \
        -nsub 16,32 -json "$OUTDIR/bench-tree-gpu.json" -report "$OUTDIR/curve-tree-gpu" \
        >> "$OUTDIR/bench_approx.txt" 2>&1 || rc_sb=1
    grep -E "gpu|nsub" "$OUTDIR/bench_approx.txt"
    sect "bench study: the paper's full-size study on the device, 64 pulsars (per stage; projection)"
    timeout 200 $B/crosscheck bench study -spec datasets/study-table1-paper.json -n 64 -device -workers 8 \
        -device_jobs 3 -threads 16 -json "$OUTDIR/bench-study.json" > "$OUTDIR/bench_study.txt" 2>&1; rc_bs=$?
    tail -5 "$OUTDIR/bench_study.txt"
    sect "benchmark: Pulscan (Table 4 size)"
    timeout 150 $B/crosscheck bench gpu-pulscan -json "$OUTDIR/bench-gpu-pulscan.json" > "$OUTDIR/bench_pulscan.txt" 2>&1; rc_pb=$?
    tail -25 "$OUTDIR/bench_pulscan.txt"
    sect "bench singlepulse -fused: filterbank in, candidates out, against the dedispersion kernels; the paper's scenarios"
    timeout 240 $B/crosscheck bench singlepulse -fused -repeat 2 -json "$OUTDIR/bench-sp-fused.json" \
        > "$OUTDIR/bench_sp_fused.txt" 2>&1; rc_fz=$?
    tail -16 "$OUTDIR/bench_sp_fused.txt"
    fi
    if want all tests sanitize; then
    sect "compute-sanitizer memcheck"
    # the injected-fault cases make CUDA report errors on purpose: left out here
    XC_TEST_SKIP=gpu_fault_launch,gpu_fault_trap \
        timeout 270 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 $B/test_gpu \
        > "$OUTDIR/memcheck.log" 2>&1; rc_m=$?
    grep -E "ERROR SUMMARY|XC-SUMMARY|Invalid|FAILED" "$OUTDIR/memcheck.log" | head -8
    XC_TEST_ONLY=$PS_SAN timeout 270 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 \
        $B/test_gpu_pulscan > "$OUTDIR/memcheck_pulscan.log" 2>&1; rc_pm=$?
    grep -E "ERROR SUMMARY|XC-SUMMARY|Invalid|FAILED" "$OUTDIR/memcheck_pulscan.log" | head -8
    XC_TEST_ONLY=gpu_accel_vs_cpu,gpu_accel_too_large timeout 270 compute-sanitizer --tool memcheck --leak-check full \
        --error-exitcode 99 $B/test_gpu_accel > "$OUTDIR/memcheck_accel.log" 2>&1; rc_am=$?
    grep -E "ERROR SUMMARY|XC-SUMMARY|Invalid|FAILED" "$OUTDIR/memcheck_accel.log" | head -8
    XC_TEST_ONLY=gpu_equals_reference,gpu_float timeout 270 compute-sanitizer --tool memcheck --leak-check full \
        --error-exitcode 99 $B/test_gpu_approx > "$OUTDIR/memcheck_approx.log" 2>&1; rc_sm=$?
    grep -E "ERROR SUMMARY|XC-SUMMARY|Invalid|FAILED" "$OUTDIR/memcheck_approx.log" | head -8
    XC_TEST_ONLY=gpu_sp_fused,gpu_sp_device_view timeout 200 compute-sanitizer --tool memcheck --leak-check full \
        --error-exitcode 99 $B/test_gpu_sp > "$OUTDIR/memcheck_sp.log" 2>&1; rc_spm=$?
    grep -E "ERROR SUMMARY|XC-SUMMARY|Invalid|FAILED" "$OUTDIR/memcheck_sp.log" | head -8
    sect "compute-sanitizer racecheck"
    # racecheck is slow: the cases that reach every kernel (all nbits paths, the
    # packed-lane flushes, the cache fallback, float input, kill masks).
    XC_TEST_ONLY=gpu_nbits_presets,gpu_flush_paths,gpu_fallback,gpu_float,gpu_killmask \
        timeout 270 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 99 $B/test_gpu \
        > "$OUTDIR/racecheck.log" 2>&1; rc_r=$?
    grep -E "RACECHECK SUMMARY|ERROR SUMMARY|XC-SUMMARY|hazard" "$OUTDIR/racecheck.log" | head -8
    XC_TEST_ONLY=gpu_ps_borrow,gpu_ps_wide,gpu_ps_hand,gpu_ps_powers \
        timeout 270 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 99 $B/test_gpu_pulscan \
        > "$OUTDIR/racecheck_pulscan.log" 2>&1; rc_pr=$?
    grep -E "RACECHECK SUMMARY|ERROR SUMMARY|XC-SUMMARY|hazard" "$OUTDIR/racecheck_pulscan.log" | head -8
    XC_TEST_ONLY=gpu_sp_fused timeout 200 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 99 \
        $B/test_gpu_sp > "$OUTDIR/racecheck_sp.log" 2>&1; rc_spr=$?
    grep -E "RACECHECK SUMMARY|ERROR SUMMARY|XC-SUMMARY|hazard" "$OUTDIR/racecheck_sp.log" | head -8
    fi
    if want all sanitize; then
    sect "compute-sanitizer initcheck (device memory read before it was written)"
    XC_TEST_SKIP=gpu_fault_launch,gpu_fault_trap \
        timeout 270 compute-sanitizer --tool initcheck --error-exitcode 99 $B/test_gpu \
        > "$OUTDIR/initcheck.log" 2>&1; rc_i=$?
    grep -E "ERROR SUMMARY|XC-SUMMARY|Uninitialized|FAILED" "$OUTDIR/initcheck.log" | head -8
    XC_TEST_ONLY=$PS_SAN timeout 270 compute-sanitizer --tool initcheck --error-exitcode 99 \
        $B/test_gpu_pulscan > "$OUTDIR/initcheck_pulscan.log" 2>&1; rc_pi=$?
    grep -E "ERROR SUMMARY|XC-SUMMARY|Uninitialized|FAILED" "$OUTDIR/initcheck_pulscan.log" | head -8
    fi
    echo
    sect "summary ($PART)"
    logrow "GPU tests" 'XC-SUMMARY' test_gpu.log "${rc_t:-skipped}"
    logrow "single-pulse GPU tests" 'XC-SUMMARY' test_gpu_sp.log "${rc_sp:-skipped}"
    logrow "conformance suite" 'XC-SUMMARY' conformance.log "${rc_k:-skipped}"
    logrow "GPU last-chunk tests" 'XC-SUMMARY' test_gpu_tail.log "${rc_tl:-skipped}"
    logrow "GPU banded-job tests" 'XC-SUMMARY' test_gpu_bands.log "${rc_bd:-skipped}"
    logrow "GPU Pulscan share tests" 'XC-SUMMARY' test_gpu_psshare.log "${rc_ps:-skipped}"
    sumline "bench dedisperse" "exit=${rc_bd:-skipped}"
    logrow "single-pulse memcheck" 'ERROR SUMMARY' memcheck_sp.log "${rc_spm:-skipped}"
    logrow "single-pulse racecheck" 'RACECHECK SUMMARY|ERROR SUMMARY' racecheck_sp.log "${rc_spr:-skipped}"
    sumline "bench singlepulse -fused" "$(awk '$1 ~ /^(sweep|low|mid|high)$/ {printf "%s %s-bit %s: %s%%, RT %s; ", $1, $2, $3, $9, $10}' "$OUTDIR/bench_sp_fused.txt" 2>/dev/null) exit=${rc_fz:-skipped}"
    logrow "memcheck" 'ERROR SUMMARY' memcheck.log "${rc_m:-skipped}"
    logrow "racecheck" 'RACECHECK SUMMARY|ERROR SUMMARY' racecheck.log "${rc_r:-skipped}"
    sumline "cross-check (crosscheck run)" "$(tail -1 "$OUTDIR/run.txt") exit=${rc_x:-skipped}"
    sumline "benchmark" "exit=${rc_b:-skipped}"
    sumline "dd kernel/e2e/pinned/bound" "$(awk '$1 ~ /^(8|16)$/ && NF >= 21 {printf "%s-bit %s: %.1f T, %s%%, %s%%, bound %s%%, reg %s%%; ", $1, $2, $9, $16, $18, $20, $21}' "$OUTDIR/bench.txt" 2>/dev/null)"
    logrow "Pulscan GPU tests" 'XC-SUMMARY' test_gpu_pulscan.log "${rc_pt:-skipped}"
    logrow "Pulscan memcheck" 'ERROR SUMMARY' memcheck_pulscan.log "${rc_pm:-skipped}"
    logrow "Pulscan racecheck" 'RACECHECK SUMMARY|ERROR SUMMARY' racecheck_pulscan.log "${rc_pr:-skipped}"
    logrow "initcheck" 'ERROR SUMMARY' initcheck.log "${rc_i:-skipped}"
    logrow "Pulscan initcheck" 'ERROR SUMMARY' initcheck_pulscan.log "${rc_pi:-skipped}"
    sumline "J1807 gpu vs cpu candidates" "$(grep -E '^overall' "$OUTDIR/cmp-exact.txt" 2>/dev/null) exit=${rc_c:-skipped}"
    sumline "J1807 approximations vs cpu" "$(grep -E '^matched [0-9]' "$OUTDIR/cmp-approx.txt" 2>/dev/null) (expected to differ)"
    logrow "GPU accel tests" 'XC-SUMMARY' test_gpu_accel.log "${rc_at:-skipped}"
    sumline "J1807 accel gpu vs cpu" "$(grep -h -E '^overall' "$OUTDIR"/cmp-accel-*.txt 2>/dev/null | tr '\n' ' ') exit=${rc_ac:-skipped}"
    logrow "accel memcheck" 'ERROR SUMMARY' memcheck_accel.log "${rc_am:-skipped}"
    sumline "bench accel (zmax 1200)" "$(grep -E '^(cpu|gpu) ' "$OUTDIR/bench_accel.txt" 2>/dev/null | awk '{printf "%s h%s %ss; ", $1, $5, $7}') exit=${rc_ab:-skipped}"
    logrow "subband/tree GPU tests" 'XC-SUMMARY' test_gpu_approx.log "${rc_st:-skipped}"
    logrow "subband/tree memcheck" 'ERROR SUMMARY' memcheck_approx.log "${rc_sm:-skipped}"
    sumline "bench subband/tree gpu" "$(grep -c 'nsub' "$OUTDIR/bench_approx.txt" 2>/dev/null) records exit=${rc_sb:-skipped}"
    sumline "study 1 vs 8 workers (gpu)" "exit=${rc_sd:-skipped} (0: same bytes)"
    sumline "bench study (paper size)" "$(grep -E 'total, one thread|on this machine' "$OUTDIR/bench_study.txt" 2>/dev/null | sed 's/^ *//' | cut -c1-80 | tr '\n' ' ') exit=${rc_bs:-skipped}"
    sumline "Pulscan benchmark" "$(grep -E '^kernels|^candidates' "$OUTDIR/bench_pulscan.txt" | cut -c1-90 | tr '\n' ' ') exit=${rc_pb:-skipped}"
    [ ${rc_t:-0} -eq 0 ] && [ ${rc_m:-0} -eq 0 ] && [ ${rc_r:-0} -eq 0 ] && [ ${rc_x:-0} -eq 0 ] &&
        [ ${rc_b:-0} -eq 0 ] && [ ${rc_k:-0} -eq 0 ] && [ ${rc_bd:-0} -eq 0 ] && [ ${rc_pt:-0} -eq 0 ] &&
        [ ${rc_pm:-0} -eq 0 ] && [ ${rc_pr:-0} -eq 0 ] && [ ${rc_pb:-0} -eq 0 ] && [ ${rc_c:-0} -eq 0 ] &&
        [ ${rc_at:-0} -eq 0 ] && [ ${rc_ac:-0} -eq 0 ] && [ ${rc_am:-0} -eq 0 ] && [ ${rc_ab:-0} -eq 0 ] &&
        [ ${rc_st:-0} -eq 0 ] && [ ${rc_sm:-0} -eq 0 ] && [ ${rc_sb:-0} -eq 0 ] && [ ${rc_sd:-0} -eq 0 ] &&
        [ ${rc_sp:-0} -eq 0 ] && [ ${rc_tl:-0} -eq 0 ] && [ ${rc_bd:-0} -eq 0 ] && [ ${rc_ps:-0} -eq 0 ] && [ ${rc_spm:-0} -eq 0 ] && [ ${rc_spr:-0} -eq 0 ] && [ ${rc_fz:-0} -eq 0 ]
    ;;
*)
    echo "usage: sh scripts/gpu-check.sh build|device [all|tests|bench|sanitize]" >&2; exit 2 ;;
esac
