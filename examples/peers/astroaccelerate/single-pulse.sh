#!/bin/sh
# AstroAccelerate's single-pulse search (its "analysis" component, through
# its own astro-accelerate program and an input file) as a
# `crosscheck gate singlepulse -cmd`:
#   crosscheck gate singlepulse -cmd 'sh examples/peers/astroaccelerate/single-pulse.sh BIN {fil} {out}
#     {dmlo} {dmhi} {dmstep} {threshold} {maxwidth_s} {tsamp}'
# BIN holds astro-accelerate (build.sh).  One DM range [dmlo, dmhi + dmstep)
# at dmstep, no binning; sigma_cutoff {threshold}; max_boxcar_width_in_sec
# {maxwidth_s}; candidate_algorithm "threshold" (every box above the cut:
# its analysed-*.dat) unless AA_PEAK=1 (its default peak finder:
# peak_analysed-*.dat).  Its candidate files (float32 quadruples: DM, time
# s, S/N, width in samples; aa_device_analysis.cu) become {out}.csv
# (aacand.py).  Runs in {out}'s folder: the program writes into its cwd.
set -eu
BIN=$(cd "$1" && pwd) FIL=$2 OUT=$3 DMLO=$4 DMHI=$5 DMSTEP=$6 THR=$7 WMAX=$8 TSAMP=$9
DIR=$(dirname "$OUT")/aa-run
rm -rf "$DIR" && mkdir -p "$DIR"
END=$(python3 -c "print($DMHI + $DMSTEP)")
{
    echo "range $DMLO $END $DMSTEP 1 1"
    echo "sigma_cutoff $THR"
    echo "sigma_constant 3.0"
    echo "max_boxcar_width_in_sec $WMAX"
    echo "selected_card_id 0"
    echo "analysis"
    [ "${AA_PEAK:-0}" = 1 ] || echo "threshold"
    echo "file $(cd "$(dirname "$FIL")" && pwd)/$(basename "$FIL")"
} > "$DIR/input.txt"
(cd "$DIR" && "$BIN/astro-accelerate" input.txt) > "$OUT.log" 2>&1 || { tail -5 "$OUT.log" >&2; exit 1; }
python3 "$(dirname "$0")/aacand.py" "$TSAMP" "$DMLO" "$DMSTEP" "$DIR"/*analysed-*.dat > "$OUT.csv"
