#!/bin/sh
# The GPU peers through crosscheck's gate on one GPU machine: dedisp (as a
# plugin: the library itself), Heimdall, AstroAccelerate (dedispersion,
# single-pulse search and FDAS) and Pulscan's GPU program, one verdict line
# each.
# Their code is never part of this repository: each is built from a source
# tree you fetched, by examples/peers/<peer>/build.sh, outside it.
#
#   sh scripts/peers-gpu.sh stage DIR      here: put what the device needs into DIR
#                                          (a folder the device call carries, e.g.
#                                          build/gpuh2): crosscheck (build/dev/bin, from
#                                          `sh scripts/gpu-check.sh build`), the glue, this
#                                          script and the peers' builds named by
#                                          PEER_DEDISP_BUILD PEER_HEIMDALL_BUILD
#                                          PEER_PULSCAN_GPU_BUILD PEER_AA_BUILD; or, to build
#                                          Heimdall and AstroAccelerate on the device's
#                                          cores, PEER_HEIMDALL_SRC and PEER_AA_SRC (their
#                                          source trees; Heimdall's needs PEER_DEDISP_BUILD)
#   sh DIR/scripts/peers-gpu.sh device     there: every peer staged, each step under
#                                          `timeout`; a line per verdict, the gates'
#                                          whole output in $OUT/peers-gpu.txt
#
# Each verdict line is the gate's own summary ("N checks, M failed"), then
# its failed checks' first lines.  STEP_TIMEOUT (default 100) bounds a step.
set -u
MODE=${1:-}
case "$MODE" in
stage)
    D=${2:?usage: sh scripts/peers-gpu.sh stage DIR}
    rm -rf "$D" && mkdir -p "$D/bin" "$D/scripts" "$D/examples" "$D/peers" || exit 1
    cp build/dev/bin/crosscheck "$D/bin/" || { echo "no build/dev/bin/crosscheck: sh scripts/gpu-check.sh build" >&2; exit 1; }
    cp scripts/peers-gpu.sh "$D/scripts/"
    cp -r examples/peers "$D/examples/"
    CUDA=${CUDA_PATH:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
    if [ -n "${PEER_DEDISP_BUILD:-}" ]; then
        mkdir -p "$D/peers/dedisp/lib"
        cp -P "$PEER_DEDISP_BUILD"/lib/libdedisp.so* "$D/peers/dedisp/lib/"
        cp -r "$PEER_DEDISP_BUILD/include" "$PEER_DEDISP_BUILD/COMMIT" "$D/peers/dedisp/"
        gcc -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -Iinclude/crosscheck -I"$CUDA/include" \
            -I"$PEER_DEDISP_BUILD/include" -o "$D/peers/dedisp/libxcdedisp.so" examples/peers/dedisp/plugin.c \
            -L"$PEER_DEDISP_BUILD/lib" -ldedisp -L"$CUDA/lib64" -lcudart -Wl,-rpath,'$ORIGIN/lib' || exit 1
    fi
    if [ -n "${PEER_HEIMDALL_BUILD:-}" ]; then
        mkdir -p "$D/peers/heimdall"
        cp -P "$PEER_HEIMDALL_BUILD"/heimdall "$PEER_HEIMDALL_BUILD"/libdedisp.so* "$PEER_HEIMDALL_BUILD/COMMIT" "$D/peers/heimdall/"
    elif [ -n "${PEER_HEIMDALL_SRC:-}" ]; then
        mkdir -p "$D/peers/heimdall-src"
        (cd "$PEER_HEIMDALL_SRC" && tar cf - --exclude=.git .) | (cd "$D/peers/heimdall-src" && tar xf -)
        (git -C "$PEER_HEIMDALL_SRC" log -1 --format='%H %cs' 2>/dev/null || echo unknown) > "$D/peers/heimdall-src/COMMIT"
    fi
    if [ -n "${PEER_PULSCAN_GPU_BUILD:-}" ]; then
        mkdir -p "$D/peers/pulscan-gpu"
        cp "$PEER_PULSCAN_GPU_BUILD/pulscan_gpu" "$PEER_PULSCAN_GPU_BUILD/COMMIT" "$D/peers/pulscan-gpu/"
    fi
    if [ -n "${PEER_AA_BUILD:-}" ]; then
        mkdir -p "$D/peers/aa"
        cp "$PEER_AA_BUILD/astro-accelerate" "$PEER_AA_BUILD/aa_dedisperse" "$PEER_AA_BUILD/aa_fdas" \
            "$PEER_AA_BUILD/COMMIT" "$D/peers/aa/"
    elif [ -n "${PEER_AA_SRC:-}" ]; then
        mkdir -p "$D/peers/aa-src"
        (cd "$PEER_AA_SRC" && tar cf - src include) | (cd "$D/peers/aa-src" && tar xf -)
        (git -C "$PEER_AA_SRC" log -1 --format='%H %cs' 2>/dev/null || echo unknown) > "$D/peers/aa-src/COMMIT"
    fi
    du -sh "$D"
    ;;
device)
    ROOT=$(cd "$(dirname "$0")/.." && pwd)
    cd "$ROOT" || exit 1
    OUTDIR=${OUT:-/tmp/peers-gpu}
    mkdir -p "$OUTDIR"
    LOG=$OUTDIR/peers-gpu.txt
    : > "$LOG"
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    XC=$ROOT/bin/crosscheck
    P=$ROOT/peers
    TO=${STEP_TIMEOUT:-100}
    W=/tmp/peers-gpu-work
    rm -rf $W && mkdir -p $W
    T0=$(date +%s)
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    # AstroAccelerate and Heimdall from source on this machine's cores, while
    # the others run (their build scripts, as here)
    if [ ! -x $P/aa/astro-accelerate ] && [ -d $P/aa-src ]; then
        (JOBS=$(( $(nproc) - 4 )) timeout "${BUILD_TIMEOUT:-200}" sh examples/peers/astroaccelerate/build.sh $P/aa-src $P/aa \
            > "$OUTDIR/aa-build.txt" 2>&1; echo "exit $?" >> "$OUTDIR/aa-build.txt") &
        AAPID=$!
    fi
    if [ ! -x $P/heimdall/heimdall ] && [ -d $P/heimdall-src ]; then
        (JOBS=3 timeout "${BUILD_TIMEOUT:-200}" sh examples/peers/heimdall/build.sh $P/heimdall-src $P/dedisp $P/heimdall \
            > "$OUTDIR/heimdall-build.txt" 2>&1; echo "exit $?" >> "$OUTDIR/heimdall-build.txt") &
        HDPID=$!
    fi
    # verdict NAME CMD...: runs a gate under timeout; one line and its failures
    verdict() {
        name=$1; shift
        echo "==== $name: $*" >> "$LOG"
        start=$(wc -l < "$LOG")
        timeout "$TO" "$@" >> "$LOG" 2>&1
        rc=$?
        tail -n +"$((start + 1))" "$LOG" > $W/last.txt
        printf '%-34s rc=%-3s %s  [%ds]\n' "$name" "$rc" "$(grep -E '^[0-9]+ checks' $W/last.txt | tail -1)" \
            "$(( $(date +%s) - T0 ))"
        grep -E '^FAIL' $W/last.txt | cut -c1-160 | sed 's/^/    /' | head -8
    }
    if [ -f $P/dedisp/libxcdedisp.so ]; then
        echo "dedisp $(cat $P/dedisp/COMMIT)"
        # isolated (the default) once, then in-process: a CUDA context made in
        # crosscheck's process before the fork that isolates a run is unusable
        # in the child (dedisp_create_plan then reports an allocation failure)
        verdict "dedisp/dedisp isolated" $XC gate dedisperse -convention dedisp -plugin $P/dedisp/libxcdedisp.so \
            -impl dedisp -quiet
        export CROSSCHECK_PLUGIN_ISOLATE=0
        for impl in dedisp dedisp-out8; do
            verdict "dedisp/$impl -convention dedisp" $XC gate dedisperse -convention dedisp -plugin $P/dedisp/libxcdedisp.so \
                -impl $impl -quiet
        done
        verdict "dedisp/dedisp -convention crosscheck" $XC gate dedisperse -plugin $P/dedisp/libxcdedisp.so -impl dedisp -quiet
    fi
    if [ -x $P/pulscan-gpu/pulscan_gpu ]; then
        echo "pulscan-gpu $(cat $P/pulscan-gpu/COMMIT)"
        verdict "pulscan_gpu gate search" $XC gate search -family pulscan -quiet -keep -work $W/ps -cmd \
            "sh $ROOT/examples/peers/pulscan-gpu/pulscan-gpu.sh $P/pulscan-gpu {fft} {out} {T}"
        echo "    its strongest rows (r = the 256-bin block's first bin):"
        for f in $W/ps/*/*.gpucand; do sort -t, -k3 -g -r "$f" | head -4 | sed "s|^|    $(basename "$f"): |"; done
        (cd $W && timeout 60 python3 $ROOT/examples/peers/pulscan-gpu/boxcar-probe.py $P/pulscan-gpu/pulscan_gpu) 2>&1 | tee -a "$LOG"
    fi
    if [ -n "${HDPID:-}" ]; then
        wait $HDPID
        echo "heimdall build: $(tail -1 "$OUTDIR/heimdall-build.txt") [$(( $(date +%s) - T0 ))s]"
        grep -E 'error|FAILED' "$OUTDIR/heimdall-build.txt" | head -5
        [ -x $P/heimdall/heimdall ] && tar czf "$OUTDIR/heimdall-bin.tgz" -C $P heimdall/heimdall heimdall/COMMIT
    fi
    if [ -x $P/heimdall/heimdall ]; then
        echo "heimdall $(cat $P/heimdall/COMMIT 2>/dev/null || cat $P/heimdall-src/COMMIT)"
        verdict "heimdall gate singlepulse" $XC gate singlepulse -quiet -keep -work $W/hd -cmd \
            "sh $ROOT/examples/peers/heimdall/single-pulse.sh $P/heimdall {fil} {out} {dmlo} {dmhi} {threshold} {maxwidth_s} {tsamp}"
        tail -3 $W/hd/*/*.log 2>/dev/null | tail -8 >> "$LOG"
        # its rows near each burst (1.3, 3.5, 5.4 s: samples 5078, 13672,
        # 21094 at 256 us): DM, S/N and box of each cluster it wrote
        echo "    its rows near the bursts (snr sample time filter dm_trial dm members begin end):"
        awk '($2 > 4900 && $2 < 5300) || ($2 > 13500 && $2 < 13850) || ($2 > 20900 && $2 < 21300)' \
            $W/hd/sp-bursts/cands.cand 2>/dev/null | sort -k2 -n | head -12 | sed 's/^/    /'
        # a finer DM grid (trials at 99.52 and 101.20 where -dm_tol 1.25 has
        # 98.13 and 102.45 around the bursts' DM 100)
        export HEIMDALL_ARGS="-dm_tol 1.05"
        verdict "heimdall -dm_tol 1.05" $XC gate singlepulse -quiet -keep -work $W/hd105 -cmd \
            "sh $ROOT/examples/peers/heimdall/single-pulse.sh $P/heimdall {fil} {out} {dmlo} {dmhi} {threshold} {maxwidth_s} {tsamp}"
        unset HEIMDALL_ARGS
    fi
    if [ -n "${AAPID:-}" ]; then
        wait $AAPID
        echo "aa build: $(tail -1 "$OUTDIR/aa-build.txt") [$(( $(date +%s) - T0 ))s]"
        grep -E 'error|FAILED' "$OUTDIR/aa-build.txt" | head -5
        # what was built comes back, for a later call to carry (PEER_AA_BUILD)
        [ -x $P/aa/astro-accelerate ] && tar czf "$OUTDIR/aa-bin.tgz" -C $P aa/astro-accelerate aa/aa_dedisperse aa/aa_fdas aa/COMMIT
    fi
    if [ -x $P/aa/astro-accelerate ]; then
        echo "astroaccelerate $(cat $P/aa/COMMIT 2>/dev/null || cat $P/aa-src/COMMIT)"
        verdict "aa dedisperse -convention astroaccelerate" $XC gate dedisperse -convention astroaccelerate -format npy -quiet \
            -cmd "sh $ROOT/examples/peers/astroaccelerate/dedisperse.sh $P/aa {in} {out} {dm_lo} {dm_end} {dm_step} {ndm} {nchans} {nbits}"
        verdict "aa single-pulse" $XC gate singlepulse -quiet -keep -work $W/aa -cmd \
            "sh $ROOT/examples/peers/astroaccelerate/single-pulse.sh $P/aa {fil} {out} {dmlo} {dmhi} {dmstep} {threshold} {maxwidth_s} {tsamp}"
        tail -3 $W/aa/*/*.log 2>/dev/null | tail -8 >> "$LOG"
        # its 8-bit difference from trial 65 on: trials 64.. each on a plan
        # of its own (examples/peers/astroaccelerate/dedisperse.sh AA_ALONE_FROM)
        export AA_ALONE_FROM=64
        verdict "aa dedisperse, trials 64.. alone" $XC gate dedisperse -convention astroaccelerate \
            -format npy -quiet -cmd "sh $ROOT/examples/peers/astroaccelerate/dedisperse.sh $P/aa {in} {out} {dm_lo} \
{dm_end} {dm_step} {ndm} {nchans} {nbits}"
        unset AA_ALONE_FROM
    fi
    if [ -x $P/aa/aa_fdas ]; then
        for flags in "-norm" "-norm -inbin"; do
            export AA_FDAS="$flags"
            tag=$(echo "$flags" | tr -d ' -')
            verdict "aa fdas $flags" $XC gate search -quiet -keep -work "$W/fdas-$tag" -cmd \
                "sh $ROOT/examples/peers/astroaccelerate/fdas.sh $P/aa {dat} {out} {T} {tsamp}"
            for f in "$W/fdas-$tag"/*/aa-fdas-run/acc_list_*.dat; do
                echo "    $(basename "$(dirname "$(dirname "$f")")"): $(wc -l < "$f") rows; strongest (z, accel, j, f, power, S/N):"
                sort -t"$(printf '\t')" -k6 -g -r "$f" | head -3 | sed 's/^/      /'
            done
            # a case without a list: an empty search, or a failed CUDA call
            # (its log's "- ERROR" lines, aa_fdas's pending CUDA error)
            for d in "$W/fdas-$tag"/*/aa-fdas-run; do
                [ -f "$d/acc_list_0.000000.dat" ] && continue
                echo "    $(basename "$(dirname "$d")"): no list; its log's errors and last line:"
                { grep -E ' - ERROR |aa_fdas: CUDA error' "$(dirname "$d")/cands.log"; tail -1 "$(dirname "$d")/cands.log"; } \
                    2>/dev/null | head -4 | cut -c1-160 | sed 's/^/      /'
            done
        done
        unset AA_FDAS
        # the last trial of a range is never searched (its loop: dm_count < ndms - 1)
        d=$(ls "$W/fdas-norm"/*/psr.dat | head -1)
        (cd $W && rm -f acc_list_*.dat && timeout 30 $P/aa/aa_fdas "$d" 0.001 -norm -ndms 1 > fdas1.log 2>&1)
        echo "    aa_fdas -ndms 1 on $(basename "$(dirname "$d")"): exit $?, $(ls $W/acc_list_*.dat 2>/dev/null | wc -l) candidate file(s)"
    fi
    echo "done in $(( $(date +%s) - T0 )) s; whole output: $LOG"
    ;;
*)
    echo "usage: sh scripts/peers-gpu.sh stage DIR | device" >&2
    exit 2
    ;;
esac
