// AstroAccelerate's dedispersion, called through its own C++ API
// (aa_pipeline_api, as its examples/src/dedispersion.cpp does), its plane
// written as a .npy for `crosscheck gate dedisperse -cmd ... -format npy`:
//   aa_dedisperse FIL DM_LO DM_END DM_STEP NDM OUT.npy [ALONE_FROM]
// One DM range [DM_LO, DM_END) of step DM_STEP, no binning (inBin 1), no
// zero-DM filter, the plane copied to the host; the first NDM trials
// (AstroAccelerate may round a range's trial count up) of every sample it
// processed are written, float32 [NDM][nsamp], C order.
// ALONE_FROM k: trials k .. NDM-1 are each dedispersed by a plan of their
// own that starts at their DM (its first trial), their rows replacing the
// one-plan run's.  Its shared-memory kernel shifts a channel by
// trunc(s DM_b) + trunc(s (DM - DM_b)), DM_b the first DM of the block of
// 64 trials (SDIVINDM) the trial is in (aa_device_dedispersion_kernel.cu:
// shift_two, shift_one), so a trial that starts its own plan is shifted by
// trunc(s DM) alone: the plane then shows which trials the split moves.
// Built by build.sh
// against the objects of AstroAccelerate's library; nothing of theirs here
// but calls of its public headers.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "aa_ddtr_plan.hpp"
#include "aa_ddtr_strategy.hpp"
#include "aa_device_info.hpp"
#include "aa_filterbank_metadata.hpp"
#include "aa_pipeline_api.hpp"
#include "aa_sigproc_input.hpp"

using namespace astroaccelerate;

static int write_npy(const char *path, const std::vector<std::vector<float>> &plane, size_t nsamp)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    char dict[128];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu, %zu), }", plane.size(), nsamp);
    int total = 10 + n + 1, pad = (64 - total % 64) % 64;
    unsigned short hlen = (unsigned short)(n + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hlen & 0xff, f);
    fputc(hlen >> 8, f);
    fwrite(dict, 1, (size_t)n, f);
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    for (const std::vector<float> &row : plane)
        fwrite(row.data(), sizeof(float), nsamp, f);
    return fclose(f) != 0;
}

/* One plan [lo, end) of step `step` over the file's data: its first `want`
 * trials, nsamp samples each, appended to rows; 0 on success. */
static int run_plan(const aa_filterbank_metadata &meta, const std::vector<unsigned short> &data, double lo,
                    double end, double step, size_t want, std::vector<std::vector<float>> &rows, size_t &nsamp)
{
    aa_ddtr_plan ddtr_plan;
    ddtr_plan.add_dm(lo, end, step, 1, 1);
    aa_device_info device(0);
    aa_pipeline::pipeline components;
    components.insert(aa_pipeline::component::dedispersion);
    aa_pipeline::pipeline_option options;
    options.insert(aa_pipeline::component_option::copy_ddtr_data_to_host);
    aa_pipeline_api<unsigned short> runner(components, options, meta, data.data(), device);
    if (!runner.bind(ddtr_plan) || !runner.ready()) {
        fprintf(stderr, "aa_dedisperse: the pipeline is not ready (DM %g)\n", lo);
        return 1;
    }
    aa_pipeline_runner::status status_code;
    while (runner.run(status_code)) {
    }
    aa_ddtr_strategy plan = runner.ddtr_strategy();
    size_t ndm = (size_t)plan.ndms(0);
    nsamp = plan.nProcessedTimesamples();
    fprintf(stderr, "aa_dedisperse: %zu trials (%zu asked for), %zu samples, DM %g + i x %g\n", ndm, want, nsamp,
            (double)plan.dm(0).low, (double)plan.dm(0).step);
    if (ndm < want) {
        fprintf(stderr, "aa_dedisperse: AstroAccelerate made %zu trials, fewer than %zu\n", ndm, want);
        return 1;
    }
    float **plane = runner.output_buffer()[0];
    for (size_t d = 0; d < want; d++)
        rows.emplace_back(plane[d], plane[d] + nsamp);
    return 0;
}

int main(int argc, char *argv[])
{
    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: aa_dedisperse FIL DM_LO DM_END DM_STEP NDM OUT.npy [ALONE_FROM]\n");
        return 2;
    }
    double lo = atof(argv[2]), end = atof(argv[3]), step = atof(argv[4]);
    size_t want = (size_t)atol(argv[5]), alone = argc == 8 ? (size_t)atol(argv[7]) : want;
    aa_sigproc_input fil(argv[1]);
    aa_filterbank_metadata meta = fil.read_metadata();
    if (!fil.read_signal()) {
        fprintf(stderr, "aa_dedisperse: %s: could not read the data\n", argv[1]);
        return 1;
    }
    std::vector<std::vector<float>> rows;
    size_t nsamp = 0;
    if (run_plan(meta, fil.input_buffer(), lo, end, step, want, rows, nsamp))
        return 1;
    for (size_t d = alone; d < want; d++) {
        std::vector<std::vector<float>> one;
        size_t n1 = 0;
        if (run_plan(meta, fil.input_buffer(), lo + (double)d * step, lo + (double)(d + 1) * step, step, 1, one, n1))
            return 1;
        for (size_t t = 0; t < nsamp; t++)
            rows[d][t] = t < n1 ? one[0][t] : 0.0f;
    }
    if (write_npy(argv[6], rows, nsamp)) {
        fprintf(stderr, "aa_dedisperse: %s: write failed\n", argv[6]);
        return 1;
    }
    return 0;
}
