/* tree-s2-emulate: the index arithmetic of optimized/gpu/dd_approx_treeg.cu's
 * kernels emulated on the host (no GPU needed), against their definitions:
 *   - k_tree_s2 over random stage-2 tables (multiples of 4 subbands, rows
 *     shared by trials and not, partial groups and tiles, reads past the
 *     row): the real host tables (tg_make) and shared-memory size
 *     (ap_tree_s2_smem), each lane's staging loads and stores, each
 *     thread's loads at the trials' byte offsets (inside its own entry and
 *     the staged chunk), the 16-bit lanes, against sum_s row[shift + w];
 *   - k_tree_rb's butterfly steps (M = 2 .. 32, the rows published to shared
 *     memory, the zero columns) against k_tree_fused's on one tile.
 * A deliberate offset or shift error must be caught (checked too).
 * Build and run from the repository root:
 *   nvcc -O2 -std=c++17 -I. -D_GNU_SOURCE scripts/tree-s2-emulate.cu -o /tmp/tree-emu && /tmp/tree-emu
 * Prints "fails 0" and exits 0 when everything matches. */
#include "optimized/gpu/dd_approx_treeg.cu"

#include <climits>
#include <cstdio>
#include <random>
#include <vector>

using namespace xc_ap;

static std::mt19937_64 rng(7);
static int rnd(int n) { return (int)(rng() % (unsigned)n); }
static int fails = 0;
static const int GN = 256, NP = AP_TG_NP;

/* The staging of entries [ea, eb) of a tile from t0 into rows, lane by lane
 * as the kernel does; false on a store past the shared memory or a load past
 * the rows. */
static bool stage(const ap_tgroups &g, const std::vector<uint16_t> &buf, size_t W, int ea, int eb, int len,
                  size_t t0, std::vector<uint32_t> &rows)
{
    const int U = xc_apg::GU / NP;
    for (int e = ea; e < eb; e++)
        for (int lane = 0; lane < 32; lane++) {
            const size_t st = (size_t)g.h_lo[e] + t0;
            const long long left = st < W ? (long long)(W - st) - lane : -(long long)lane;
            const int rem = left > INT_MAX ? INT_MAX : left < INT_MIN ? INT_MIN : (int)left;
            const size_t src = (size_t)g.h_row[e] * W + (st < W ? st : 0) + (size_t)lane;
            const size_t dst = ((size_t)(e - ea) * (size_t)len + (size_t)lane) * NP;
            for (int y0 = 0; y0 + lane < len; y0 += 32 * U)
                for (int u = 0; u < U; u++)
                    for (int p = 0; p < NP && y0 + 32 * u + lane < len; p++) {
                        const int y = y0 + 32 * u + 2 * GN * p;
                        const size_t d = dst + (size_t)(y0 + 32 * u) * NP + (size_t)p;
                        if (d >= rows.size() || (y < rem && src + y >= buf.size()) ||
                            (y + GN < rem && src + y + GN >= buf.size()))
                            return false;
                        rows[d] = (y < rem ? (uint32_t)buf[src + y] : 0u) |
                                  ((y + GN < rem ? (uint32_t)buf[src + y + GN] : 0u) << 16);
                    }
        }
    return true;
}

/* Group j's tile t0, every chunk of sc subbands: its outputs into out (row
 * pitch nt); bad adds one position to subband 1's offsets.  False on a read
 * outside the trial's own staged entry. */
