#!/bin/sh
# `crosscheck study` under mpirun on a machine without OpenMPI (the lent GPU
# machines): OpenMPI's runtime carried in one folder with a dynamic build.
#
#   sh scripts/gpu-mpi.sh bundle DIR BINARY   here: DIR gets BINARY (a build with
#                                   MPI=1; PLOTS=0 for a machine without cairo),
#                                   mpirun (OpenMPI 4), its libraries, plugins and
#                                   help files, PMIx's, the libraries BINARY needs
#                                   and glibc's own
#   sh scripts/gpu-mpi.sh run DIR N ARGS...   there: mpirun -n N crosscheck ARGS,
#                                   with CORES=C each rank pinned to C cores of its
#                                   own (node-local rank r: cores r*C..r*C+C-1)
#
# OpenMPI and PMIx find their plugins and help files under DIR through their
# OPAL_* and PMIX_* variables; one node (plm isolated, shared memory between
# ranks).  glibc: the machine's when it is at least the one DIR was made with,
# else DIR's own through its loader (OWN_GLIBC=1 forces it).
set -u
MODE=${1:-}; M=${2:-}
[ -n "$M" ] || { echo "usage: sh scripts/gpu-mpi.sh bundle DIR BINARY | run DIR N ARGS... (see the script's head)" >&2; exit 2; }
case "$M" in /*) ;; *) M=$(pwd)/$M ;; esac
case "$MODE" in
bundle)
    XC=${3:?the crosscheck binary}
    L=/usr/lib/x86_64-linux-gnu; O=$L/openmpi/lib; X=$L/pmix2
    set -e
    rm -rf "$M"; mkdir -p "$M/bin" "$M/lib/openmpi3" "$M/share/openmpi" "$M/etc" "$M/glibc" \
        "$M/pmix2/lib/pmix" "$M/pmix2/share/pmix"
    cp "$(command -v orterun)" "$M/bin/"
    cp -a "$O"/openmpi3/*.so "$M/lib/openmpi3/"; cp -L "$O"/libmca_common_*.so "$M/lib/"
    cp -a /usr/share/openmpi/. "$M/share/openmpi/"; cp /etc/openmpi/openmpi-mca-params.conf "$M/etc/"
    cp "$X"/lib/pmix/*.so "$M/pmix2/lib/pmix/"; cp "$X"/share/pmix/* "$M/pmix2/share/pmix/"
    strip -o "$M/crosscheck" "$XC"
    glibc="libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2 ld-linux-x86-64.so.2"
    for f in "$M/bin/orterun" "$M"/lib/openmpi3/*.so "$M"/lib/*.so "$M"/pmix2/lib/pmix/*.so "$M/crosscheck" \
        $L/libmpi.so.40; do ldd "$f"; done | awk '/=> \//{print $3}' | sort -u | while read -r l; do
        case " $glibc " in *" $(basename "$l") "*) ;; *) cp -L "$l" "$M/lib/" ;; esac
    done
    for l in $glibc; do cp -L "$L/$l" "$M/glibc/"; done
    cp "$0" "$M/gpu-mpi.sh"
    v=$(getconf GNU_LIBC_VERSION); echo "${v##*.}" > "$M/glibc/minor"
    du -sh "$M"
    ;;
run)
    N=${3:?the number of ranks}; shift 3
    export OPAL_PREFIX="$M" OPAL_EXEC_PREFIX="$M" OPAL_BINDIR="$M/bin" OPAL_LIBDIR="$M/lib" \
        OPAL_PKGLIBDIR="$M/lib/openmpi3" OPAL_DATAROOTDIR="$M/share" OPAL_DATADIR="$M/share" \
        OPAL_PKGDATADIR="$M/share/openmpi" OPAL_SYSCONFDIR="$M/etc"
    export PMIX_PREFIX="$M/pmix2" PMIX_PKGDATADIR="$M/pmix2/share/pmix" PMIX_PKGLIBDIR="$M/pmix2/lib/pmix"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated \
        OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
        OMPI_MCA_mca_base_component_show_load_errors=0 OMPI_MCA_rmaps_base_oversubscribe=1
    export LD_LIBRARY_PATH="$M/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:/usr/local/cuda/lib64"
    v=$(getconf GNU_LIBC_VERSION 2>/dev/null); v=${v##*.}; need=$(cat "$M/glibc/minor")
    if [ "${OWN_GLIBC:-0}" = 1 ] || [ -z "$v" ] || [ "$v" -lt "$need" ] 2>/dev/null; then
        export XC_LOADER="$M/glibc/ld-linux-x86-64.so.2 --library-path $M/glibc:$LD_LIBRARY_PATH"
        echo "gpu-mpi.sh: glibc 2.${v:-?} here, 2.$need in $M: its own"
    else
        export XC_LOADER=
        echo "gpu-mpi.sh: glibc 2.$v here, 2.$need in $M: the machine's"
    fi
    exec $XC_LOADER "$M/bin/orterun" -n "$N" --bind-to none sh "$M/gpu-mpi.sh" rank "$M" "$@"
    ;;
rank)
    shift 2
    r=${OMPI_COMM_WORLD_LOCAL_RANK:-0}; c=${CORES:-0}
    if [ "$c" -gt 0 ]; then
        exec taskset -c $((r * c))-$((r * c + c - 1)) $XC_LOADER "$M/crosscheck" "$@"
    fi
    exec $XC_LOADER "$M/crosscheck" "$@"
    ;;
*)
    echo "usage: sh scripts/gpu-mpi.sh bundle DIR BINARY | run DIR N ARGS..." >&2; exit 2 ;;
esac
