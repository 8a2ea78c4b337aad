"""AstroAccelerate's single-pulse candidate files as crosscheck's CSV.

    python3 aacand.py TSAMP DMLO DMSTEP FILE... > OUT.csv

Each file (analysed-t_*-dm_*.dat, peak_analysed-*.dat) holds float32
quadruples: DM, time (s, from the file's start), S/N, width (samples);
aa_device_analysis.cu writes them.  The CSV gives sample = time / TSAMP
(rounded), dm_index = (DM - DMLO) / DMSTEP (rounded), members 1: as
AstroAccelerate writes them, no clustering added.  Standard library only."""
import struct
import sys


def main():
    tsamp, dmlo, dmstep = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    print("snr,time_s,sample,width,dm,dm_index,members")
    for path in sys.argv[4:]:
        data = open(path, "rb").read()
        if len(data) % 16:
            sys.exit("%s: %d bytes, not whole float32 quadruples (DM, time, S/N, width)" % (path, len(data)))
        for dm, t, snr, w in struct.iter_unpack("<4f", data):
            print("%.6f,%.9f,%d,%d,%.4f,%d,1" % (snr, t, round(t / tsamp), max(1, round(w)), dm,
                                                 round((dm - dmlo) / dmstep)))


if __name__ == "__main__":
    main()
