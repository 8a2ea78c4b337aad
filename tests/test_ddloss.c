/* The declared S/N loss of approximate dedispersers (core/dedisp/approx/xc_ddloss.h):
 * nsub chosen from the geometry within the limit, a fixed nsub above it
 * refused with the bound named, the plane file's record of the parameters
 * and per-trial bound, and the commands that must refuse an empty plan or
 * warn of a time no trial covers.  The geometry is the 64-channel band of
 * SIGPROC fake's tutorial file (1510 MHz, foff -1.09 MHz, 320 us). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/dedisp/approx/xc_ddloss.h"
#include "core/dedisp/run/xc_ddrecord.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/dedisp/approx/xc_tree.h"
#include "optimized/xc_impls.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define PLAN "0:3000:5"

typedef struct {
    xc_dmplan plan;
    xc_ddjob job;
} lossjob;

/* A job on the tutorial band with plan and options o. */
static void lj_make(lossjob *l, const char *plan, xc_ddopts o)
{
    xc_error err;
    const xc_geometry g = {64, 1510.0, -1.09, 320e-6};
    xc_dmplan_init(&l->plan);
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&l->plan, plan, "test", &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_ddjob_prepare(&l->job, 64, 8, &l->plan, xc_convention_get("crosscheck"), &g, NULL, &err),
                          XC_OK);
    l->job.opts = o;
}

static void lj_free(lossjob *l)
{
    xc_ddjob_free(&l->job);
    xc_dmplan_free(&l->plan);
}

/* The worst declared loss of the piecewise tree at nsub (0: its choice); *chosen its nsub. */
static double tree_loss(int nsub, int *chosen)
{
    const xc_ddopts o = {.nsub = nsub};
    lossjob l;
    lj_make(&l, PLAN, o);
    xc_treeplan tp;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_treeplan_make(&tp, &l.job, XC_TREE_PIECEWISE, &err), XC_OK);
    xc_ddloss w;
    xc_ddloss_init(&w, &o);
    for (size_t i = 0; i < tp.r[0].ndm; i++)
        xc_ddloss_add(&w, 0, i, l.plan.r[0].dms[i], tp.r[0].bound[i], tp.r[0].smear[i]);
    if (chosen)
        *chosen = tp.nsub;
    xc_treeplan_free(&tp);
    lj_free(&l);
    return w.loss;
}

/* The tree's default is the fewest subbands within 0.2 at 8 samples: the
 * old default (padded channels / 32 = 2) is above it on this band, half the
 * chosen nsub is above it, the chosen one within (all exact: the bound is
 * integer samples through 1 - sqrt(W/(W+S)), compared with 1e-12). */
XC_TEST(test_tree_default_within_limit, "tree: nsub chosen from the geometry meets the limit, the fewest that do")
{
    int chosen = 0;
    double l = tree_loss(0, &chosen);
    printf("  tree nsub chosen %d: declared loss %.4f; nsub 2: %.4f; nsub %d: %.4f\n", chosen, l, tree_loss(2, NULL),
           chosen / 2, chosen > 1 ? tree_loss(chosen / 2, NULL) : 0);
    XC_ASSERT_BELOW(l, 0.2 + 1e-12);
    XC_ASSERT_ABOVE(tree_loss(2, NULL), 0.2 + 1e-12);
    CU_ASSERT_FATAL(chosen > 1);
    XC_ASSERT_ABOVE(tree_loss(chosen / 2, NULL), 0.2 + 1e-12);
}

/* Subband: the chosen nsub's declared loss is within the limit, and no
 * candidate within it needs fewer additions per output sample. */
XC_TEST(test_subband_default_cheapest, "subband: nsub chosen from the geometry is the cheapest within the limit")
{
    double cost[8], loss[8];
    int nsubs[8] = {0, 2, 4, 8, 16, 32, 64}, chosen = 0;
    for (int q = 0; q < 7; q++) {
        const xc_ddopts o = {.nsub = nsubs[q]};
        lossjob l;
        lj_make(&l, PLAN, o);
        xc_subplan sp;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_subplan_make(&sp, &l.job, &err), XC_OK);
        xc_ddloss w;
        xc_ddloss_init(&w, &o);
        for (size_t i = 0; i < sp.r[0].ndm; i++)
            xc_ddloss_add(&w, 0, i, l.plan.r[0].dms[i], sp.r[0].bound[i], sp.r[0].smear[i]);
        cost[q] = (double)sp.r[0].ngroups * 64 + (double)sp.r[0].ndm * sp.nsub;
        loss[q] = w.loss;
        if (q == 0)
            chosen = sp.nsub;
        xc_subplan_free(&sp);
        lj_free(&l);
    }
    printf("  subband nsub chosen %d: %.0f additions per sample, declared loss %.4f\n", chosen, cost[0], loss[0]);
    XC_ASSERT_BELOW(loss[0], 0.2 + 1e-12);
    for (int q = 1; q < 7; q++)
        if (loss[q] <= 0.2)
            XC_ASSERT_BELOW(cost[0], cost[q] + 0.5);   /* integer counts: a tie is allowed */
}

