"""Two spectra in PRESTO realfft's layout (float32 pairs, DC and Nyquist in
bin 0) compared float by float within the round-off bound of an FFT of N
points, |diff| <= log2(N) x 2^-24 x max|X| (the second file's max):
  python fft_compare.py A.fft B.fft NAME_A NAME_B
Exit 0 within it, 1 beyond it or of different lengths."""
import math
import sys

import numpy as np

a = np.fromfile(sys.argv[1], np.float32).astype(np.float64)
b = np.fromfile(sys.argv[2], np.float32).astype(np.float64)
na, nb = sys.argv[3], sys.argv[4]
if a.size != b.size:
    print(f"{na}: {a.size // 2} bins, {nb}: {b.size // 2} bins")
    sys.exit(1)
d = np.abs(a - b)
n = a.size  # real points N (N/2 complex bins)
bound = math.log2(n) * 2.0 ** -24 * np.abs(b).max()
i = int(d.argmax())
print(f"{n // 2} bins: {int((d > 0).sum())} of {n} floats differ; max |diff| {d[i]:.4g} at float {i} "
      f"(bin {i // 2}); bound {bound:.4g} (log2 N x 2^-24 x max|X| {np.abs(b).max():.4g}); "
      f"identical bytes: {bool((d == 0).all())}")
sys.exit(0 if d[i] <= bound else 1)
