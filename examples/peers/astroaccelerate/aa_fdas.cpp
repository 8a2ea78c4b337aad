// AstroAccelerate's Fourier-domain acceleration search (FDAS) on one time
// series, called as its pipelines call it (acceleration_fdas, the function
// aa_permitted_pipelines_generic.hpp runs on its dedispersed trials):
//   aa_fdas DAT TSAMP [-inbin] [-norm] [-customfft] [-sigma_constant S] [-ndms N]
// DAT is a PRESTO .dat (float32 samples); its whole series is handed over as
// trial 0 of one DM range (DM 0, inBin 1).  AstroAccelerate writes its
// candidate list, acc_list_0.000000.dat, into the current folder
// (aa_fdas_host.cu fdas_write_list: z, acceleration, Fourier bin, frequency,
// power, S/N per line).  Its loop searches trials 0 .. ndms - 2 of a range
// (`dm_count < ndms[i] - 1`), so the range is given N trials (default 2, the
// series then a zero trial); -ndms 1 shows the last trial is never searched.
// -inbin, -norm, -customfft: its pipeline options fdas_inbin, fdas_norm,
// fdas_custom_fft.  -sigma_constant: the outlier rejection of its
// mean/SD estimate of the plane (default 3.0, as its input_files example).
// Built by build.sh against the objects of AstroAccelerate's library;
// nothing of theirs here but a call of its public header.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "aa_device_acceleration_fdas.hpp"

using namespace astroaccelerate;

static int usage()
{
    fprintf(stderr, "usage: aa_fdas DAT TSAMP [-inbin] [-norm] [-customfft] [-sigma_constant S] [-ndms N]\n");
    return 2;
}

int main(int argc, char *argv[])
{
    if (argc < 3)
        return usage();
    bool inbin = false, norm = false, customfft = false;
    float sigma_constant = 3.0f;
    int ndms = 2;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "-inbin"))
            inbin = true;
        else if (!strcmp(argv[i], "-norm"))
            norm = true;
        else if (!strcmp(argv[i], "-customfft"))
            customfft = true;
        else if (!strcmp(argv[i], "-sigma_constant") && i + 1 < argc)
            sigma_constant = (float)atof(argv[++i]);
        else if (!strcmp(argv[i], "-ndms") && i + 1 < argc)
            ndms = atoi(argv[++i]);
        else
            return usage();
    }
    float tsamp = (float)atof(argv[2]);
    if (!(tsamp > 0) || ndms < 1) {
        fprintf(stderr, "aa_fdas: TSAMP %s must be > 0 and -ndms >= 1\n", argv[2]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "aa_fdas: %s: cannot open\n", argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t nsamp = bytes > 0 ? (size_t)bytes / sizeof(float) : 0;
    if (nsamp < 2 * 1024 || (size_t)bytes % sizeof(float)) {
        fprintf(stderr, "aa_fdas: %s: %ld bytes, not a float32 series of at least 2048 samples\n", argv[1], bytes);
        fclose(f);
        return 2;
    }
    std::vector<std::vector<float>> trials((size_t)ndms, std::vector<float>(nsamp, 0.0f));
    if (fread(trials[0].data(), sizeof(float), nsamp, f) != nsamp) {
        fprintf(stderr, "aa_fdas: %s: short read\n", argv[1]);
        fclose(f);
        return 1;
    }
    fclose(f);
    std::vector<float *> rows((size_t)ndms);
    for (int d = 0; d < ndms; d++)
        rows[(size_t)d] = trials[(size_t)d].data();
    float **range0 = rows.data();
    float ***output_buffer = &range0;
    int ndms_a[1] = {ndms}, inbin_a[1] = {1};
    float dm_low[1] = {0.0f}, dm_high[1] = {(float)ndms}, dm_step[1] = {1.0f};
    fprintf(stderr, "aa_fdas: %zu samples of %g s, %d trial(s) in the range, inbin %d norm %d customfft %d\n", nsamp,
            (double)tsamp, ndms, inbin, norm, customfft);
    acceleration_fdas(1, (int)nsamp, ndms, (int)nsamp, 0.0f, output_buffer, ndms_a, inbin_a, dm_low, dm_high,
                      dm_step, tsamp, customfft, inbin, norm, sigma_constant, false, true);
    // It checks no kernel launch or cuFFT call and returns normally after a
    // failed one: an error still pending is named here, for fdas.sh to tell
    // a failed run from one that found nothing (the exit status stays 0).
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce == cudaSuccess)
        ce = cudaGetLastError();
    if (ce != cudaSuccess)
        fprintf(stderr, "aa_fdas: CUDA error after acceleration_fdas: %s\n", cudaGetErrorString(ce));
    return 0;
}