static bool group_tile(const ap_tgroups &g, const std::vector<uint16_t> &buf, size_t W, const int32_t *rowid, int nsub,
                       int sc, size_t rowwords, int j, size_t t0, size_t nt, int bad, std::vector<float> &out)
{
    const int nq4 = nsub / 4, i0 = g.h_first[j], gn = g.h_first[j + 1] - i0, len = g.h_len[j];
    const int32_t *ej = g.h_ent + (size_t)j * nq4;
    std::vector<uint32_t> slo((size_t)GN * gn * NP, 0), shi((size_t)GN * gn * NP, 0);
    for (int c = 0; c < nsub; c += sc) {
        const int ea = ej[c / 4], eb = ej[(c + sc) / 4];
        std::vector<uint32_t> rows(rowwords, 0xdeadbeefu);
        if (!stage(g, buf, W, ea, eb, len, t0, rows)) {
            printf("staging past shared memory or the rows\n");
            return false;
        }
        for (int x = 0; x < GN; x++)
            for (int k = 0; k < gn; k++) {
                uint32_t pk[2] = {0, 0};
                for (int s = c; s < c + sc; s++) {
                    const int32_t o = g.h_off[(size_t)(i0 + k) * nsub + s];
                    const long idx = (long)x * NP - (long)(ea - ej[0]) * len * NP + o / 4 + (bad && s == 1) * NP;
                    if (o % (4 * NP) || idx < 0 || idx + NP > (long)(eb - ea) * len * NP ||
                        g.h_row[ea + idx / (len * NP)] != rowid[(size_t)(i0 + k) * nsub + s])
                        return false;
                    for (int p = 0; p < NP; p++)
                        pk[p] += rows[(size_t)idx + p];
                }
                for (int p = 0; p < NP; p++) {
                    slo[((size_t)x * gn + k) * NP + p] += pk[p] & 0xffffu;
                    shi[((size_t)x * gn + k) * NP + p] += pk[p] >> 16;
                }
            }
    }
    for (int k = 0; k < gn; k++)
        for (int x = 0; x < GN; x++)
            for (int p = 0; p < NP; p++) {
                const size_t a = (size_t)(2 * GN * p + x), q = ((size_t)x * gn + k) * NP + p;
                if (t0 + a < nt)
                    out[(size_t)(i0 + k) * nt + t0 + a] = (float)slo[q];
                if (t0 + a + GN < nt)
                    out[(size_t)(i0 + k) * nt + t0 + a + GN] = (float)shi[q];
            }
    return true;
}

/* One random range through k_tree_s2 at every chunk size. */
static void s2_case(int bad)
{
    const int nsub = 4 << rnd(5), ndm = 1 + rnd(200), M = 1 << (1 + rnd(4)), span = rnd(80);
    const size_t nt = 1 + (size_t)rnd(3000), W = nt + (size_t)span + (size_t)M - 1;
    const int npairs = nsub * (1 + rnd(3)), nrows = npairs * M;
    std::vector<int32_t> rowid((size_t)ndm * nsub), shift((size_t)ndm * nsub);
    for (int s = 0; s < nsub; s++) {
        int n = rnd(M);
        const int kind = rnd(4);   /* 3: any row at random */
        for (int i = 0; i < ndm; i++) {
            if (rnd(8) == 0)
                n += 1 + (kind == 0 ? rnd(3) : 0);
            const int row = kind == 3 ? rnd(nrows) : (s + nsub * (n / M % (npairs / nsub))) * M + n % M;
            rowid[(size_t)i * nsub + s] = row % nrows;
            shift[(size_t)i * nsub + s] = rnd(span + 1);
        }
    }
    ap_range r;
    memset(&r, 0, sizeof r);
    r.ndm = (size_t)ndm;
    r.h_rowid = rowid.data();
    r.h_shift = shift.data();
    ap_tgroups g;
    if (tg_make(&g, &r, nsub) || g.ng == 0) {
        printf("tg_make made no groups\n");
        fails++;
        return;
    }
    std::vector<uint16_t> buf((size_t)nrows * W);
    for (auto &v : buf)
        v = (uint16_t)rnd(65535 / 16 + 1);
    for (int sc = 4; sc <= 16 && sc <= nsub; sc *= 2) {
        const size_t rowwords = ap_tree_s2_smem(&g, nsub, sc) / 4 - (size_t)AP_TG * nsub;
        std::vector<float> out((size_t)ndm * nt, -1.f);
        bool ok = true;
        for (int j = 0; ok && j < g.ng; j++)
            for (size_t t0 = 0; ok && t0 < nt; t0 += 2 * GN * NP)
                ok = group_tile(g, buf, W, rowid.data(), nsub, sc, rowwords, j, t0, nt, bad, out);
        size_t differ = 0;
        for (int i = 0; ok && i < ndm; i++)
            for (size_t w = 0; w < nt; w++) {
                uint64_t v = 0;
                for (int s = 0; s < nsub; s++)
                    v += buf[(size_t)rowid[(size_t)i * nsub + s] * W + (size_t)shift[(size_t)i * nsub + s] + w];
                differ += (float)v != out[(size_t)i * nt + w];
            }
        if ((ok && !differ) == (bad != 0)) {
            printf("stage 2 (nsub %d, %d trials, %zu outputs, sc %d, error planted %d): %s\n", nsub, ndm, nt, sc, bad,
                   ok ? "outputs differ" : "read outside its entry");
            fails++;
        }
    }
    tg_free(&g);
}

