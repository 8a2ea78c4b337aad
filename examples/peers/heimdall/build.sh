#!/bin/sh
# Build Heimdall (Barsdell, Jameson et al.; the SourceForge heimdall-astro
# project, CUDA) from a source tree you point at, no network, into DEST
# (default SRC/../heimdall-crosscheck), against a dedisp built by
# examples/peers/dedisp/build.sh:
#   sh examples/peers/heimdall/build.sh SRC DEDISP_BUILD [DEST]
# SRC: the CUDA original, e.g. github.com/fxzjshm/heimdall-astro at e0c1af4
# (2021-03-31, the last commit before that mirror's SYCL port).  Its
# autotools build is replaced by the sources its Makefile.am lists for the
# `heimdall` program (Pipeline's library, Formats/SigprocFile, Network,
# Applications/heimdall.C), compiled with nvcc for GPU_ARCH (default sm_90),
# without psrdada (filterbank input only); Boost's shared_ptr or a stand-in.  CUDA 13's Thrust lacks
# thrust::unary_function / binary_function and thrust::identity: a shim like
# dedisp's is forced in.  Gives DEST/heimdall; it needs DEDISP_BUILD/lib/libdedisp.so
# at run time (rpath $ORIGIN: copy the library beside it).
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build.sh HEIMDALL_SRC DEDISP_BUILD [DEST]}" && pwd)
DD=$(cd "${2:?usage: build.sh HEIMDALL_SRC DEDISP_BUILD [DEST]}" && pwd)
peer_dest "${3:-$SRC/../heimdall-crosscheck}"
peer_commit
CUDA=${CUDA_PATH:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
ARCH=${GPU_ARCH:-sm_90}
cat > "$DEST/thrust_compat.h" <<'H'
#include <thrust/version.h>
#if THRUST_VERSION >= 300000
namespace thrust {
template <class A, class R> struct unary_function { typedef A argument_type; typedef R result_type; };
template <class A, class B, class R> struct binary_function {
    typedef A first_argument_type; typedef B second_argument_type; typedef R result_type; };
template <class T> struct identity {
    typedef T argument_type; typedef T result_type;
    __host__ __device__ const T &operator()(const T &x) const { return x; } };
}
#endif
H
# config.h is autoconf's: empty here (no HAVE_PSRDADA, no HAVE_MPI)
: > "$DEST/config.h"
NVCC="$CUDA/bin/nvcc -std=c++17 -O3 -gencode arch=compute_${ARCH#sm_},code=$ARCH -include $DEST/thrust_compat.h -x cu"
# Heimdall uses nothing of Boost but boost::shared_ptr: where Boost's headers
# are missing (a bare GPU machine), a one-line stand-in maps it to std's.
if ! printf '#include <boost/shared_ptr.hpp>\n' | $CUDA/bin/nvcc -x c++ -E - > /dev/null 2>&1; then
    mkdir -p "$DEST/shim/boost"
    printf '#include <memory>\nnamespace boost { using std::shared_ptr; }\n' > "$DEST/shim/boost/shared_ptr.hpp"
fi
INC="-I$DEST -I$DEST/shim -I$SRC -I$SRC/Pipeline -I$SRC/Network -I$SRC/Formats -I$SRC/Applications -I$DD/include"
for f in Pipeline/default_params.C Pipeline/error.C Pipeline/parse_command_line.C Pipeline/clean_filterbank_rfi.cu \
         Pipeline/get_rms.cu Pipeline/matched_filter.cu Pipeline/remove_baseline.cu Pipeline/find_giants.cu \
         Pipeline/label_candidate_clusters.cu Pipeline/merge_candidates.cu Pipeline/pipeline.cu \
         Pipeline/measure_bandpass.cu Pipeline/median_filter.cu Formats/SigprocFile.C Network/Socket.C \
         Network/ClientSocket.C Network/ServerSocket.C Applications/heimdall.C; do
    echo "$SRC/$f"
done | peer_compile "$NVCC $INC" || exit 1
cp "$DD"/lib/libdedisp.so* "$DEST/"
"$CUDA/bin/nvcc" -gencode "arch=compute_${ARCH#sm_},code=$ARCH" -o "$DEST/heimdall" "$DEST"/obj/*.o -L"$DD/lib" -ldedisp \
    -Xlinker -rpath,'$ORIGIN' >> "$DEST/build.log" 2>&1 || { tail -30 "$DEST/build.log" >&2; exit 1; }
echo "built $DEST/heimdall from heimdall $(cat "$DEST/COMMIT")"
