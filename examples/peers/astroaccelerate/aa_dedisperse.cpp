// AstroAccelerate's dedispersion, called through its own C++ API
// (aa_pipeline_api, as its examples/src/dedispersion.cpp does), its plane
// written as a .npy for `crosscheck gate dedisperse -cmd ... -format npy`:
//   aa_dedisperse FIL DM_LO DM_END DM_STEP NDM OUT.npy
// One DM range [DM_LO, DM_END) of step DM_STEP, no binning (inBin 1), no
// zero-DM filter, the plane copied to the host; the first NDM trials
// (AstroAccelerate may round a range's trial count up) of every sample it
// processed are written, float32 [NDM][nsamp], C order.  Built by build.sh
// against the objects of AstroAccelerate's library; nothing of theirs here
// but calls of its public headers.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "aa_ddtr_plan.hpp"
#include "aa_ddtr_strategy.hpp"
#include "aa_device_info.hpp"
#include "aa_filterbank_metadata.hpp"
#include "aa_pipeline_api.hpp"
#include "aa_sigproc_input.hpp"

using namespace astroaccelerate;

static int write_npy(const char *path, float ***plane, size_t ndm, size_t nsamp)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    char dict[128];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu, %zu), }", ndm, nsamp);
    int total = 10 + n + 1, pad = (64 - total % 64) % 64;
    unsigned short hlen = (unsigned short)(n + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hlen & 0xff, f);
    fputc(hlen >> 8, f);
    fwrite(dict, 1, (size_t)n, f);
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    for (size_t d = 0; d < ndm; d++)
        fwrite(plane[0][d], sizeof(float), nsamp, f);
    return fclose(f) != 0;
}

int main(int argc, char *argv[])
{
    if (argc != 7) {
        fprintf(stderr, "usage: aa_dedisperse FIL DM_LO DM_END DM_STEP NDM OUT.npy\n");
        return 2;
    }
    double lo = atof(argv[2]), end = atof(argv[3]), step = atof(argv[4]);
    size_t want = (size_t)atol(argv[5]);
    aa_ddtr_plan ddtr_plan;
    ddtr_plan.add_dm(lo, end, step, 1, 1);
    aa_sigproc_input fil(argv[1]);
    aa_filterbank_metadata meta = fil.read_metadata();
    if (!fil.read_signal()) {
        fprintf(stderr, "aa_dedisperse: %s: could not read the data\n", argv[1]);
        return 1;
    }
    aa_device_info device(0);
    aa_pipeline::pipeline components;
    components.insert(aa_pipeline::component::dedispersion);
    aa_pipeline::pipeline_option options;
    options.insert(aa_pipeline::component_option::copy_ddtr_data_to_host);
    aa_pipeline_api<unsigned short> runner(components, options, meta, fil.input_buffer().data(), device);
    if (!runner.bind(ddtr_plan) || !runner.ready()) {
        fprintf(stderr, "aa_dedisperse: the pipeline is not ready\n");
        return 1;
    }
    aa_pipeline_runner::status status_code;
    while (runner.run(status_code)) {
    }
    aa_ddtr_strategy plan = runner.ddtr_strategy();
    size_t nsamp = plan.nProcessedTimesamples(), ndm = (size_t)plan.ndms(0);
    fprintf(stderr, "aa_dedisperse: %zu trials (%zu asked for), %zu samples, DM %g + i x %g\n", ndm, want, nsamp,
            (double)plan.dm(0).low, (double)plan.dm(0).step);
    if (ndm < want) {
        fprintf(stderr, "aa_dedisperse: AstroAccelerate made %zu trials, fewer than %zu\n", ndm, want);
        return 1;
    }
    if (write_npy(argv[6], runner.output_buffer(), want, nsamp)) {
        fprintf(stderr, "aa_dedisperse: %s: write failed\n", argv[6]);
        return 1;
    }
    return 0;
}
