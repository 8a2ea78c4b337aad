/* test_cands.c: candidate files (our CSV, Pulscan's .pulscand, PRESTO's
 * _ACCEL_<zmax>) and the candidate comparator, against hand-written files
 * and planted differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/search/xc_cands.h"
#include "compare/xc_cmpcands.h"
#include "core/io/xc_presto.h"
#include "tests/xc_fixture.h"
#include "compare/check/xc_checks.h"
#include "tests/xc_test.h"

/* The research note's test file: N = 2^21 samples of 64 us. */
#define T_NOTE 134.217728

static xc_cand mk(double r, double z, int numharm, double power, double sigma, double T)
{
    xc_cand c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.z = z;
    c.width = (int)z + 1;
    c.numharm = numharm;
    c.power = power;
    c.dof = (z + 1) * numharm * (numharm + 1);
    c.sigma = sigma;
    c.logp = -power / 2;
    c.ntrials = 3e7;
    xc_cand_derive(&c, T);
    return c;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

XC_TEST(test_csv_roundtrip, "csv_roundtrip_bitexact")
{
    xc_candlist l, m;
    xc_candlist_init(&l);
    xc_candlist_init(&m);
    xc_error err;
    l.T = T_NOTE;
    const double odd[] = {0.1, 1.0 / 3, 1e-300, 5e-324, 1.7976931348623157e308, -2.5, 12345.678901234567};
    for (int i = 0; i < 7; i++) {
        xc_cand c = mk(1000 + 7.5 * i, i, 1 + i % 4, 100 + i / 3.0, 6 + 1.0 / (i + 3), T_NOTE);
        c.logp = odd[i];
        c.ntrials = odd[(i + 3) % 7];
        CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &c, &err), XC_OK);
    }
    l.c[6].accel_m_s2 = NAN;   /* NaN survives as NaN */
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "rt.csv");
    CU_ASSERT_EQUAL_FATAL(xc_cands_write_csv(&l, path, &err), XC_OK);
    char text[8192];
    xc_fx_read_text(path, text, sizeof text);
    static const char header[] = "r,f_hz,z,width,numharm,power,dof,logp,sigma,fdot_hz_s,accel_m_s2,ntrials\n";
    CU_ASSERT(!strncmp(text, header, sizeof header - 1));
    CU_ASSERT_EQUAL_FATAL(xc_cands_read_csv(&m, path, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(m.n, l.n);
    CU_ASSERT_STRING_EQUAL(m.source, "crosscheck");
    XC_ASSERT_CLOSE(m.T, T_NOTE, 1e-9);
    for (size_t i = 0; i < l.n; i++) {
        const xc_cand *a = &l.c[i], *b = &m.c[i];
        CU_ASSERT(same_bits(a->r, b->r) && same_bits(a->f_hz, b->f_hz) && same_bits(a->z, b->z));
        CU_ASSERT(a->width == b->width && a->numharm == b->numharm);
        CU_ASSERT(same_bits(a->power, b->power) && same_bits(a->dof, b->dof));
        CU_ASSERT(same_bits(a->logp, b->logp) && same_bits(a->sigma, b->sigma));
        CU_ASSERT(same_bits(a->fdot_hz_s, b->fdot_hz_s) && same_bits(a->ntrials, b->ntrials));
        CU_ASSERT(i == 6 ? isnan(b->accel_m_s2) : same_bits(a->accel_m_s2, b->accel_m_s2));
    }
    xc_candlist_free(&l);
    xc_candlist_free(&m);
}

XC_TEST(test_csv_errors, "csv_errors")
{
    char path[512];
    xc_candlist l;
    xc_candlist_init(&l);
    xc_error err;
    xc_fx_tmp_path(path, sizeof path, "bad.csv");
    xc_fx_write_text(path, "r,f_hz,z\n1,2,3\n");
    CU_ASSERT_EQUAL(xc_cands_read_csv(&l, path, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 1"));
    xc_fx_write_text(path, "r,f_hz,z,width,numharm,power,dof,logp,sigma,fdot_hz_s,accel_m_s2,ntrials\n"
                     "1,2,3,4,1,6,7,8,9,10,11,12\n"
                     "1,2,3,4,1,abc,7,8,9,10,11,12\n");
    CU_ASSERT_EQUAL(xc_cands_read_csv(&l, path, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 3, column 6 (power): 'abc'"));
    CU_ASSERT_EQUAL(l.n, 0);
    xc_fx_write_text(path, "r,f_hz,z,width,numharm,power,dof,logp,sigma,fdot_hz_s,accel_m_s2,ntrials\n"
                     "1,2,3,4.5,1,6,7,8,9,10,11,12\n");
    CU_ASSERT_EQUAL(xc_cands_read_csv(&l, path, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "column 4 (width): '4.5' is not an integer"));
    xc_fx_write_text(path, "r,f_hz,z,width,numharm,power,dof,logp,sigma,fdot_hz_s,accel_m_s2,ntrials\n1,2,3\n");
    CU_ASSERT_EQUAL(xc_cands_read_csv(&l, path, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 2: 3 columns, expected 12"));
    xc_candlist_free(&l);
}

/* Pulscan's example row (research note 1.5, measured): rbin 200050 at z 92
 * is the boxcar [200005, 200097], centre 200051. */
static const char *psc_header =
    "     sigma      power  period_ms   frequency_hz       rbin          f-dot          z   acceleration"
    "           logp   harmonic\n";
static const char *psc_row = "22.525464  1048.0505   0.670921    1490.488647     200050     0.00510703         92 "
                             "   1027.212036    -276.698364          1";

XC_TEST(test_pulscand_hand_line, "pulscand_hand_line")
{
    char path[512], text[1024];
    xc_fx_tmp_path(path, sizeof path, "hand.pulscand");
    snprintf(text, sizeof text, "%s%s\n", psc_header, psc_row);
    xc_fx_write_text(path, text);
    xc_candlist l;
    xc_candlist_init(&l);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_cands_read_pulscand(&l, path, T_NOTE, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    const xc_cand *c = &l.c[0];
    CU_ASSERT_EQUAL(c->r, 200051.0);   /* rbin + 1 - floor(92/2) + 92/2 */
    CU_ASSERT_EQUAL(c->z, 92.0);
    CU_ASSERT_EQUAL(c->width, 93);
    CU_ASSERT_EQUAL(c->numharm, 1);
    CU_ASSERT_EQUAL(c->dof, 186.0);
    CU_ASSERT_EQUAL(c->power, 1048.0505);
    CU_ASSERT_EQUAL(c->sigma, 22.525464);
    CU_ASSERT_EQUAL(c->logp, -276.698364);
    XC_ASSERT_CLOSE(c->f_hz, 200051.0 / T_NOTE, 1e-12);
    XC_ASSERT_CLOSE(c->fdot_hz_s, 92.0 / (T_NOTE * T_NOTE), 1e-15);
    CU_ASSERT_STRING_EQUAL(l.source, "pulscan");
    CU_ASSERT(l.T == T_NOTE);

    /* odd z: rbin = start - 1 + floor(z/2), centre = start + z/2 */
    snprintf(text, sizeof text, "%s 9.0 100.0 1.0 1.0 5000 0.0 7 0.0 -50.0 2\n", psc_header);
    xc_fx_write_text(path, text);
    CU_ASSERT_EQUAL_FATAL(xc_cands_read_pulscand(&l, path, T_NOTE, &err), XC_OK);
    CU_ASSERT_EQUAL(l.c[0].r, 5000 + 1 - 3 + 3.5);
    CU_ASSERT_EQUAL(l.c[0].dof, 8.0 * 2 * 3);
    /* Pulscan's -nan logp at z = 0 is read as NaN */
    snprintf(text, sizeof text, "%s 9.0 100.0 1.0 1.0 5000 0.0 0 0.0 -nan 1\n", psc_header);
    xc_fx_write_text(path, text);
    CU_ASSERT_EQUAL_FATAL(xc_cands_read_pulscand(&l, path, T_NOTE, &err), XC_OK);
    CU_ASSERT(isnan(l.c[0].logp));
    CU_ASSERT_EQUAL(l.c[0].r, 5001.0);
    /* errors: no T; bad column */
    CU_ASSERT_EQUAL(xc_cands_read_pulscand(&l, path, 0, &err), XC_EINVAL);
    snprintf(text, sizeof text, "%s 9.0 100.0 1.0 1.0 5000 0.0 -3 0.0 -nan 1\n", psc_header);
    xc_fx_write_text(path, text);
    CU_ASSERT_EQUAL(xc_cands_read_pulscand(&l, path, T_NOTE, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 2, column 7 (z): '-3'"));
    xc_candlist_free(&l);
}

/* Our candidate at r = 200051, z = 92 written as .pulscand gives Pulscan's
 * own row: the same rbin, and the same float-computed period, frequency,
 * f-dot and acceleration columns. */
XC_TEST(test_pulscand_write, "pulscand_write_roundtrip")
{
    xc_candlist l, m;
    xc_candlist_init(&l);
    xc_candlist_init(&m);
    l.T = T_NOTE;
    xc_error err;
    xc_cand c = mk(200051, 92, 1, 1048.0505, 22.525464, T_NOTE);
    c.logp = -276.698364;
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &c, &err), XC_OK);
    xc_cand d = mk(350000.5, 5, 3, 429.34, 19.67, T_NOTE);   /* odd z: half-integer centre */
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &d, &err), XC_OK);
    char path[512], text[2048];
    xc_fx_tmp_path(path, sizeof path, "ours.pulscand");
    CU_ASSERT_EQUAL_FATAL(xc_cands_write_pulscand(&l, path, &err), XC_OK);
    xc_fx_read_text(path, text, sizeof text);
    CU_ASSERT(!strncmp(text, psc_header, strlen(psc_header)));
    char *line2 = strchr(text, '\n') + 1, *end = strchr(line2, '\n');
    CU_ASSERT_FATAL(end != NULL);
    *end = '\0';
    char got[512], want[512];
    snprintf(got, sizeof got, "%s", line2);
    snprintf(want, sizeof want, "%s", psc_row);
    char *sg, *sw, *tg = strtok_r(got, " ", &sg), *tw = strtok_r(want, " ", &sw);
    int ntok = 0;
    while (tg && tw) {
        CU_ASSERT_STRING_EQUAL(tg, tw);
        ntok++;
        tg = strtok_r(NULL, " ", &sg);
        tw = strtok_r(NULL, " ", &sw);
    }
    CU_ASSERT_EQUAL(ntok, 10);
    CU_ASSERT(tg == NULL && tw == NULL);
    /* the second row's rbin: start 350000.5 - 2.5 = 349998, rbin = 349997 + 2 */
    CU_ASSERT_PTR_NOT_NULL(strstr(end + 1, " 349999 "));

    CU_ASSERT_EQUAL_FATAL(xc_cands_read_pulscand(&m, path, T_NOTE, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(m.n, 2);
    for (size_t i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(m.c[i].r, l.c[i].r);
        CU_ASSERT_EQUAL(m.c[i].z, l.c[i].z);
        CU_ASSERT_EQUAL(m.c[i].width, l.c[i].width);
        CU_ASSERT_EQUAL(m.c[i].numharm, l.c[i].numharm);
        CU_ASSERT_EQUAL(m.c[i].dof, l.c[i].dof);
        XC_ASSERT_CLOSE(m.c[i].power, l.c[i].power, 5e-5);
        XC_ASSERT_CLOSE(m.c[i].sigma, l.c[i].sigma, 5e-7);
    }
    l.T = 0;
    CU_ASSERT_EQUAL(xc_cands_write_pulscand(&l, path, &err), XC_EINVAL);
    xc_candlist_free(&l);
    xc_candlist_free(&m);
}

/* T for a .pulscand from the .inf of the .fft Pulscan searched. */
XC_TEST(test_pulscand_T_from_inf, "pulscand_T_from_inf")
{
    char root[512], inf_path[600], psc[700], text[1024];
    xc_fx_tmp_path(root, sizeof root, "note");
    snprintf(inf_path, sizeof inf_path, "%s.inf", root);
    snprintf(psc, sizeof psc, "%s_ZMAX_200_NUMHARM_1_TURBO_0.pulscand", root);
    xc_inf inf;
    xc_inf_init(&inf);
    snprintf(inf.name, sizeof inf.name, "note");
    strcpy(inf.telescope, "None (Artificial Data Set)");
    inf.n = 2097152;
    inf.dt = 64e-6;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&inf, inf_path, &err), XC_OK);
    snprintf(text, sizeof text, "%s%s\n", psc_header, psc_row);
    xc_fx_write_text(psc, text);
    double T = 0;
    CU_ASSERT_EQUAL_FATAL(xc_cands_T_from_inf(psc, &T, &err), XC_OK);
    XC_ASSERT_CLOSE(T, T_NOTE, 1e-9);
    xc_candlist l;
    xc_candlist_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_cands_load(&l, psc, 0, &err), XC_OK);
    CU_ASSERT_EQUAL(l.n, 1);
    XC_ASSERT_CLOSE(l.T, T_NOTE, 1e-9);
    xc_candlist_free(&l);
    char lone[512];
    xc_fx_tmp_path(lone, sizeof lone, "lone.pulscand");
    xc_fx_write_text(lone, text);
    CU_ASSERT_EQUAL(xc_cands_T_from_inf(lone, &T, &err), XC_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-T"));
}

/* A PRESTO _ACCEL_200 file laid out as output_fundamentals writes it
 * (research note 1.4: centred fields of widths 4,5,6,8,4,16,15,15,15,11,15,20
 * joined by two blanks, val(err) forms of nice_output_1/2), followed by the
 * harmonics table and the appended .inf. */
static const char *accel_text =
    "             Summed  Coherent  Num        Period          Frequency         FFT 'r'        Freq Deriv"
    "       FFT 'z'         Accel                           \n"
    "Cand  Sigma   Power    Power   Harm        (ms)              (Hz)            (bin)           (Hz/s)  "
    "       (bins)          (m/s^2)               Notes       \n"
    "-------------------------------------------------------------------------------------------------------"
    "------------------------------------------------------\n"
    "1     26.89  383.66   380.12    1      0.670927(2)       1490.489(4)    200050.00(50)    0.00555(11)   "
    "   100.0(2.0)        1117(22)                           \n"
    "2     20.65  235.00   234.80    1      0.383479(1)       2607.705(4)    350000.00(50)    0.0(1.1)x10^-4"
    "     0.0(2.0)          0(13)                            \n"
    "3      2.39   40.12    30.55    2      0.18850(1)        5305.0(3)      712023.5(2.5)   -1.06(2)x10^-2 "
    "   -190.0(2.0)      -598(6)        H 2 of Cand 1       \n"
    "\n\n"
    "                 Power /          Raw           FFT 'r'          Pred 'r'       FFT 'z'     Pred 'z'"
    "      Phase       Centroid     Purity                        \n"
    "Cand  Harm  Sigma  Loc Pow         Power           (bin)            (bin)         (bins)      (bins)"
    "       (rad)        (0-1)      <p> = 1         Notes         \n"
    "1      1    27.06  383.66(11)      1048.3    200050.00(11)     200050.00      99.8(4.6)     100.00"
    "    1.23(3)      0.50(3)     1.00(4)                          \n"
    "\n\n"
    " Data file name without suffix          =  note\n"
    " Telescope used                         =  None (Artificial Data Set)\n"
    " Number of bins in the time series      =  2097152    \n"
    " Width of each time series bin (sec)    =  6.4e-05\n"
    " Any breaks in the data? (1 yes, 0 no)  =  0\n"
    " Data analyzed by                       =  crosscheck\n"
    " Any additional notes:\n"
    "    none\n\n";

XC_TEST(test_accel, "accel_fundamentals")
{
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "note_ACCEL_200");
    xc_fx_write_text(path, accel_text);
    xc_candlist l;
    xc_candlist_init(&l);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_cands_read(&l, path, 0, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(l.source, "presto");
    CU_ASSERT_EQUAL_FATAL(l.n, 3);
    XC_ASSERT_CLOSE(l.T, T_NOTE, 1e-9);
    CU_ASSERT_EQUAL(l.c[0].r, 200050.0);
    CU_ASSERT_EQUAL(l.c[0].z, 100.0);
    CU_ASSERT_EQUAL(l.c[0].sigma, 26.89);
    CU_ASSERT_EQUAL(l.c[0].power, 2 * 383.66);
    CU_ASSERT_EQUAL(l.c[0].dof, 2.0);
    CU_ASSERT_EQUAL(l.c[0].width, 0);
    CU_ASSERT(isnan(l.c[0].logp));
    XC_ASSERT_CLOSE(l.c[0].f_hz, 200050.0 / T_NOTE, 1e-12);
    XC_ASSERT_CLOSE(l.c[0].accel_m_s2, 100.0 / (T_NOTE * T_NOTE) * 299792458.0 / (200050.0 / T_NOTE), 1e-9);
    CU_ASSERT_EQUAL(l.c[1].r, 350000.0);
    CU_ASSERT_EQUAL(l.c[1].z, 0.0);
    CU_ASSERT_EQUAL(l.c[2].r, 712023.5);
    CU_ASSERT_EQUAL(l.c[2].z, -190.0);
    CU_ASSERT_EQUAL(l.c[2].numharm, 2);
    CU_ASSERT_EQUAL(l.c[2].dof, 4.0);
    CU_ASSERT_EQUAL(l.c[2].power, 80.24);

    /* a broken value names file, line and column */
    char *bad = strdup(accel_text);
    CU_ASSERT_FATAL(bad != NULL);
    char *p = strstr(bad, "350000.00(50)");
    memcpy(p, "350000.00[50]", 13);
    xc_fx_write_text(path, bad);
    free(bad);
    CU_ASSERT_EQUAL(xc_cands_read(&l, path, 0, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 5, column 8 (FFT 'r' (bin)): '350000.00[50]'"));
    xc_fx_write_text(path, "nothing here\n");
    CU_ASSERT_EQUAL(xc_cands_read(&l, path, 0, &err), XC_EFORMAT);
    xc_candlist_free(&l);
}

XC_TEST(test_sort, "sort")
{
    xc_candlist l;
    xc_candlist_init(&l);
    xc_error err;
    xc_cand c[6] = {mk(50, 0, 1, 10, 5, 1), mk(40, 2, 1, 10, 7, 1), mk(40, 0, 2, 10, 7, 1),
                    mk(40, 0, 1, 10, 7, 1), mk(10, 0, 1, 10, NAN, 1), mk(30, 0, 1, 10, 7, 1)};
    for (int i = 0; i < 6; i++)
        xc_candlist_add(&l, &c[i], &err);
    xc_candlist_sort(&l);
    /* sigma 7 first, by r, then numharm, then z; sigma 5; NaN last */
    CU_ASSERT(l.c[0].r == 30);
    CU_ASSERT(l.c[1].r == 40 && l.c[1].numharm == 1 && l.c[1].z == 0);
    CU_ASSERT(l.c[2].r == 40 && l.c[2].numharm == 1 && l.c[2].z == 2);
    CU_ASSERT(l.c[3].r == 40 && l.c[3].numharm == 2);
    CU_ASSERT(l.c[4].sigma == 5);
    CU_ASSERT(isnan(l.c[5].sigma));
    xc_candlist_free(&l);
}

/* ---- comparator ----------------------------------------------------------- */

/* Adds c to l; failing to ends the case. */
static void add_cand(xc_candlist *l, xc_cand c)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(l, &c, &err), XC_OK);
}

static void make_list(xc_candlist *l)
{
    xc_candlist_init(l);
    l->T = T_NOTE;
    snprintf(l->source, sizeof l->source, "crosscheck");
    const double rs[6] = {200051, 350000, 100025.5, 87500, 600000, 700000};
    const double zs[6] = {92, 0, 1, 4, 10, 0};
    const int hs[6] = {1, 1, 2, 4, 1, 1};
    const double ss[6] = {22.5, 19.7, 12.0, 9.0, 6.5, 3.0};
    for (int i = 0; i < 6; i++) {
        add_cand(l, mk(rs[i], zs[i], hs[i], 40 * ss[i], ss[i], T_NOTE));
    }
}

/* Compares a with b under o (NULL: the defaults) into r; failing to ends
 * the case. */
static void compare_lists(const xc_candlist *a, const xc_candlist *b, const xc_cmpcands_opts *o,
                          xc_cmpcands_result *r)
{
    xc_cmpcands_opts def;
    xc_cmpcands_opts_init(&def);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_compare_cands(a, b, o ? o : &def, r, &err), XC_OK);
}

XC_TEST(test_compare_planted, "compare_planted")
{
    xc_candlist a, b;
    make_list(&a);
    make_list(&b);
    xc_cmpcands_opts o;
    xc_cmpcands_opts_init(&o);
    xc_cmpcands_result r;
    compare_lists(&a, &b, &o, &r);
    CU_ASSERT_EQUAL(r.npairs, 6);
    CU_ASSERT(r.agree);
    CU_ASSERT_EQUAL(r.dr.max_abs, 0);
    CU_ASSERT_EQUAL(r.dsigma.max_abs, 0);
    xc_cmpcands_result_free(&r);

    /* B: candidate 3 (r 87500) missing, candidate 4 (r 600000) shifted by 3
     * bins, candidate 1 (r 350000) sigma +0.01 and power +1e-3 relative. */
    b.c[3] = b.c[5];
    b.n = 5;
    b.c[4].r += 3;
    b.c[1].sigma += 0.01;
    b.c[1].power *= 1.001;
    compare_lists(&a, &b, &o, &r);
    CU_ASSERT_EQUAL(r.npairs, 4);
    CU_ASSERT_EQUAL(r.na_only, 2);
    CU_ASSERT_EQUAL(r.nb_only, 1);
    CU_ASSERT_EQUAL(r.na_only_fail, 2);
    CU_ASSERT_EQUAL(r.nb_only_fail, 1);
    CU_ASSERT(r.na_only == 2 && a.c[r.a_only[0]].r == 87500 && a.c[r.a_only[1]].r == 600000);
    CU_ASSERT(r.nb_only == 1 && b.c[r.b_only[0]].r == 600003);
    CU_ASSERT_EQUAL(r.nsigma_bad, 1);
    CU_ASSERT_EQUAL(r.npower_bad, 1);
    XC_ASSERT_CLOSE(r.dsigma.max_abs, 0.01, 1e-12);
    XC_ASSERT_CLOSE(r.dpower_rel.max_abs, 1e-3 / 1.001, 1e-12);
    CU_ASSERT(!r.agree);
    xc_cmpcands_result_free(&r);

    /* With tolerances wide enough for each planted difference, only the
     * missing candidate remains; below the sigma threshold it is excused. */
    o.dr = 3;
    o.dsigma = 0.02;
    o.rtol_power = 2e-3;
    compare_lists(&a, &b, &o, &r);
    CU_ASSERT_EQUAL(r.npairs, 5);
    CU_ASSERT_EQUAL(r.na_only_fail, 1);
    CU_ASSERT(!r.agree);
    xc_cmpcands_result_free(&r);
    o.sigma_min = 9.5;
    compare_lists(&a, &b, &o, &r);
    CU_ASSERT_EQUAL(r.na_only_fail, 0);
    CU_ASSERT(r.agree);
    xc_cmpcands_result_free(&r);

    /* numharm must agree unless anyharm; z is compared as |z| */
    xc_cmpcands_opts_init(&o);
    xc_candlist_free(&b);
    make_list(&b);
    b.c[2].numharm = 1;
    b.c[0].z = -92;
    compare_lists(&a, &b, &o, &r);
    CU_ASSERT_EQUAL(r.npairs, 5);
    CU_ASSERT_EQUAL(r.dz.max_abs, 0);
    xc_cmpcands_result_free(&r);
    o.anyharm = 1;
    compare_lists(&a, &b, &o, &r);
    CU_ASSERT_EQUAL(r.npairs, 6);
    xc_cmpcands_result_free(&r);
    xc_candlist_free(&a);
    xc_candlist_free(&b);
}

/* One candidate each, B's r and z moved by (dr, dz) from A's (1000, 10):
 * 1 when they pair (the defaults: |dr| <= 1 bin, |dz| <= 2). */
static int pairs_at(double dr, double dz)
{
    xc_candlist a, b;
    xc_candlist_init(&a);
    xc_candlist_init(&b);
    a.T = b.T = T_NOTE;
    add_cand(&a, mk(1000, 10, 1, 400, 10, T_NOTE));
    add_cand(&b, mk(1000 + dr, 10 + dz, 1, 400, 10, T_NOTE));
    xc_cmpcands_result r;
    compare_lists(&a, &b, NULL, &r);
    int paired = r.npairs == 1;
    CU_ASSERT_EQUAL(r.agree, paired);
    xc_cmpcands_result_free(&r);
    xc_candlist_free(&a);
    xc_candlist_free(&b);
    return paired;
}

/* The pairing windows at their edges (exact in binary): on the edge pairs,
 * 1/16 beyond does not; a strict comparison or a doubled window fails. */
XC_TEST(test_compare_match_edges, "compare_match_edges")
{
    CU_ASSERT_TRUE(pairs_at(1.0, 0));
    CU_ASSERT_TRUE(pairs_at(-1.0, 0));
    CU_ASSERT_FALSE(pairs_at(1.0625, 0));
    CU_ASSERT_FALSE(pairs_at(-1.0625, 0));
    CU_ASSERT_TRUE(pairs_at(0, 2.0));
    CU_ASSERT_TRUE(pairs_at(0, -2.0));
    CU_ASSERT_FALSE(pairs_at(0, 2.0625));
    CU_ASSERT_TRUE(pairs_at(1.0, 2.0));
}

/* Near the threshold: A holds a 2.0004-sigma candidate that B cut at 2. */
XC_TEST(test_compare_threshold, "compare_threshold")
{
    xc_candlist a, b;
    make_list(&a);
    make_list(&b);
    add_cand(&a, mk(900000, 0, 1, 40, 2.0004, T_NOTE));
    xc_cmpcands_result r;
    compare_lists(&a, &b, NULL, &r);
    CU_ASSERT_EQUAL(r.na_only, 1);
    CU_ASSERT_EQUAL(r.na_only_fail, 0);
    CU_ASSERT(r.agree);
    xc_cmpcands_result_free(&r);
    xc_candlist_free(&a);
    xc_candlist_free(&b);
}

XC_TEST(test_truth, "truth")
{
    const double f0 = 6.1, T = 21.47483648;
    xc_candlist l;
    xc_candlist_init(&l);
    l.T = T;
    xc_error err;
    struct {
        double f, z, sigma;
    } cs[] = {
        {f0 * 1.002, 4, 10},   /* fundamental */
        {f0 * 0.999, 0, 8},    /* fundamental, lower sigma */
        {2 * f0 * 1.001, 8, 12}, /* 2nd harmonic */
        {3 * f0, 0, 7},        /* 3rd harmonic */
        {f0 / 2, 2, 7},        /* subharmonic */
        {f0 * 1.37, 0, 8},     /* unrelated */
        {f0, 0, 3},            /* below the threshold */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        add_cand(&l, mk(cs[i].f * T, cs[i].z, 1, 100, cs[i].sigma, T));
    }
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "truth.json");
    xc_fx_write_text(path, "{\"pulsar\": {\"f0_hz\": 6.1}, \"params\": {\"tobs_s\": 21.47483648}}\n");
    xc_truth t;
    CU_ASSERT_EQUAL_FATAL(xc_truth_read(&t, path, 0, &err), XC_OK);
    CU_ASSERT_EQUAL(t.f0_hz, 6.1);
    CU_ASSERT_EQUAL(t.T, T);
    CU_ASSERT(!t.have_rz);
    XC_ASSERT_CLOSE(t.r, f0 * T, 1e-12);
    xc_cmpcands_opts o;
    xc_cmpcands_opts_init(&o);
    xc_truthmatch m;
    CU_ASSERT_EQUAL_FATAL(xc_cands_match_truth(&l, &t, &o, &m, &err), XC_OK);
    CU_ASSERT_EQUAL(m.nabove, 6);
    CU_ASSERT_EQUAL(m.nother, 1);
    CU_ASSERT(m.fund.found && m.fund.count == 2 && m.fund.index == 0 && m.fund.n == 1);
    XC_ASSERT_CLOSE(m.fund.dr, 0.002 * f0 * T, 1e-9);
    XC_ASSERT_CLOSE(m.fund.dz, 4, 1e-12);
    XC_ASSERT_CLOSE(m.fund.df_rel, 0.002, 1e-12);
    CU_ASSERT(m.harm.found && m.harm.count == 2 && m.harm.index == 2 && m.harm.n == 2);
    XC_ASSERT_CLOSE(m.harm.dr, 2 * f0 * T * 0.001, 1e-9);
    CU_ASSERT(m.sub.found && m.sub.count == 1 && m.sub.n == 2);
    CU_ASSERT(m.pass);

    /* truth r/z from the file, with |z| compared; -truth_dr/-truth_dz verdicts */
    xc_fx_write_text(path, "{\"f0_hz\": 6.1, \"r\": 131.0, \"z\": -3.0, \"tobs_s\": 21.47483648}\n");
    CU_ASSERT_EQUAL_FATAL(xc_truth_read(&t, path, 0, &err), XC_OK);
    CU_ASSERT(t.have_rz && t.r == 131.0 && t.z == -3.0);
    CU_ASSERT_EQUAL_FATAL(xc_cands_match_truth(&l, &t, &o, &m, &err), XC_OK);
    XC_ASSERT_CLOSE(m.fund.dr, f0 * 1.002 * T - 131, 1e-9);
    XC_ASSERT_CLOSE(m.fund.dz, 1, 1e-12);
    o.truth_dr = 0.3;   /* the error is 0.258 bins */
    CU_ASSERT_EQUAL_FATAL(xc_cands_match_truth(&l, &t, &o, &m, &err), XC_OK);
    CU_ASSERT(m.pass);
    o.truth_dr = 0.2;
    CU_ASSERT_EQUAL_FATAL(xc_cands_match_truth(&l, &t, &o, &m, &err), XC_OK);
    CU_ASSERT(!m.pass);
    o.truth_dr = 0;

    /* only harmonics: passes unless the fundamental is required */
    l.c[0].sigma = l.c[1].sigma = 5;
    CU_ASSERT_EQUAL_FATAL(xc_cands_match_truth(&l, &t, &o, &m, &err), XC_OK);
    CU_ASSERT(!m.fund.found && m.harm.found && m.pass);
    o.fundamental = 1;
    CU_ASSERT_EQUAL_FATAL(xc_cands_match_truth(&l, &t, &o, &m, &err), XC_OK);
    CU_ASSERT(!m.pass);

    xc_fx_write_text(path, "{\"pulsar\": null}\n");
    CU_ASSERT_EQUAL(xc_truth_read(&t, path, 0, &err), XC_EFORMAT);
    xc_candlist_free(&l);
}

/* ---- truth matching at its edges ---------------------------------------------

   f0 = 8 Hz, T = 128 s: r_true = 1024, z_true = -8, and every edge below a
   binary fraction, so that "at the tolerance" is exact in doubles. */

/* One candidate (r, z, sigma; f_hz = r / T unless f >= 0) against the truth
 * under o: the verdict, the match in *m. */
static int truth_one(double r, double z, double sigma, double f, const xc_cmpcands_opts *o, xc_truthmatch *m)
{
    const double T = 128;
    xc_truth t = {.f0_hz = 8, .r = 1024, .z = -8, .T = T, .have_rz = 1, .w = NAN, .snr_folded = NAN};
    xc_candlist l;
    xc_candlist_init(&l);
    xc_cand c = mk(r, z, 1, 100, sigma, T);
    if (f >= 0)
        c.f_hz = f;
    add_cand(&l, c);
    l.T = T;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_cands_match_truth(&l, &t, o, m, &err), XC_OK);
    xc_candlist_free(&l);
    return m->pass;
}

/* The gate's rule: the fundamental, r within 2 bins, z within 4. */
static xc_cmpcands_opts gate_rule(int signed_z)
{
    xc_cmpcands_opts o;
    xc_cmpcands_opts_init(&o);
    o.fundamental = 1;
    o.truth_dr = 2;
    o.truth_dz = 4;
    o.truth_signed_z = signed_z;
    return o;
}

XC_TEST(test_truth_edges, "truth matching at each tolerance's edge: r, signed and unsigned z, frequency, sigma")
{
    xc_cmpcands_opts o = gate_rule(0);
    xc_truthmatch m;
    /* r: 2 bins off passes, 2 + 1/16 fails (doubling the tolerance would pass it) */
    CU_ASSERT_TRUE(truth_one(1026, -8, 10, -1, &o, &m));
    XC_ASSERT_NEAR(m.fund.dr, 2, 0);
    CU_ASSERT_FALSE(truth_one(1026.0625, -8, 10, -1, &o, &m));
    CU_ASSERT_FALSE(truth_one(1021.9375, -8, 10, -1, &o, &m));
    XC_ASSERT_NEAR(m.fund.dr, -2.0625, 0);
    /* |z| (a boxcar): ||z| - 8| <= 4; the sign is not looked at */
    CU_ASSERT_TRUE(truth_one(1024, 12, 10, -1, &o, &m));
    CU_ASSERT_FALSE(truth_one(1024, 12.0625, 10, -1, &o, &m));
    CU_ASSERT_TRUE(truth_one(1024, 8, 10, -1, &o, &m));
    XC_ASSERT_NEAR(m.z_true, -8, 0);
    /* signed z (a matched filter): z - (-8) within 4; z 8 is 16 off */
    o.truth_signed_z = 1;
    CU_ASSERT_TRUE(truth_one(1024, -4, 10, -1, &o, &m));
    XC_ASSERT_NEAR(m.fund.dz, 4, 0);
    CU_ASSERT_FALSE(truth_one(1024, -3.9375, 10, -1, &o, &m));
    CU_ASSERT_TRUE(truth_one(1024, -12, 10, -1, &o, &m));
    CU_ASSERT_FALSE(truth_one(1024, 8, 10, -1, &o, &m));
    XC_ASSERT_NEAR(m.fund.dz, 16, 0);
    o.truth_signed_z = 0;
    /* the frequency window: f0 (1 + 2^-7) is the fundamental at ftol
     * 2^-7; 2^-10 Hz more is not (nor a harmonic): not found */
    o.ftol = 0x1p-7;
    o.truth_dr = 0;   /* the frequency alone */
    CU_ASSERT_TRUE(truth_one(1024, -8, 10, 8.0625, &o, &m));
    XC_ASSERT_NEAR(m.fund.df_rel, 0x1p-7, 0);
    CU_ASSERT_FALSE(truth_one(1024, -8, 10, 8.0625 + 0x1p-10, &o, &m));
    CU_ASSERT_FALSE(m.fund.found);
    XC_ASSERT_NEAR(m.nother, 1, 0);
    /* the fundamental class is decided by f_hz, and r judged on its own:
     * r 30 bins off with f right fails on r */
    o.ftol = 0.01;
    o.truth_dr = 2;
    CU_ASSERT_FALSE(truth_one(1054, -8, 10, 8, &o, &m));
    CU_ASSERT_TRUE(m.fund.found);
    XC_ASSERT_NEAR(m.fund.dr, 30, 0);
    /* sigma: above truth_sigma (6) strictly */
    CU_ASSERT_FALSE(truth_one(1024, -8, 6, -1, &o, &m));
    CU_ASSERT_TRUE(truth_one(1024, -8, 6.0625, -1, &o, &m));
}

XC_TEST(test_truth_row, "the truth row prints the judged r, z and errors; r and f_hz agree at the edge")
{
    const double T = 128;
    xc_truth t = {.f0_hz = 8, .r = 1024, .z = -8, .T = T, .have_rz = 1, .w = NAN, .snr_folded = NAN};
    xc_candlist l;
    xc_candlist_init(&l);
    add_cand(&l, mk(1026.0625, -4, 1, 100, 10, T));
    l.T = T;
    xc_cmpcands_opts o = gate_rule(1);
    xc_checks rows;
    xc_checks_init(&rows);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_check_truth(&rows, "psr", "x", &l, &t, &o, &err), XC_OK);
    CU_ASSERT_EQUAL(rows.row[0].state, XC_CHECK_FAIL);
    XC_ASSERT_NEAR(rows.row[0].observed, 1026.0625, 0);
    XC_ASSERT_NEAR(rows.row[0].expected, 1024, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rows.row[0].measured, "at r 1026.06 (truth 1024.00, dr +2.06), z -4.0 (truth -8.0, "
                                                        "dz +4.0)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rows.row[0].bound, "|dr| <= 2, |z - z_true| <= 4"));
    /* r and f_hz: 1/8 bin apart passes at tolerance 1/8, 3/16 fails */
    l.c[0].f_hz = (l.c[0].r - 0.125) / T;
    CU_ASSERT_EQUAL_FATAL(xc_check_cands_rf(&rows, "psr", "x", &l, T, 0.125, &err), XC_OK);
    CU_ASSERT_EQUAL(rows.row[1].state, XC_CHECK_PASS);
    XC_ASSERT_NEAR(rows.row[1].observed, 0.125, 1e-9);
    l.c[0].f_hz = (l.c[0].r - 0.1875) / T;
    CU_ASSERT_EQUAL_FATAL(xc_check_cands_rf(&rows, "psr", "x", &l, T, 0.125, &err), XC_OK);
    CU_ASSERT_EQUAL(rows.row[2].state, XC_CHECK_FAIL);
    XC_ASSERT_NEAR(rows.row[2].observed, 0.1875, 1e-9);
    CU_ASSERT_PTR_NOT_NULL(strstr(rows.row[2].measured, "candidate 1: r 1026.06 but f_hz"));
    xc_checks_free(&rows);
    xc_candlist_free(&l);
}

/* ---- the CLI's exit codes ------------------------------------------------- */



static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

XC_TEST_IF(test_cli, "cli_exit_codes", xc_fx_skip_no_bin)
{
    xc_candlist a, b;
    make_list(&a);
    make_list(&b);
    b.c[1].sigma += 0.01;
    char pa[512], pb[512], pt[512], pj[512], cmd[4096];
    xc_fx_tmp_path(pa, sizeof pa, "cli_a.csv");
    xc_fx_tmp_path(pb, sizeof pb, "cli_b.csv");
    xc_fx_tmp_path(pt, sizeof pt, "cli_truth.json");
    xc_fx_tmp_path(pj, sizeof pj, "cli_out.json");
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_cands_write_csv(&a, pa, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_cands_write_csv(&b, pb, &err), XC_OK);
    snprintf(cmd, sizeof cmd, "%s compare cands '%s' '%s' >/dev/null", xc_fx_bin(), pa, pa);
    CU_ASSERT_EQUAL(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s compare cands '%s' '%s' -json '%s' >/dev/null", xc_fx_bin(), pa, pb, pj);
    CU_ASSERT_EQUAL(sh(cmd), 1);
    struct stat sb;
    CU_ASSERT(stat(pj, &sb) == 0);
    snprintf(cmd, sizeof cmd, "%s compare cands '%s' '%s' -dsigma 0.02 >/dev/null", xc_fx_bin(), pa, pb);
    CU_ASSERT_EQUAL(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s compare cands '%s' '%s/none.csv' >/dev/null 2>&1", xc_fx_bin(), pa, xc_test_tmpdir());
    CU_ASSERT_EQUAL(sh(cmd), 2);
    /* the first candidate sits at r 200051 of T_NOTE: 1490.496 Hz */
    xc_fx_write_text(pt, "{\"f0_hz\": 1490.496, \"tobs_s\": 134.217728}\n");
    snprintf(cmd, sizeof cmd, "%s compare cands '%s' -truth '%s' -fundamental >/dev/null", xc_fx_bin(), pa, pt);
    CU_ASSERT_EQUAL(sh(cmd), 0);
    xc_fx_write_text(pt, "{\"f0_hz\": 1111.0, \"tobs_s\": 134.217728}\n");
    CU_ASSERT_EQUAL(sh(cmd), 1);
    snprintf(cmd, sizeof cmd, "%s compare cands '%s' >/dev/null 2>&1", xc_fx_bin(), pa);
    CU_ASSERT_EQUAL(sh(cmd), 2);
    snprintf(cmd, sizeof cmd, "%s compare cands -h >/dev/null", xc_fx_bin());
    CU_ASSERT_EQUAL(sh(cmd), 0);
    xc_candlist_free(&a);
    xc_candlist_free(&b);
}

XC_TEST_MAIN("cands")
