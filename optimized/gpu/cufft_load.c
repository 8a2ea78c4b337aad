/* cuFFT loaded when the GPU accel searcher first plans a transform, not
 * when crosscheck starts.  Linked directly, libcufft.so (some 280 MB) is
 * mapped, relocated and its constructors run by every process, GPU or
 * not: 35 of the 63 ms CPU a `crosscheck` start took, and the test suite
 * starts it hundreds of times.  These definitions stand in
 * for the cuFFT functions accel_gpu.cu and realfft_gpu.cu call (the prototypes of cufft.h):
 * the first call opens the library (the binary's run path finds it, as it
 * found the linked one) and each forwards to the library's own function.
 * Without the library every call returns CUFFT_SETUP_FAILED, which the
 * searcher reports as an error naming the call. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include <cufft.h>

#define XC_STR_(x) #x
#define XC_STR(x) XC_STR_(x)

static struct {
    cufftResult (*create)(cufftHandle *);
    cufftResult (*destroy)(cufftHandle);
    cufftResult (*set_auto)(cufftHandle, int);
    cufftResult (*make_many)(cufftHandle, int, int *, int *, int, int, int *, int, int, cufftType, int, size_t *);
    cufftResult (*set_stream)(cufftHandle, cudaStream_t);
    cufftResult (*set_work)(cufftHandle, void *);
    cufftResult (*exec_c2c)(cufftHandle, cufftComplex *, cufftComplex *, int);
    cufftResult (*exec_z2z)(cufftHandle, cufftDoubleComplex *, cufftDoubleComplex *, int);
    int ok;
} fn;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlsym's object pointer into a function pointer without a cast between
 * the two kinds (ISO C leaves that undefined; POSIX's dlsym promises the
 * representation is the same). */
static int sym(void *lib, const char *name, void *slot, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p || size != sizeof p)
        return 0;
    memcpy(slot, &p, sizeof p);
    return 1;
}

static void load(void)
{
    void *lib = dlopen("libcufft.so." XC_STR(CUFFT_VER_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libcufft.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    fn.ok = sym(lib, "cufftCreate", &fn.create, sizeof fn.create) &&
            sym(lib, "cufftDestroy", &fn.destroy, sizeof fn.destroy) &&
            sym(lib, "cufftSetAutoAllocation", &fn.set_auto, sizeof fn.set_auto) &&
            sym(lib, "cufftMakePlanMany", &fn.make_many, sizeof fn.make_many) &&
            sym(lib, "cufftSetStream", &fn.set_stream, sizeof fn.set_stream) &&
            sym(lib, "cufftSetWorkArea", &fn.set_work, sizeof fn.set_work) &&
            sym(lib, "cufftExecC2C", &fn.exec_c2c, sizeof fn.exec_c2c) &&
            sym(lib, "cufftExecZ2Z", &fn.exec_z2z, sizeof fn.exec_z2z);
}

static int loaded(void)
{
    pthread_once(&once, load);
    return fn.ok;
}

cufftResult CUFFTAPI cufftCreate(cufftHandle *handle)
{
    return loaded() ? fn.create(handle) : CUFFT_SETUP_FAILED;
}

cufftResult CUFFTAPI cufftDestroy(cufftHandle plan)
{
    return loaded() ? fn.destroy(plan) : CUFFT_SETUP_FAILED;
}

cufftResult CUFFTAPI cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)
{
    return loaded() ? fn.set_auto(plan, autoAllocate) : CUFFT_SETUP_FAILED;
}

cufftResult CUFFTAPI cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist,
                                       int *onembed, int ostride, int odist, cufftType type, int batch,
                                       size_t *workSize)
{
    return loaded() ? fn.make_many(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                                   workSize)
                    : CUFFT_SETUP_FAILED;
}

cufftResult CUFFTAPI cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    return loaded() ? fn.set_stream(plan, stream) : CUFFT_SETUP_FAILED;
}

cufftResult CUFFTAPI cufftSetWorkArea(cufftHandle plan, void *workArea)
{
    return loaded() ? fn.set_work(plan, workArea) : CUFFT_SETUP_FAILED;
}

cufftResult CUFFTAPI cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)
{
    return loaded() ? fn.exec_c2c(plan, idata, odata, direction) : CUFFT_SETUP_FAILED;
}

cufftResult CUFFTAPI cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata,
                                  int direction)
{
    return loaded() ? fn.exec_z2z(plan, idata, odata, direction) : CUFFT_SETUP_FAILED;
}
