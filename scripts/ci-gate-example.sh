#!/bin/sh
# The CI gate of docs/ci.md, as one script: docs/ci.md shows it line for
# line and tests/test_gate.c runs it (with the example plugin and crosscheck's
# own dedisperser as "your tool"), so the documentation cannot rot.
#
# Environment (the defaults are what a CI job that installed crosscheck has):
#   CROSSCHECK   the crosscheck program                       [crosscheck]
#   XC_CFLAGS    how to compile against xc_plugin.h            [pkg-config --cflags crosscheck]
#   PLUGIN_SRC   your plugin's source                         [src/mydedisp_plugin.c]
#   DEDISP_CMD   your dedispersion tool as a -cmd template     [./build/mydedisp ...]
set -eu
CROSSCHECK=${CROSSCHECK:-crosscheck}
XC_CFLAGS=${XC_CFLAGS:-$(pkg-config --cflags crosscheck)}
PLUGIN_SRC=${PLUGIN_SRC:-src/mydedisp_plugin.c}
if [ -z "${DEDISP_CMD:-}" ]; then
    DEDISP_CMD='./build/mydedisp --fil {in} --dmlist {dmlist} --npy {out}.npy'
fi

# 1. Your kernel as a plugin: xc_plugin.h only, nothing of libcrosscheck is linked.
cc -std=c11 -O2 -shared -fPIC $XC_CFLAGS -o libmydedisp.so "$PLUGIN_SRC" -lm

# 2. crosscheck sees it (list, run, bench, gate all take -plugin).
$CROSSCHECK list -plugin ./libmydedisp.so

# 3. The gate: every case of the quick tier against the reference, one JUnit
#    test case per check.  Exit status 0 pass, 1 a check failed, 2 an error.
$CROSSCHECK gate dedisperse -plugin ./libmydedisp.so -tier quick -junit gate-plugin.xml

# 4. Your command-line tool, unchanged: crosscheck writes each case's
#    filterbank and DM list, runs the command, reads what it wrote.
$CROSSCHECK gate dedisperse -cmd "$DEDISP_CMD" -tier quick -float -junit gate-cmd.xml