/* k_tree_rb's steps against k_tree_fused's on one tile of random level 0. */
template <int M> static void rb_case(int bad)
{
    std::vector<uint32_t> a((size_t)M * GN), b((size_t)M * GN), ra((size_t)M * GN), nb((size_t)M * GN);
    for (auto &v : a)
        v = (uint32_t)rnd(256);
    for (int x = 0; x < GN; x++)
        for (int y = 0; y < M; y++)
            ra[(size_t)x * M + y] = a[(size_t)y * GN + x];
    for (int h = 1; h < M; h *= 2) {
        for (int x = 0; x < GN; x++)
            for (int y = 0; y < M; y++) {
                const int g = (y / (2 * h)) * (2 * h), n = y % (2 * h), sh = n / 2 + n % 2;
                b[(size_t)y * GN + x] = a[(size_t)(g + n / 2) * GN + x] +
                                        (x + sh < GN ? a[(size_t)(g + h + n / 2) * GN + x + sh] : 0u);
            }
        a.swap(b);
    }
    std::vector<uint32_t> zr((size_t)(M / 2) * (GN + M), 0xdeadbeefu);
    for (int k = 0; k < (M / 2) * M; k++)
        zr[(size_t)(k / M) * (GN + M) + GN + k % M] = 0u;
    for (int h = 1; h < M; h *= 2) {
        for (int x = 0; x < GN; x++)
            for (int g = 0; g < M; g += 2 * h)
                for (int k = 0; k < h; k++)
                    zr[(size_t)((g / (2 * h)) * h + k) * (GN + M) + x] = ra[(size_t)x * M + g + h + k];
        for (int x = 0; x < GN; x++)
            for (int y = 0; y < M; y++) {
                const int g = (y / (2 * h)) * (2 * h), n = y % (2 * h), sh = n / 2 + n % 2 + (bad && y == 1);
                nb[(size_t)x * M + y] = ra[(size_t)x * M + g + n / 2] + zr[(size_t)((g / (2 * h)) * h + n / 2) * (GN + M) + x + sh];
            }
        ra.swap(nb);
    }
    size_t differ = 0;
    for (int x = 0; x < GN + 1 - M; x++)
        for (int y = 0; y < M; y++)
            differ += ra[(size_t)x * M + y] != a[(size_t)y * GN + x];
    if ((differ == 0) == (bad != 0)) {
        printf("tree M = %d (error planted %d): %zu sums differ\n", M, bad, differ);
        fails++;
    }
}

int main()
{
    for (int k = 0; k < 300; k++)
        s2_case(0);
    for (int k = 0; k < 20; k++)
        s2_case(1);
    for (int bad = 0; bad < 2; bad++) {
        rb_case<2>(bad);
        rb_case<4>(bad);
        rb_case<8>(bad);
        rb_case<16>(bad);
        rb_case<32>(bad);
    }
    printf("fails %d\n", fails);
    return fails != 0;
}
