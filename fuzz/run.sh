#!/bin/sh
# Runs fuzz targets one after another (one process each, never two at once):
#   sh fuzz/run.sh FUZZ_DIR SECONDS TARGET...
# Each target gets FUZZ_DIR/corpus/TARGET, seeded from the paths fuzz/corpus.txt
# lists for it (copied once; libFuzzer adds what it finds), with
# datasets/fuzz-findings read as a second corpus; crash, leak, timeout and
# out-of-memory inputs go to FUZZ_DIR/artifacts/, each log to FUZZ_DIR/logs/.
# Prints executions and seconds per target; exits 1 if any target failed.
set -u
dir=$1; secs=$2; shift 2
mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/logs" "$dir/tmp"
TMPDIR=$(cd "$dir/tmp" && pwd); export TMPDIR
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}; export ASAN_OPTIONS
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}; export UBSAN_OPTIONS
failed=""
printf '%-18s %12s %8s %8s %s\n' target executions seconds corpus result
for t in "$@"; do
    line=$(grep "^$t " fuzz/corpus.txt)
    if [ -z "$line" ]; then
        echo "fuzz: $t has no line in fuzz/corpus.txt"; failed="$failed $t"; continue
    fi
    maxlen=$(echo "$line" | awk '{print $2}')
    paths=$(echo "$line" | cut -d' ' -f3-)
    c="$dir/corpus/$t"
    mkdir -p "$c"
    for p in $paths; do          # unquoted: the globs of corpus.txt expand here
        for f in $p; do
            if [ -f "$f" ]; then cp "$f" "$c/"; elif [ -d "$f" ]; then cp "$f"/* "$c/" 2>/dev/null; fi
        done
    done
    log="$dir/logs/$t.log"
    start=$(date +%s)
    "$dir/bin/$t" -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        -max_len="$maxlen" -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t-" \
        "$c" datasets/fuzz-findings >"$log" 2>&1
    rc=$?
    end=$(date +%s)
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}' | tail -n 1)
    n=$(ls "$c" | wc -l)
    if [ "$rc" -eq 0 ]; then res=ok; else res="FAILED (exit $rc, see $log)"; failed="$failed $t"; fi
    printf '%-18s %12s %8s %8s %s\n' "$t" "${execs:-?}" $((end - start)) "$n" "$res"
    if [ "$rc" -ne 0 ]; then
        grep -E 'ERROR|fuzz property failed|SUMMARY|Test unit written' "$log" | head -n 8 | sed 's/^/    /'
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz: failed:$failed (inputs in $dir/artifacts/)"
    exit 1
fi
echo "fuzz: every target ran ${secs}s with no crash, leak, timeout or property failure"
