"""A stand-in for PRESTO's single_pulse_search.py (tests/test_peers.c): one
.singlepulse beside each .dat it is given, as the script writes them.
SP_STANDIN=ours: the DM 100 series' file is a copy of ours.singlepulse (the
check's crosscheck list, in the working folder), the others hold no
candidate; anything else: every file holds no candidate."""
import os
import shutil
import sys

HEADER = "# DM      Sigma      Time (s)     Sample    Downfact\n"
for arg in sys.argv[1:]:
    if not arg.endswith(".dat"):
        continue
    out = arg[:-4] + ".singlepulse"
    if os.environ.get("SP_STANDIN") == "ours" and arg.endswith("_DM100.00.dat"):
        shutil.copy("ours.singlepulse", out)
    else:
        with open(out, "w") as f:
            f.write(HEADER)
