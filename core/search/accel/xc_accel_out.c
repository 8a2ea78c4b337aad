/* PRESTO's _ACCEL_<zmax>[_JERK_<wmax>] fundamentals table (the layout of
 * accelsearch's output_fundamentals, src/accel_utils.c: its titles, column
 * widths {4,5,6,8,4,16,15,15,15,11,11,15,20}, centred fields, "val(err)"
 * numbers), so PRESTO's sifting tools and our reader take it.  We do not
 * polish candidates, so there is no harmonics table and the Coherent Power
 * column is "nan"; r, z, w are the search-grid values with errors 0.5/H,
 * 2/H and 20/H, as accelsearch prints them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/search/xc_accel.h"
#include "core/base/xc_atomic.h"

/* Centres s in a field of width w (PRESTO's center_string: extra space on
 * the right). */
static void centre(FILE *fp, const char *s, int w, const char *sep)
{
    int n = (int)strlen(s), left = n < w ? (w - n) / 2 : 0, right = n < w ? w - n - left : 0;
    fprintf(fp, "%*s%s%*s%s", left, "", s, right, "", sep);
}

/* "value(error)" with the error to two digits in the value's last places. */
static void val_err(char *buf, size_t n, double v, double e)
{
    if (!(e > 0) || !isfinite(e) || !isfinite(v)) {
        snprintf(buf, n, "%.6g", v);
        return;
    }
    int nd = 1 - (int)floor(log10(e));
    if (nd < 0)
        nd = 0;
    double ei = e * pow(10.0, nd);
    snprintf(buf, n, "%.*f(%.0f)", nd, v, ei);
}

xc_status xc_accel_write_presto(const xc_candlist *l, int jerk, const char *infpath, const char *path, xc_error *err)
{
    static const char *t1[] = {"", "", "Summed", "Coherent", "Num", "Period", "Frequency", "FFT 'r'", "Freq Deriv",
                               "FFT 'z'", "FFT 'w'", "Accel", ""};
    static const char *t2[] = {"Cand", "Sigma", "Power", "Power", "Harm", "(ms)", "(Hz)", "(bin)", "(Hz/s)",
                               "(bins)", "(bins)", "(m/s^2)", "Notes"};
    static const int wd[] = {4, 5, 6, 8, 4, 16, 15, 15, 15, 11, 11, 15, 20};
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    FILE *fp = a.fp;
    for (int row = 0; row < 3; row++) {
        for (int c = 0; c < 13; c++) {
            if (!jerk && c == 10)
                continue;
            if (row == 2) {
                char d[32];
                memset(d, '-', (size_t)wd[c]);
                d[wd[c]] = '\0';
                fprintf(fp, "%s%s", d, c < 12 ? "--" : "\n");
            } else {
                centre(fp, row ? t2[c] : t1[c], wd[c], c < 12 ? "  " : "\n");
            }
        }
    }
    double T = l->T;
    for (size_t i = 0; i < l->n; i++) {
        const xc_cand *c = &l->c[i];
        int H = c->numharm > 0 ? c->numharm : 1;
        double rerr = XC_ACCEL_DR / H, zerr = (double)XC_ACCEL_DZ / H, werr = (double)XC_ACCEL_DW / H;
        double f = c->r / T, ferr = rerr / T, per = 1e3 / f, pererr = 1e3 * ferr / (f * f);
        double fd = c->z / (T * T), fderr = zerr / (T * T);
        double acc = c->z * 299792458.0 / (T * T * f), accerr = zerr * 299792458.0 / (T * T * f);
        char s[64];
        snprintf(s, sizeof s, "%-4zu", i + 1);
        centre(fp, s, wd[0], "  ");
        snprintf(s, sizeof s, "%.2f", c->sigma);
        centre(fp, s, wd[1], "  ");
        snprintf(s, sizeof s, "%.2f", 0.5 * c->power);   /* PRESTO's mean-1 units */
        centre(fp, s, wd[2], "  ");
        centre(fp, "nan", wd[3], "  ");
        snprintf(s, sizeof s, "%d", c->numharm);
        centre(fp, s, wd[4], "  ");
        double v[] = {per, f, c->r, fd, c->z, c->w, acc}, e[] = {pererr, ferr, rerr, fderr, zerr, werr, accerr};
        for (int k = 0, col = 5; k < 7; k++, col++) {
            if (!jerk && col == 10)
                continue;
            val_err(s, sizeof s, v[k], e[k]);
            centre(fp, s, wd[col], "  ");
        }
        fprintf(fp, "%-20s\n", "");
    }
    fprintf(fp, "\n\n");
    if (infpath) {
        FILE *in = fopen(infpath, "r");
        if (in) {
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, in)) > 0)
                fwrite(buf, 1, n, fp);
            fclose(in);
        }
    }
    if (ferror(fp)) {
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
        xc_atomic_abort(&a);
        return st;
    }
    return xc_atomic_commit(&a, err);
}