/* A fixed nsub above the limit: the record is refused, naming the bound,
 * its DM and the limit. */
XC_TEST(test_fixed_nsub_refused, "tree -nsub 2 above -maxloss 0.2 is refused, naming the bound")
{
    const xc_ddopts o = {.nsub = 2, .maxloss = 0.2};
    lossjob l;
    lj_make(&l, PLAN, o);
    xc_registry *reg = NULL;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    const xc_impl *ti = xc_registry_find(reg, XC_FAMILY_DEDISPERSE, "tree");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ti);
    json_t *rec = NULL;
    xc_ddloss w;
    CU_ASSERT_EQUAL(xc_ddapprox_record_checked(xc_dedisperser_of(ti), &l.job, &rec, &w, &err), XC_EINVAL);
    CU_ASSERT_PTR_NULL(rec);
    printf("  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "declared S/N-loss bound"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-maxloss 0.2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nsub 2 (given)"));
    /* accepted, and recorded, under a limit above it */
    l.job.opts.maxloss = 0.5;
    CU_ASSERT_EQUAL_FATAL(xc_ddapprox_record_checked(xc_dedisperser_of(ti), &l.job, &rec, &w, &err), XC_OK);
    json_t *ranges = json_object_get(rec, "ranges");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(json_array_get(ranges, 0), "bound_samples")), l.plan.r[0].ndm);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(rec, "parameters"), "nsub")), 2);
    XC_ASSERT_NEAR(json_real_value(json_object_get(json_object_get(rec, "worst"), "loss_bound")), w.loss, 0);
    json_decref(rec);
    xc_registry_destroy(reg);
    lj_free(&l);
}

/* The files of the command-line tests: a 1 s observation on the tutorial band. */
static const char *obs(void)
{
    static char path[600];
    if (!*path) {
        char args[1024];
        snprintf(path, sizeof path, "%s/lossobs.fil", xc_test_tmpdir());
        snprintf(args, sizeof args,
                 "synth -nchans 64 -nbits 8 -tsamp 320 -tobs 1 -fch1 1510 -foff -1.09 -pulse 0.3,500,2,15 "
                 "-pulse 0.95,100,2,15 -seed 5 -o '%s'", path);
        CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    }
    return path;
}

XC_TEST(test_cli_dedisperse_maxloss, "dedisperse -impl tree: refused above -maxloss, recorded within it")
{
    char args[2048], out[700], json[800], err[4096];
    snprintf(out, sizeof out, "%s/lossplane", xc_test_tmpdir());
    snprintf(json, sizeof json, "%s.json", out);
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s' -impl tree -nsub 2 -dmplan " PLAN " -maxloss 0.2 -quiet",
             obs(), out);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "declared S/N-loss bound"));
    CU_ASSERT_NOT_EQUAL(access(json, F_OK), 0);
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s' -impl tree -dmplan " PLAN " -quiet", obs(), out);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    json_error_t je;
    json_t *root = json_load_file(json, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *ap = json_object_get(root, "approximate");
    int chosen = 0;
    tree_loss(0, &chosen);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(ap, "parameters"), "nsub")), chosen);
    XC_ASSERT_BELOW(json_real_value(json_object_get(json_object_get(ap, "worst"), "loss_bound")), 0.2 + 1e-12);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(json_array_get(json_object_get(ap, "ranges"), 0), "loss_bound")),
                    600u);
    json_decref(root);
}

XC_TEST(test_cli_empty_plans, "plan and dedisperse refuse a plan without output; dedisperse warns of late pulses")
{
    char args[2048], out[700], err[4096];
    snprintf(args, sizeof args, "plan -i '%s' -dmplan 0:20000:100", obs());
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "leaves no output sample"));
    snprintf(out, sizeof out, "%s/emptyplane", xc_test_tmpdir());
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s' -impl cpu -dmplan 0:10:1:4096 -quiet", obs(), out);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "gets no output"));
    /* the second pulse (0.95 s) is beyond what DM 0..300 leaves of the 1 s */
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s' -impl cpu -dmplan 0:300:5 -times 0.1 -quiet", obs(), out);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "truth pulse 1 (DM 100) arrives at 0.950000 s"));
    CU_ASSERT_PTR_NULL(strstr(err, "truth pulse 0"));
    CU_ASSERT_PTR_NULL(strstr(err, "-times"));
}

XC_TEST(test_cli_check_smearing_file, "check smearing -i: the file's geometry, the implementation's own nsub")
{
    char args[1024], err[4096];
    snprintf(args, sizeof args, "check smearing -i '%s' -impl tree -dmplan 0:1000:10 -widths 8 -every 20", obs());
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    snprintf(args, sizeof args, "check smearing -i '%s' -impl tree -nsub 3 -dmplan 0:1000:10 -widths 8", obs());
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
}

XC_TEST_MAIN("ddloss")
