#!/bin/sh
# scripts/mutants.sh: does the test suite catch realistic bugs?  Each mutant
# of scripts/mutants.list (a one-line sed on one file: a delay rounded down,
# a dropped channel, a swapped sign of z, a tolerance doubled ...) is applied
# to a scratch copy of the tree, which is built, and the test programs the
# list names are run on it: the mutant is caught when one of them fails.  A
# mutant of an implementation is also judged as a user judges a kernel:
# `crosscheck gate` (an unmodified crosscheck judging the mutated program
# through -cmd, and the mutated program's own gate -impl with its
# pure-noise comparison, which for a bug in a reference judges the cpu
# implementation against the mutated reference).  Writes OUT/mutants.txt (the table) and
# OUT/mutants.json; exits 0 only when every mutant applied, built and was
# caught by its tests and, for implementations, by the gate.  The tests of a
# mutant run in the list's order until one fails (the table names it); the
# gate runs both ways, -impl and -cmd, each whatever the other gave, and the
# table has a column for each (the gate column: caught by either).  Not part of
# `make test` (minutes): `make mutants`.
#
#   sh scripts/mutants.sh [-j N] [-o DIR] [-check] [NAME...]
#     -j N     N mutants at once, each in its own copy (default 2)
#     -o DIR   where the table goes (default runs/mutants)
#     -check   only apply each mutant to a copy of its file and say whether it
#              changes exactly one line (no build)
#     NAME     only these mutants
#
# Every test and gate run has a time limit (MUTANT_TIMEOUT seconds, default
# 300); a run that overruns counts as failing, which is how a hang shows.
# MUTANT_BUDGET=S: no mutant is started once S seconds have passed; those
# left are rows `not-run` in the table (and the exit status is 1).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIST="$ROOT/scripts/mutants.list"
JOBS=2
OUT="$ROOT/runs/mutants"
CHECK=0
NAMES=""
while [ $# -gt 0 ]; do
    case "$1" in
    -j) JOBS=$2; shift 2 ;;
    -o) OUT=$2; shift 2 ;;
    -check) CHECK=1; shift ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "mutants.sh: unknown option $1 (-h)" >&2; exit 2 ;;
    *) NAMES="$NAMES $1"; shift ;;
    esac
done
case "$JOBS" in ''|*[!0-9]*|0) echo "mutants.sh: -j $JOBS: need a positive number" >&2; exit 2 ;; esac
TLIM=${MUTANT_TIMEOUT:-300}
BUDGET=${MUTANT_BUDGET:-0}
case "$BUDGET" in ''|*[!0-9]*) echo "mutants.sh: MUTANT_BUDGET=$BUDGET: need seconds" >&2; exit 2 ;; esac
TAB=$(printf '\t')

# The mutants chosen, one line each (the list's fields, TAB-separated).
SEL=$(mktemp "${TMPDIR:-/tmp}/xc-mutants-sel.XXXXXX") || exit 2
grep -v '^#' "$LIST" | grep -v '^[[:space:]]*$' > "$SEL"
if [ -n "$NAMES" ]; then
    for n in $NAMES; do
        awk -F'\t' -v n="$n" '$1 == n { f = 1 } END { exit !f }' "$SEL" ||
            { echo "mutants.sh: no mutant named $n in $LIST" >&2; rm -f "$SEL"; exit 2; }
    done
    awk -F'\t' -v names="$NAMES" 'BEGIN { split(names, a, " "); for (i in a) want[a[i]] = 1 } want[$1]' "$SEL" \
        > "$SEL.x" && mv "$SEL.x" "$SEL"
fi
if awk -F'\t' 'NF != 6 { print "mutants.sh: " FILENAME ": " $1 ": " NF " fields, need 6"; bad = 1 } END { exit bad }' \
    "$SEL" >&2; then :; else rm -f "$SEL"; exit 2; fi
TOTAL=$(wc -l < "$SEL")

# -check: does each sed change exactly one line of its file?
if [ "$CHECK" = 1 ]; then
    bad=0
    while IFS="$TAB" read -r name area file expr tests gate; do
        t=$(mktemp) && cp "$ROOT/$file" "$t" && sed -i -e "$expr" "$t"
        n=$(diff "$ROOT/$file" "$t" | grep -c '^>')
        rm -f "$t"
        if [ "$n" -ne 1 ]; then echo "$name: changes $n lines of $file"; bad=1; else echo "$name: ok"; fi
    done < "$SEL"
    rm -f "$SEL"
    exit $bad
fi

mkdir -p "$OUT" || exit 2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/xc-mutants.XXXXXX") || exit 2
trap 'rm -rf "$WORK" "$SEL"' EXIT
trap 'rm -rf "$WORK" "$SEL"; exit 130' INT TERM
tstart=$(date +%s)
echo "mutants: $TOTAL mutants, $JOBS at a time; building the unmodified tree first"
make -C "$ROOT" --no-print-directory -s -j"$JOBS" bin/crosscheck >/dev/null || { echo "mutants.sh: the tree does not build" >&2; exit 2; }
# the gate's judge: a copy, so that rebuilding the tree meanwhile changes nothing
CLEAN="$WORK/crosscheck"
cp "$ROOT/bin/crosscheck" "$CLEAN" || exit 2

