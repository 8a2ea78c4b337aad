"""sigpyproc's kernels run on crosscheck's files (the venv build.sh made):
  python sigpyproc_glue.py check
  python sigpyproc_glue.py dedisperse IN.fil OUT DMLIST
      FilReader(IN).dedisperse(dm) for each DM of DMLIST (one a line), each
      series written by sigpyproc's own TimeSeries.to_file as
      OUT_DM<dm>.tim (<dm> as %.2f), as `crosscheck gate dedisperse -cmd`
      reads them (-format tim).  rawdatafile is set to IN's name: sigpyproc
      writes the key even when the input has none, as a string of length 0,
      which SIGPROC's reader skips (leaving "ERROR") and crosscheck's refuses
  python sigpyproc_glue.py fft IN.dat OUT.fft
      TimeSeries.read_dat(IN).rfft(), its N/2 + 1 bins written in PRESTO
      realfft's layout (N/2 complex64, the Nyquist bin's real part in bin 0's
      imaginary), as `crosscheck fft` writes them
"""
import os
import sys

# sigpyproc 1.2 imports typing_extensions.Buffer for type hints only;
# Debian 12's typing_extensions (4.4) predates it.
import typing_extensions

if not hasattr(typing_extensions, "Buffer"):
    typing_extensions.Buffer = object

import numpy as np  # noqa: E402
import sigpyproc  # noqa: E402
from sigpyproc.readers import FilReader  # noqa: E402
from sigpyproc.timeseries import TimeSeries  # noqa: E402


def dedisperse(fil, out, dmlist):
    reader = FilReader(fil)
    with open(dmlist) as f:
        dms = [float(x) for x in f.read().split()]
    raw = os.path.basename(fil)[:80]
    for dm in dms:
        tim = reader.dedisperse(dm)
        tim = TimeSeries(np.asarray(tim), tim.header.new_header({"rawdatafile": raw}))
        tim.to_file(f"{out}_DM{dm:.2f}.tim")


def fft(dat, out):
    spec = TimeSeries.read_dat(dat).rfft()
    x = np.asarray(spec)
    packed = x[:-1].astype(np.complex64)
    packed[0] = complex(x[0].real, x[-1].real)
    packed.tofile(out)


def main(argv):
    if len(argv) == 2 and argv[1] == "check":
        print(f"sigpyproc {sigpyproc.__version__}, numpy {np.__version__}")
    elif len(argv) == 5 and argv[1] == "dedisperse":
        dedisperse(argv[2], argv[3], argv[4])
    elif len(argv) == 4 and argv[1] == "fft":
        fft(argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
