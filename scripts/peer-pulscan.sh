#!/bin/sh
# Pulscan's own GPU code (White et al. 2024, github.com/jack-white1/pulscan-gpu)
# and ours side by side on one GPU, on one spectrum: the Pulscan paper's Table 4
# size (T = 600 s at 128 us, 2 343 750 bins) as `crosscheck bench gpu-pulscan`
# makes it.  Their code is never part of this repository: it is built from a
# snapshot you fetched, into build/peers/ (ignored by git).
#
#   sh scripts/peer-pulscan.sh build GIT_DIR   here: nvcc their pulscan_gpu.cu from the
#                                              snapshot's HEAD (a bare or normal git dir)
#   sh scripts/peer-pulscan.sh device          on the device machine, build/dev/bin and
#                                              build/peers carried: both searches, then a table
#
# Their program times its stages with CUDA events placed around host-side
# cudaMalloc calls too; so both programs are also run under Nsight Compute,
# which gives every kernel's own duration (gpu__time_duration, caches and
# clocks left as found), and the table compares those.  Their search has
# zmax 256 (Pulscan's fixed boxcar widths), 4 harmonic stages, median of
# medians normalisation and the log p polynomial; ours is run as the bench
# runs it (exact median, exact log p) and with -norm mom -logp poly.
set -u
MODE=${1:-}
PEER=build/peers/pulscan-gpu
case "$MODE" in
build)
    GIT=${2:?usage: sh scripts/peer-pulscan.sh build GIT_DIR}
    mkdir -p $PEER
    git --git-dir="$GIT" show HEAD:pulscan_gpu.cu > $PEER/pulscan_gpu.cu || { git -C "$GIT" show HEAD:pulscan_gpu.cu > $PEER/pulscan_gpu.cu || exit 1; }
    (git --git-dir="$GIT" log -1 --format='%H %cs' 2>/dev/null || git -C "$GIT" log -1 --format='%H %cs') > $PEER/COMMIT
    NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    "$NVCC" -O3 -gencode arch=compute_90,code=sm_90 -o $PEER/pulscan_gpu $PEER/pulscan_gpu.cu -lstdc++ -lm || exit 1
    echo "built $PEER/pulscan_gpu from $(cat $PEER/COMMIT); carry build/peers and build/dev/bin to the device"
    ;;
device)
    OUTDIR=${OUT:-/tmp/peer-pulscan}
    mkdir -p "$OUTDIR"
    B=build/dev/bin
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUTDIR/device.txt"
    W=/tmp/peer-pulscan-work
    rm -rf $W && mkdir -p $W
    echo "== ours: crosscheck bench gpu-pulscan (writes the spectrum)"
    $B/crosscheck bench gpu-pulscan -json "$OUTDIR/ours.json" -fft $W/table4.fft > "$OUTDIR/ours.txt" 2>&1
    echo "rc $?"; cat "$OUTDIR/ours.txt"
    echo "== theirs: pulscan_gpu, 5 runs (their own event times)"
    for i in 1 2 3 4 5; do
        (cd $W && "$OLDPWD/$PEER/pulscan_gpu" table4.fft) > "$OUTDIR/theirs-$i.txt" 2>&1
    done
    grep -E "took|taken" "$OUTDIR/theirs-3.txt"
    if [ -n "$NCU" ]; then
        echo "== kernel durations under Nsight Compute"
        (cd $W && timeout 300 "$NCU" --csv --metrics gpu__time_duration.sum --cache-control none --clock-control none \
            "$OLDPWD/$PEER/pulscan_gpu" table4.fft) > "$OUTDIR/ncu-theirs.csv" 2>&1
        timeout 300 "$NCU" --csv --metrics gpu__time_duration.sum --cache-control none --clock-control none \
            --kernel-name regex:'k_' $B/crosscheck bench gpu-pulscan -json $W/ncu.json -reps 3 \
            > "$OUTDIR/ncu-ours.csv" 2>&1
        timeout 300 "$NCU" --csv --metrics gpu__time_duration.sum --cache-control none --clock-control none \
            --kernel-name regex:'k_' $B/crosscheck bench gpu-pulscan -json $W/ncu-zlog.json -reps 3 -zlog \
            > "$OUTDIR/ncu-ours-zlog.csv" 2>&1
        python3 - "$OUTDIR" <<'EOF'
import csv, io, statistics, sys
out = sys.argv[1]
def rows(path):
    text = open(path).read()
    i = text.find('"ID"')
    return list(csv.DictReader(io.StringIO(text[i:]))) if i >= 0 else []
def dur(r):
    v = float(r["Metric Value"].replace(",", ""))
    return v / 1e6 if r["Metric Unit"] in ("nsecond", "ns") else v / 1e3 if r["Metric Unit"] in ("usecond", "us") else v
theirs = {}
for r in rows(f"{out}/ncu-theirs.csv"):
    k = r["Kernel Name"].split("(")[0]
    theirs[k] = theirs.get(k, 0) + dur(r)
# ours: runs of the pipeline in order; a run starts at each k_normalise
# (k_separate only for very wide blocks); the last run is -norm mom -logp poly
def our_runs(path):
  runs = []
  for r in rows(path):
    k = r["Kernel Name"].split("(")[0].split("::")[-1]
    if k in ("k_normalise", "k_separate") and (not runs or "k_normalise" in runs[-1] or k == "k_separate"):
        runs.append({})
    if runs:
        runs[-1][k] = runs[-1].get(k, 0) + dur(r)
  exact = runs[:-1]
  names = sorted({k for r in exact for k in r})
  return {k: statistics.median([r.get(k, 0) for r in exact]) for k in names}, (runs[-1] if runs else {}), len(exact)
ours, mom, nruns = our_runs(f"{out}/ncu-ours.csv")
zl, zlmom, _ = our_runs(f"{out}/ncu-ours-zlog.csv")
with open(f"{out}/peer-table.txt", "w") as f:
    def p(s=""):
        print(s); f.write(s + "\n")
    p("kernel durations (ms, Nsight Compute gpu__time_duration)")
    p("  theirs (pulscan_gpu): " + ", ".join(f"{k} {v:.4f}" for k, v in theirs.items()))
    p(f"  theirs, all kernels: {sum(theirs.values()):.4f}")
    p("  ours, exact (median of %d runs): " % nruns + ", ".join(f"{k} {v:.4f}" for k, v in ours.items()))
    p(f"  ours, all kernels: {sum(ours.values()):.4f}")
    if mom:
        p("  ours, -norm mom -logp poly: " + ", ".join(f"{k} {v:.4f}" for k, v in mom.items()))
        p(f"  ours (mom, poly), all kernels: {sum(mom.values()):.4f}")
    if zl:
        p("  ours, -zlog (their widths): " + ", ".join(f"{k} {v:.4f}" for k, v in zl.items()))
        p(f"  ours, -zlog, all kernels: {sum(zl.values()):.4f}; with -norm mom -logp poly too: {sum(zlmom.values()):.4f}")
    if ours and theirs:
        p(f"  theirs / ours: {sum(theirs.values()) / sum(ours.values()):.2f}x (exact), "
          f"{sum(theirs.values()) / max(sum(mom.values()), 1e-9):.2f}x (mom, poly), "
          f"{sum(theirs.values()) / max(sum(zl.values()), 1e-9):.2f}x (-zlog)")
EOF
    fi
    ;;
*)
    echo "usage: sh scripts/peer-pulscan.sh build GIT_DIR | device" >&2
    exit 2
    ;;
esac
