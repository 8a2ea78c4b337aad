"""AstroAccelerate FDAS's candidate list as crosscheck's accel CSV.

    python3 aafdas.py FILE T TSAMP NSAMP INBIN NORM > OUT.csv

FILE is its acc_list_<DM>.dat (aa_fdas_host.cu fdas_write_list), one
candidate a line, tab separated: acc, acceleration (m/s^2), j, frequency
(Hz), power, S/N, where
  acc = ZMAX - a * ACCEL_STEP for the a-th template row (ZMAX 96, step 2,
        fixed when it is compiled: aa_params.hpp), written as its z;
  j   = the Fourier bin of its series, in half bins when it interbins
        (INBIN 1: -fdas_inbin), frequency = j / (TSAMP N (1 + INBIN));
  S/N = (power - mean) / SD of the f-fdot plane (its outlier-rejecting
        mean and SD).
Its series is the first N = 2^floor(log2(NSAMP)) samples (it searches a
power of two), so its bins are of T' = N TSAMP, not of the gate's T: the
rows give r = f T and z = acc (T / T')^2 at the gate's T, fdot = acc / T'^2.
numharm 1: FDAS sums no harmonics.  power: with NORM 1 (-fdas_norm, PRESTO's
dereddening and block-median normalisation, mean noise power 1) twice its
power, PRESTO's normalisation doubled to crosscheck's as the _ACCEL_ reader
does, dof 2 and logp = -power / 2 (the single bin's chi-square tail); with
NORM 0 its power as written (unnormalised), logp nan.  sigma: its S/N
column as written (not a probability), ntrials 1.  An absent FILE (it
writes none without a candidate) gives the header alone.  Standard library
only: runs on a bare GPU machine."""
import math
import os
import sys

C = 299792458.0
HEADER = "r,f_hz,z,w,width,numharm,power,dof,logp,sigma,fdot_hz_s,accel_m_s2,ntrials"


def rows(path, T, tsamp, nsamp, inbin, norm):
    n = 1 << (nsamp.bit_length() - 1)
    t_aa = n * tsamp
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for k, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                acc, _, j, _, power, snr = (float(x) for x in line.split())
            except ValueError:
                sys.exit("%s: line %d: not six numbers (acc, acceleration, j, frequency, power, S/N): %r"
                         % (path, k, line))
            f_hz = j / (t_aa * (2 if inbin else 1))
            fdot = acc / (t_aa * t_aa)
            z = fdot * T * T
            p = 2 * power if norm else power
            logp = -p / 2 if norm else float("nan")
            accel = fdot * C / f_hz if f_hz > 0 else 0.0
            out.append((snr, f_hz * T, f_hz, z, p, logp, fdot, accel))
    out.sort(key=lambda x: (-x[0], x[1], x[3]))
    return out


def main():
    if len(sys.argv) != 7:
        sys.exit("usage: aafdas.py FILE T TSAMP NSAMP INBIN NORM")
    path = sys.argv[1]
    T, tsamp, nsamp = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    inbin, norm = sys.argv[5] == "1", sys.argv[6] == "1"
    if not (T > 0 and tsamp > 0 and nsamp >= 2):
        sys.exit("aafdas.py: T %g, TSAMP %g, NSAMP %d: each must be positive" % (T, tsamp, nsamp))
    print(HEADER)
    for snr, r, f_hz, z, p, logp, fdot, accel in rows(path, T, tsamp, nsamp, inbin, norm):
        print("%.10g,%.10g,%.10g,0,0,1,%.8g,2,%.8g,%.8g,%.10g,%.10g,1"
              % (r, f_hz, z, p, logp, snr, fdot, accel))


if __name__ == "__main__":
    main()
