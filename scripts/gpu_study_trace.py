#!/usr/bin/env python3
"""Where a study's device time goes, from a scripts/cupti_trace.c trace of
`crosscheck study` (CUDA_INJECTION64_PATH, as scripts/gpu-trace.sh runs it):
per kernel name and per searcher's family of kernels, launches and summed
kernel milliseconds per pulsar, and the device's busy time (the union of every
kernel's interval: kernels of several workers overlap) over the trace's span.
Usage: gpu_study_trace.py TRACE[.gz] PULSARS"""
import gzip
import re
import sys

FAMILIES = (
    ("pulscan normalisation (separate, normalise, borrow, power)", ("k_separate", "k_normalise", "k_borrow", "k_power")),
    ("pulscan search (decimate, screen, exact, log p)", ("k_decimate", "k_screen", "k_exact", "k_logp")),
    ("fdas plane (k_plane1)", ("k_plane1",)),
    ("fdas harmonic sums (k_sums)", ("k_sums",)),
)


def family(name):
    for label, keys in FAMILIES:
        # GPU Pulscan's kernels are in namespace xcps (FDAS has a k_power of its own)
        if any(k in name for k in keys) and ("xcps" in name or not label.startswith("pulscan")):
            return label
    if re.search(r"fft|FFT|k_chirp|k_product|k_split", name):
        return "FFTs (the device transform, FDAS's segments)"
    return "other"


def main():
    path, npsr = sys.argv[1], float(sys.argv[2])
    op = gzip.open if path.endswith(".gz") else open
    ks = []
    with op(path, "rt") as f:
        for line in f:
            p = line.split()
            if p and p[0] == "K":
                ks.append((int(p[1]), int(p[2]), " ".join(p[7:])))
    if not ks:
        sys.exit("no kernels in %s" % path)
    ks.sort()
    busy, cur_a, cur_b = 0, ks[0][0], ks[0][1]
    for a, b, _ in ks[1:]:
        if a > cur_b:
            busy += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    busy += cur_b - cur_a
    span = max(b for _, b, _ in ks) - ks[0][0]
    by, fam = {}, {}
    for a, b, n in ks:
        short = re.sub(r"\(.*", "", n)[:70]
        c = by.setdefault(short, [0, 0])
        c[0] += 1
        c[1] += b - a
        g = fam.setdefault(family(n), [0, 0])
        g[0] += 1
        g[1] += b - a
    total = sum(v[1] for v in by.values())
    print("%d kernels, %.0f pulsars: span %.3f s, device busy %.3f s (%.1f %%), %.2f ms busy and %.2f ms of "
          "kernels per pulsar" % (len(ks), npsr, span / 1e9, busy / 1e9, 100.0 * busy / span, busy / 1e6 / npsr,
                                  total / 1e6 / npsr))
    print("\n%-62s %9s %12s" % ("family", "launches", "ms/pulsar"))
    for k, v in sorted(fam.items(), key=lambda kv: -kv[1][1]):
        print("%-62s %9d %12.3f" % (k, v[0], v[1] / 1e6 / npsr))
    print("\n%-62s %9s %12s" % ("kernel", "launches", "ms/pulsar"))
    for k, v in sorted(by.items(), key=lambda kv: -kv[1][1])[:25]:
        print("%-62s %9d %12.3f" % (k, v[0], v[1] / 1e6 / npsr))


if __name__ == "__main__":
    main()