# One scratch tree per slot: the sources and the build folder (objects
# keep their times, so a mutant rebuilds only what its file touches).
slot_tree() {
    d="$WORK/slot$1"
    mkdir -p "$d"
    (cd "$ROOT" && tar -cf - --exclude=./bin --exclude=./runs --exclude=./build/fuzz --exclude=./build/san \
        --exclude=./.git . ) | tar -C "$d" -xf -
    echo "$d"
}

# gate KIND:IMPL BIN: the unmodified crosscheck judges BIN through -cmd
# (each run of the command limited to TLIM seconds by the gate itself).
gate_cmd() {
    impl=${1#*:}
    case "$1" in
    dd:*) "$CLEAN" gate dedisperse -tier quick -quiet -timeout "$TLIM" -cmd \
              "'$2' dedisperse -i {in} -o {out} -impl $impl -dmplan {dm_lo}:{dm_end}:{dm_step}:1" ;;
    ps:*) "$CLEAN" gate search -family pulscan -tier quick -quiet -timeout "$TLIM" -cmd \
              "'$2' pulscan -i {fft} -impl $impl -zmax {zmax} -numharm {numharm} -o {out}.csv" ;;
    ac:*) "$CLEAN" gate search -family accel -tier quick -quiet -timeout "$TLIM" -cmd \
              "'$2' accel -i {fft} -impl $impl -zmax {zmax} -numharm {numharm} -o {out}.csv" ;;
    esac
}
# the mutated program's own gate of its implementation IMPL, or of the
# cpu one when IMPL is the reference (then the judge is the mutant)
gate_impl() {
    impl=${1#*:}
    [ "$impl" = reference ] && impl=cpu
    case "$1" in
    dd:*) "$2" gate dedisperse -impl "$impl" -tier quick -quiet ;;
    ps:*) "$2" gate search -family pulscan -impl "$impl" -tier quick -quiet ;;
    ac:*) "$2" gate search -family accel -impl "$impl" -tier quick -quiet ;;
    esac
}

# A gate's exit status as the table says it: 1 (a check failed) caught the
# mutant, 0 missed it; anything else (2: an error, 124: over the time limit)
# is an error, neither.
gate_verdict() {
    case "$1" in 1) echo caught ;; 0) echo missed ;; *) echo "error" ;; esac
}

