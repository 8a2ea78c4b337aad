"""Pulscan GPU's .gpucand (CSV r,z,power,logp,numharm) as a Pulscan .pulscand.

    python3 gpucand.py FILE.gpucand T > FILE.pulscand

Columns as Pulscan's CPU program writes them (pulscan.c): sigma, power,
period_ms, frequency_hz, rbin, f-dot, z, acceleration, logp, harmonic, with
rbin = (first bin of the boxcar) - 1 + floor(z / 2).  pulscan_gpu reports r as
the first bin of the 256-bin block that holds its peak (not the peak's bin),
and z as the loop's width - 1: both are written as they are.  sigma is the
Gaussian equivalent of its own ln p (column logp), as PRESTO's
equivalent_gaussian_sigma: the s with ln Q(s) = logp, Q the normal upper tail.
Only the standard library (math): runs on a bare GPU machine."""
import math
import sys

C = 299792458.0


def ln_q(s):
    if s < 30:
        return math.log(0.5 * math.erfc(s / math.sqrt(2)))
    # asymptotic tail (Abramowitz and Stegun 26.2.12), erfc underflows past ~38
    return -0.5 * s * s - math.log(s * math.sqrt(2 * math.pi)) + math.log1p(-1 / s**2 + 3 / s**4)


def sigma_of(logp):
    if logp >= math.log(0.5):
        return 0.0
    lo, hi = 0.0, 1.0
    while ln_q(hi) > logp:
        hi *= 2
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if ln_q(mid) > logp:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def main():
    path, T = sys.argv[1], float(sys.argv[2])
    cols = ("sigma", "power", "period_ms", "frequency_hz", "rbin", "f-dot", "z", "acceleration", "logp", "harmonic")
    print("%10s %10s %10s %14s %10s %14s %10s %14s %14s %10s" % cols)
    with open(path) as f:
        head = f.readline().strip()
        if head != "r,z,power,logp,numharm":
            sys.exit("%s: line 1: not pulscan_gpu's header (r,z,power,logp,numharm): %r" % (path, head))
        for n, line in enumerate(f, 2):
            if not line.strip():
                continue
            try:
                r, z, power, logp, h = line.split(",")
                r, z, h, power, logp = int(r), int(z), int(h), float(power), float(logp)
            except ValueError:
                sys.exit("%s: line %d: not five CSV fields r,z,power,logp,numharm: %r" % (path, n, line))
            rbin = r - 1 + z // 2
            freq = rbin / T if rbin > 0 else float("nan")
            fdot = z / (T * T)
            print("%10.6f %10.4f %10.6f %14.6f %10d %14.8f %10d %14.6f %14.6f %10d"
                  % (sigma_of(logp), power, 1000.0 / freq if rbin > 0 else 0.0, freq if rbin > 0 else 0.0,
                     rbin, fdot, z, fdot * C / freq if rbin > 0 else 0.0, logp, h))


if __name__ == "__main__":
    main()
