"""Pulscan GPU's boxcar loop, seen from its output (needs numpy and a GPU).

    python3 boxcar-probe.py PULSCAN_GPU

Writes probe.fft: 2^20 complex bins of unit Gaussian noise with a flat
signal (amplitude 20 added to the real part) over 200 contiguous bins from
bin B = 300032 (a block start), runs pulscan_gpu on it and prints, for the
block at B and harmonic 1, the power it reports at each of its widths z.
Every bin of the signal has about the same power p, so the sums tell the
loop apart:
  as written, `if (z = targetZ)`: the body runs at z = 0, 2, 3, 5, 9, 17, 33,
    65, 129 and the k-th record (z = 1, 2, 4 ... 256) holds k + 2 terms
    (bin i twice): power(z) / power(1) = (k + 2) / 2, 5 at z = 256;
  contiguous, `==`: the record at z holds z + 2 terms (bin i twice):
    power(z) / power(1) = (z + 2) / 3, 86 at z = 256.
Prints both predictions beside the measured ratios."""
import os
import subprocess
import sys

import numpy as np

B, L, A, N = 300032, 200, 20.0, 1 << 20
rng = np.random.default_rng(5)
x = rng.standard_normal(2 * N).astype(np.float32)
x[2 * B:2 * (B + L):2] += A
x.tofile("probe.fft")
r = subprocess.run([sys.argv[1], "probe.fft"], capture_output=True, text=True)
if r.returncode or not os.path.exists("probe.gpucand"):
    sys.exit("pulscan_gpu failed (%d): %s" % (r.returncode, (r.stdout + r.stderr)[-400:]))
rows = [l.split(",") for l in open("probe.gpucand").read().split("\n")[1:] if l]
got = {int(z): float(p) for rr, z, p, lp, h in rows if int(rr) == B and int(h) == 1}
print("boxcar probe: block r=%d, harmonic 1: %d records (z: %s)" % (B, len(got), sorted(got)))
if 1 not in got:
    sys.exit("boxcar probe: no z=1 record for the block (logp threshold?)")
print("   z   power   ratio   as-written (k+2)/2   contiguous (z+2)/3")
for k, z in enumerate(sorted(got)):
    print("%4d %8.1f %7.2f %20.2f %20.2f" % (z, got[z], got[z] / got[1], (k + 2) / 2, (z + 2) / 3))