# run_one SLOTDIR LINE: applies, builds, tests; writes WORK/res/NAME.
run_one() {
    d=$1
    IFS="$TAB" read -r name area file expr tests gate <<EOF
$2
EOF
    res="$WORK/res/$name"
    if [ "$BUDGET" -gt 0 ] && [ $(( $(date +%s) - tstart )) -ge "$BUDGET" ]; then
        printf '%s|%s|%s|not-run|||%s|n/a|-|0|n/a|n/a\n' "$name" "$area" "$file" "$gate" > "$res"
        printf '%-28s %-12s not run (MUTANT_BUDGET %s s spent)\n' "$name" "$area" "$BUDGET"
        return
    fi
    log="$OUT/logs/$name.log"
    : > "$log"
    t0=$(date +%s)
    cp -p "$d/$file" "$d/$file.orig"
    sed -i -e "$expr" "$d/$file"
    status=caught caught_by="" missed_by="" skipped="" gate_cmd_rc=- gate_impl_rc=- gate_res=n/a
    impl_res=n/a cmd_res=n/a
    if cmp -s "$d/$file" "$d/$file.orig"; then
        status=stale
    else
        diff -u "$d/$file.orig" "$d/$file" >> "$log"
        # the program first, then each test as it is needed: the tests run
        # in the list's order and the first that fails catches the mutant
        if ! make -C "$d" --no-print-directory -s -j1 bin/crosscheck >> "$log" 2>&1; then
            status=build-failed
        else
            for t in $tests; do
                prog=${t%%:*}; only=""
                [ "$prog" != "$t" ] && only=${t#*:}
                if [ -n "$caught_by" ]; then skipped="$skipped $t"; continue; fi
                echo "== $t" >> "$log"
                if ! make -C "$d" --no-print-directory -s -j1 "bin/tests/$prog" >> "$log" 2>&1; then
                    status=build-failed; break
                fi
                (cd "$d" && XC_BIN="$d/bin/crosscheck" XC_TEST_ONLY="$only" timeout "$TLIM" "bin/tests/$prog") \
                    >> "$log" 2>&1
                if [ $? -ne 0 ]; then caught_by="$t"; else missed_by="$missed_by $t"; fi
            done
            [ "$status" = caught ] && [ -z "$caught_by" ] && status=missed
            if [ "$status" != build-failed ] && [ "$gate" != "-" ]; then
                # the program's own gate (it has the pure-noise comparison)
                # and the unmodified judge through -cmd, each on its own
                echo "== gate -impl $gate" >> "$log"
                (cd "$WORK" && gate_impl "$gate" "$d/bin/crosscheck") >> "$log" 2>&1
                gate_impl_rc=$?
                echo "== gate -cmd $gate" >> "$log"
                (cd "$WORK" && gate_cmd "$gate" "$d/bin/crosscheck") >> "$log" 2>&1
                gate_cmd_rc=$?
                impl_res=$(gate_verdict "$gate_impl_rc") cmd_res=$(gate_verdict "$gate_cmd_rc")
                if [ "$gate_cmd_rc" = 1 ] || [ "$gate_impl_rc" = 1 ]; then gate_res=caught; else gate_res=missed; fi
            fi
        fi
    fi
    mv "$d/$file.orig" "$d/$file"
    touch "$d/$file"    # newer than the mutant's objects: the next build redoes them
    secs=$(( $(date +%s) - t0 ))
    printf '%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n' "$name" "$area" "$file" "$status" \
        "$(echo $caught_by)" "$(echo $missed_by)" "$gate" "$gate_res" "impl $gate_impl_rc, cmd $gate_cmd_rc" "$secs" \
        "$impl_res" "$cmd_res" > "$res"
    printf '%-28s %-12s tests: %-12s gate: %-7s (-impl %s, -cmd %s) %4ss %s\n' "$name" "$area" "$status" "$gate_res" \
        "$impl_res" "$cmd_res" "$secs" "$(echo $caught_by)"
}

mkdir -p "$WORK/res" "$OUT/logs"
s=0
while [ "$s" -lt "$JOBS" ]; do
    (
        d=$(slot_tree "$s")
        i=0
        while IFS= read -r line; do
            # stdin is the list: no test (mpirun reads it) may eat its lines
            [ $((i % JOBS)) -eq "$s" ] && run_one "$d" "$line" < /dev/null
            i=$((i + 1))
        done < "$SEL"
        rm -rf "$d"
    ) &
    s=$((s + 1))
done
wait
elapsed=$(( $(date +%s) - tstart ))

# The table, in the list's order.
TXT="$OUT/mutants.txt" JSON="$OUT/mutants.json"
{
    printf '%-28s %-12s %-42s %-12s %-7s %-7s %-7s %s\n' mutant area file tests gate -impl -cmd "caught by"
    while IFS="$TAB" read -r name rest; do
        IFS='|' read -r n area file status cby mby gate gres grc secs ires cres < "$WORK/res/$name"
        printf '%-28s %-12s %-42s %-12s %-7s %-7s %-7s %s\n' "$name" "$area" "$file" "$status" "$gres" "$ires" "$cres" \
            "${cby:-none}$( [ "$gres" != n/a ] && echo " + gate $gate ($grc)")"
    done < "$SEL"
} > "$TXT"
cat "$WORK"/res/* | jq -R -s --argjson secs "$elapsed" --argjson jobs "$JOBS" '
  [split("\n")[] | select(length > 0) | split("|") |
   {name: .[0], area: .[1], file: .[2], tests: .[3],
    caught_by: (.[4] | split(" ") | map(select(length > 0))),
    not_caught_by: (.[5] | split(" ") | map(select(length > 0))),
    gate: (if .[6] == "-" then null else .[6] end), gate_result: .[7], gate_exit: .[8],
    seconds: (.[9] | tonumber), gate_impl_result: .[10], gate_cmd_result: .[11]}] as $m |
  {seconds: $secs, jobs: $jobs, total: ($m | length),
   caught_by_tests: ($m | map(select(.tests == "caught")) | length),
   not_run: ($m | map(select(.tests == "not-run")) | length),
   implementation_mutants: ($m | map(select(.gate != null)) | length),
   caught_by_gate: ($m | map(select(.gate_result == "caught")) | length),
   caught_by_gate_impl: ($m | map(select(.gate_impl_result == "caught")) | length),
   caught_by_gate_cmd: ($m | map(select(.gate_cmd_result == "caught")) | length),
   mutants: $m}' > "$JSON" || exit 2
ntot=$(jq .total "$JSON"); ncau=$(jq .caught_by_tests "$JSON")
nimp=$(jq .implementation_mutants "$JSON"); ngat=$(jq .caught_by_gate "$JSON")
ngi=$(jq .caught_by_gate_impl "$JSON"); ngc=$(jq .caught_by_gate_cmd "$JSON"); nnot=$(jq .not_run "$JSON")
echo
cat "$TXT"
echo
echo "mutants: tests caught $ncau of $ntot; gate caught $ngat of $nimp implementation mutants (-impl $ngi, -cmd $ngc);" \
    "${elapsed} s with -j $JOBS$( [ "$nnot" -gt 0 ] && echo "; $nnot not run (MUTANT_BUDGET $BUDGET s)")"
echo "table: $TXT, $JSON; logs: $OUT/logs/"
[ "$ncau" -eq "$ntot" ] && [ "$ngat" -eq "$nimp" ]
