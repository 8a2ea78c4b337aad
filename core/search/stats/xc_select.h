/* xc_select.h: exact selection and medians, one copy per element type (a
 * macro defines a static function where it is used): the Pulscan CPU
 * searcher's normalisation (optimized/cpu/pulscan_norm.c) and the accel
 * search's block medians (core/search/accel/xc_accel_norm.c) use them.  Both give the
 * same value a full sort would. */
#ifndef XC_SELECT_H
#define XC_SELECT_H

#include <math.h>
#include <stddef.h>

/* Floyd & Rivest's SELECT (CACM 1975, algorithm 489): a quickselect whose
 * pivots come from a recursive sample, about n + min(k, n-k) comparisons
 * instead of quickselect's ~3.4n.  Leaves a[k] the k-th smallest (0-based)
 * with a[left..k-1] <= a[k] <= a[k+1..right].  One copy per element type:
 * the median runs on the float values themselves (half the cache), the MAD
 * on the exact double deviations. */
#define XC_DEFINE_SELECT(NAME, T)                                                              \
    static void NAME(T *a, long left, long right, long k)                                      \
    {                                                                                          \
        while (right > left) {                                                                 \
            if (right - left > 600) {                                                          \
                double n = (double)(right - left + 1), i = (double)(k - left + 1);             \
                double z = log(n), s = 0.5 * exp(2 * z / 3);                                   \
                double sd = 0.5 * sqrt(z * s * (n - s) / n) * (i - n / 2 < 0 ? -1 : 1);        \
                long nl = (long)((double)k - i * s / n + sd), nr = (long)((double)k + (n - i) * s / n + sd); \
                NAME(a, nl > left ? nl : left, nr < right ? nr : right, k);                    \
            }                                                                                  \
            T t = a[k], tmp;                                                                   \
            long i = left, j = right;                                                          \
            tmp = a[left], a[left] = a[k], a[k] = tmp;                                         \
            if (a[right] > t)                                                                  \
                tmp = a[right], a[right] = a[left], a[left] = tmp;                             \
            while (i < j) {                                                                    \
                tmp = a[i], a[i] = a[j], a[j] = tmp;                                           \
                i++;                                                                           \
                j--;                                                                           \
                while (a[i] < t)                                                               \
                    i++;                                                                       \
                while (a[j] > t)                                                               \
                    j--;                                                                       \
            }                                                                                  \
            if (a[left] == t) {                                                                \
                tmp = a[left], a[left] = a[j], a[j] = tmp;                                     \
            } else {                                                                           \
                j++;                                                                           \
                tmp = a[j], a[j] = a[right], a[right] = tmp;                                   \
            }                                                                                  \
            if (j <= k)                                                                        \
                left = j + 1;                                                                  \
            if (k <= j)                                                                        \
                right = j - 1;                                                                 \
        }                                                                                      \
    }

/* The exact median (mean of the two middle values for even n), identical to
 * the reference's sort.  Random data makes a partition's branches
 * unpredictable, so first a counting pass: values map monotonically onto
 * 1024 buckets between min and max, the bucket holding rank h - 1 (and h) is
 * found from the counts, and only its few members are selected among.  The
 * ranks, hence the values, are exact whatever the buckets. */
#define XC_NBUCKET 1024
#define XC_DEFINE_MEDIAN(NAME, T, SEL)                                                         \
    static double NAME(const T *a, size_t n, T *tmp)                                           \
    {                                                                                          \
        T lo = a[0], hi = a[0];                                                                \
        for (size_t i = 1; i < n; i++) {                                                       \
            lo = a[i] < lo ? a[i] : lo;                                                        \
            hi = a[i] > hi ? a[i] : hi;                                                        \
        }                                                                                      \
        if (lo == hi)                                                                          \
            return (double)lo;                                                                 \
        double sc = (XC_NBUCKET - 1) / ((double)hi - (double)lo);                              \
        unsigned cnt[XC_NBUCKET] = {0};                                                        \
        for (size_t i = 0; i < n; i++)                                                         \
            cnt[(size_t)(((double)a[i] - (double)lo) * sc)]++;                                 \
        /* ranks kl = lower middle, ku = upper middle (equal for odd n) */                     \
        size_t kl = (n - 1) / 2, ku = n / 2, cum = 0, b = 0;                                   \
        while (cum + cnt[b] <= kl)                                                             \
            cum += cnt[b++];                                                                   \
        size_t m = 0;                                                                          \
        for (size_t i = 0; i < n; i++)                                                         \
            if ((size_t)(((double)a[i] - (double)lo) * sc) == b)                               \
                tmp[m++] = a[i];                                                               \
        long r = (long)(kl - cum);                                                             \
        SEL(tmp, 0, (long)m - 1, r);                                                           \
        double vl = (double)tmp[r], vu;                                                        \
        if (ku == kl) {                                                                        \
            vu = vl;                                                                           \
        } else if (ku - cum < m) {                                                             \
            T u = tmp[r + 1];                                                                  \
            for (size_t i = (size_t)r + 2; i < m; i++)                                         \
                u = tmp[i] < u ? tmp[i] : u;                                                   \
            vu = (double)u;                                                                    \
        } else {     /* the upper middle is the smallest value of the next buckets */          \
            T u = hi;                                                                          \
            for (size_t i = 0; i < n; i++)                                                     \
                if ((size_t)(((double)a[i] - (double)lo) * sc) > b && a[i] < u)                \
                    u = a[i];                                                                  \
            vu = (double)u;                                                                    \
        }                                                                                      \
        return (vl + vu) * 0.5;                                                                \
    }

#endif
