"""A stand-in for PRESTO's single_pulse_search.py (tests/test_peers.c,
tests/test_gate.c): one .singlepulse beside each .dat it is given, as the
script writes them.
SP_STANDIN=search (needs numpy): a search of each series as crosscheck's
presto preset defines it (docs/SINGLEPULSE.md): the median of each
1000-sample block subtracted, the trial's rms 1.4826 x its median absolute
deviation, boxes of the script's downfactors up to -m seconds (default
0.03) starting at every sample, S/N = sum / (rms sqrt(width)) kept at or
above -t (default 5), the highest within half the wider box of another at
one DM kept (its prune_related1/2), written with Sample the box centre.
SP_SHIFT=width: every candidate written one box width late (a planted bug).
Anything else: every file holds no candidate."""
import os
import sys

HEADER = "# DM      Sigma      Time (s)     Sample    Downfact\n"
DOWNFACTS = [1, 2, 3, 4, 6, 9, 14, 20, 30, 45, 70, 100, 150]


def option(args, name, default):
    return float(args[args.index(name) + 1]) if name in args else default


def inf_value(path, key):
    with open(path) as f:
        for line in f:
            if line.strip().startswith(key):
                return float(line.split("=")[1])
    raise SystemExit("%s: no '%s'" % (path, key))


def search(dat, threshold, maxwidth_s, shift):
    import numpy as np
    base = dat[:-4]
    dt = inf_value(base + ".inf", "Width of each time series bin")
    dm = inf_value(base + ".inf", "Dispersion measure")
    x = np.fromfile(dat, dtype=np.float32).astype(np.float64)
    n = len(x)
    for b in range(0, n, 1000):
        x[b:b + 1000] -= np.median(x[b:b + 1000])
    rms = 1.4826 * np.median(np.abs(x))
    cs = np.concatenate(([0.0], np.cumsum(x)))
    hits = []
    for w in DOWNFACTS:
        if w * dt > maxwidth_s * (1 + 1e-9) or w > n:
            continue
        snr = (cs[w:] - cs[:-w]) / (rms * np.sqrt(w))
        for t in np.nonzero(snr >= threshold)[0]:
            hits.append((snr[t], int(t), w))
    hits.sort(key=lambda h: (-h[0], h[1], h[2]))
    kept = []
    for h in hits:
        if all(abs(h[1] + h[2] / 2.0 - k[1] - k[2] / 2.0) > max(h[2], k[2]) / 2.0 for k in kept):
            kept.append(h)
    kept.sort(key=lambda h: h[1])
    with open(base + ".singlepulse", "w") as f:
        f.write(HEADER)
        for s, t, w in kept:
            c = t + w // 2 + (w if shift else 0)
            f.write("%7.2f %7.2f %13.6f %10d     %3d\n" % (dm, s, c * dt, c, w))


mode = os.environ.get("SP_STANDIN")
args = sys.argv[1:]
for arg in args:
    if not arg.endswith(".dat"):
        continue
    out = arg[:-4] + ".singlepulse"
    if mode == "search":
        search(arg, option(args, "-t", 5.0), option(args, "-m", 0.03), os.environ.get("SP_SHIFT") == "width")
    else:
        with open(out, "w") as f:
            f.write(HEADER)
