#!/bin/sh
# Prints the python that runs PRESTO's scripts: $PYTHON when set, else the
# first of python3 (PATH) and /usr/bin/python3 that imports numpy and scipy
# (a pyenv python3 first on PATH often has neither).  Exit 2 when none does.
for p in ${PYTHON:-python3 /usr/bin/python3}; do
    if "$p" -c 'import numpy, scipy.signal, scipy.stats' 2>/dev/null; then
        command -v "$p"
        exit 0
    fi
done
echo "python-of.sh: none of ${PYTHON:-python3 /usr/bin/python3} imports numpy and scipy (set PYTHON)" >&2
exit 2
