#!/bin/sh
# Build AstroAccelerate (github.com/AstroAccelerateOrg/astro-accelerate) from a
# source tree you point at, no network, into DEST (default SRC/../aa-crosscheck):
#   sh examples/peers/astroaccelerate/build.sh SRC [DEST]
# Gives DEST/astro-accelerate (its own aa_main.cpp: the input-file driver)
# and the glue's aa_dedisperse and aa_fdas.
# Its CMakeLists asks for FindCUDA (gone from newer CMake) and -std=c++11, which
# CUDA 13's Thrust refuses; each of its sources is compiled here as its own
# Makefile does (nvcc -O3 --use_fast_math, -Xptxas -dlcm=cg), but with C++17
# and only GPU_ARCH (default sm_90).  cuFFT and cuRAND are linked
# dynamically (a static cuFFT makes a 300 MB program): the toolkit's
# lib64 on LD_LIBRARY_PATH where it runs.
# JOBS (default 2) sources are compiled at a time; a rerun reuses objects.
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build.sh AA_SRC [DEST]}" && pwd)
peer_dest "${2:-$SRC/../aa-crosscheck}"
(cd "$SRC" && tar cf - --exclude=.git src include) | (cd "$DEST" && tar xf -)
peer_commit
CUDA=${CUDA_PATH:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
ARCH=${GPU_ARCH:-sm_90}
NVCC="$CUDA/bin/nvcc -std=c++17 -O3 --use_fast_math -Xptxas -dlcm=cg -gencode arch=compute_${ARCH#sm_},code=$ARCH -Xcompiler -O3,-fopenmp -I$DEST/include -I$DEST/shim -DGIT_COMMIT_HASH=$(cut -c1-12 "$DEST/COMMIT")"
# aa_version.hpp (CMake-generated) is optional: without ASTRO_ACCELERATE_VERSION_H_DEFINED
# aa_device_info.hpp does not check the compiled SM list, which is ARCH alone here.
# CUDA 13 removed cudaDeviceProp's clockRate and memoryClockRate, which
# aa_device_info.hpp copies into its (printed only) card summary: read
# through cudaDeviceGetAttribute instead, in the copy.
sed -i 's/= deviceProp\.clockRate;/= 0; { int v_ = 0; cudaDeviceGetAttribute(\&v_, cudaDevAttrClockRate, selected_device_id); selected_card_info.clock_rate = v_; }/; s/= deviceProp\.memoryClockRate;/= 0; { int v_ = 0; cudaDeviceGetAttribute(\&v_, cudaDevAttrMemoryClockRate, selected_device_id); selected_card_info.memory_clock_rate = v_; }/' "$DEST/include/aa_device_info.hpp" 
# aa_device_peak_find.hpp includes <npp.h> and uses nothing of NPP: where the
# toolkit has no NPP headers, an empty stand-in.
mkdir -p "$DEST/shim"
[ -f "$CUDA/include/npp.h" ] || : > "$DEST/shim/npp.h"
ls "$DEST"/src/*.cu "$DEST"/src/*.cpp | peer_compile "$NVCC" || exit 1
LIBS="-lcufft -lcurand"
$CUDA/bin/nvcc -gencode arch=compute_${ARCH#sm_},code=$ARCH -o "$DEST/astro-accelerate" "$DEST"/obj/*.o \
    -L"$CUDA/lib64" $LIBS -Xcompiler -fopenmp >> "$DEST/build.log" 2>&1 || { tail -30 "$DEST/build.log" >&2; exit 1; }
echo "built $DEST/astro-accelerate from AstroAccelerate $(cat "$DEST/COMMIT")"
# The glue's drivers beside their program: aa_dedisperse.cpp and aa_fdas.cpp
# (this folder), each linked with their objects but aa_main's.
for drv in aa_dedisperse aa_fdas; do
    $NVCC -o "$DEST/$drv" "$(cd "$(dirname "$0")" && pwd)/$drv.cpp" \
        $(ls "$DEST"/obj/*.o | grep -v '/aa_main.cpp.o$') -L"$CUDA/lib64" $LIBS -Xcompiler -fopenmp >> "$DEST/build.log" 2>&1 ||
        { tail -30 "$DEST/build.log" >&2; exit 1; }
    echo "built $DEST/$drv"
done
