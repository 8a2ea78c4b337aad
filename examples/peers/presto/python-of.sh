#!/bin/sh
# Prints the python that runs PRESTO's scripts: $PYTHON when set, else the
# first of python3 (PATH) and /usr/bin/python3 that has numpy and scipy
# (a pyenv python3 first on PATH often has neither).  Exit 2 when none does.
# PYTHON_NEEDS (default "numpy scipy"): the modules it must have; the test
# suite's stand-in for single_pulse_search.py needs numpy alone.
# The packages are found, not imported (importing scipy.signal takes a CPU
# second; a broken install still fails, in the script that imports it).
needs=${PYTHON_NEEDS:-numpy scipy}
for p in ${PYTHON:-python3 /usr/bin/python3}; do
    # shellcheck disable=SC2086
    if "$p" -c 'import importlib.util as u, sys; sys.exit(not all(map(u.find_spec, sys.argv[1:])))' $needs \
        2>/dev/null; then
        command -v "$p"
        exit 0
    fi
done
echo "python-of.sh: none of ${PYTHON:-python3 /usr/bin/python3} has $needs (set PYTHON)" >&2
exit 2
