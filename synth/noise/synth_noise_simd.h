/* synth_noise_simd.h: the vector Philox4x32-10 and Box-Muller of synth_noise.c,
 * written once for any lane count.  Included once per width (no include guard),
 * after defining:
 *   V(op)       that width's intrinsic for op: V(add_ps) is _mm_add_ps or _mm256_add_ps
 *   VSI(op)     its integer-register bitwise op: VSI(and) is _mm_and_si128 ...
 *   VF, VI      the float and integer vector types
 *   V_CASTI, V_CASTF   float -> integer and integer -> float bit casts
 *   VM          a lane mask: VF at SSE2/AVX2 widths, __mmask16 for AVX-512
 *   V_LT(a, b)  float a < b as a VM;  V_EQI(a, b): integer a == b as a VM
 *   V_SEL(m, a, b)   a where m, else b;  V_DEC(e, m): e - 1 where m (integers)
 *   V_XORF(f, i)     float f with the bits of integer i flipped
 *   V_ODD(a, b)      (optional) a's even 32-bit lanes with b's odd ones
 *   V_LANES     the lane indices (n-1, ..., 1, 0) as V(set_epi32) takes them
 *   V_ATTR      the functions' target attribute (or nothing)
 *   V_NAME(n)   the name n at this width
 * and expects SQRTHF, ANGLE_STEP, logp[] and the PHILOX_ constants.  Every
 * operation is the one-value reference's (box_muller_ref), in the same order
 * and without fused multiply-add, so all widths give the same bits.  The
 * macros are undefined at the end. */

V_ATTR static inline void V_NAME(mul_hilo)(VI a, VI m, VI *lo, VI *hi)
{
    VI p02 = V(mul_epu32)(a, m);
    VI p13 = V(mul_epu32)(V(srli_epi64)(a, 32), m);
#ifdef V_ODD
    /* one blend each instead of a shuffle and an unpack: the same words */
    *lo = V_ODD(p02, V(slli_epi64)(p13, 32));
    *hi = V_ODD(V(srli_epi64)(p02, 32), p13);
#else
    VI t02 = V(shuffle_epi32)(p02, _MM_SHUFFLE(3, 1, 2, 0));
    VI t13 = V(shuffle_epi32)(p13, _MM_SHUFFLE(3, 1, 2, 0));
    *lo = V(unpacklo_epi32)(t02, t13);
    *hi = V(unpackhi_epi32)(t02, t13);
#endif
}

V_ATTR static inline VF V_NAME(log)(VF u)
{
    const VF one = V(set1_ps)(1.0f);
    VI b = V_CASTI(u);
    VI e = V(sub_epi32)(V(srli_epi32)(b, 23), V(set1_epi32)(126));
    VF m = V_CASTF(VSI(or)(VSI(and)(b, V(set1_epi32)(0x007fffff)), V(set1_epi32)(0x3f000000)));
    VM lt = V_LT(m, V(set1_ps)(SQRTHF));
    e = V_DEC(e, lt);
    VF x = V_SEL(lt, V(sub_ps)(V(add_ps)(m, m), one), V(sub_ps)(m, one));
    VF z = V(mul_ps)(x, x);
    VF y = V(set1_ps)(logp[0]);
    for (int k = 1; k < 9; k++)
        y = V(add_ps)(V(mul_ps)(y, x), V(set1_ps)(logp[k]));
    y = V(mul_ps)(V(mul_ps)(y, x), z);
    VF fe = V(cvtepi32_ps)(e);
    y = V(add_ps)(y, V(mul_ps)(V(set1_ps)(-2.12194440e-4f), fe));
    y = V(add_ps)(y, V(mul_ps)(V(set1_ps)(-0.5f), z));
    VF r = V(add_ps)(x, y);
    return V(add_ps)(r, V(mul_ps)(V(set1_ps)(0.693359375f), fe));
}

V_ATTR static inline void V_NAME(box_muller)(VI a, VI b, VF *zc, VF *zs)
{
    VF u = V(mul_ps)(V(add_ps)(V(cvtepi32_ps)(V(srli_epi32)(a, 1)), V(set1_ps)(0.5f)), V(set1_ps)(0x1p-31f));
    VF r2 = V(mul_ps)(V(set1_ps)(-2.0f), V_NAME(log)(u));
    VF r = V(sqrt_ps)(V(max_ps)(r2, V(setzero_ps)()));
    VI q = V(srli_epi32)(b, 30);
    VF t = V(mul_ps)(V(cvtepi32_ps)(V(sub_epi32)(VSI(and)(b, V(set1_epi32)(0x3fffffff)), V(set1_epi32)(1 << 29))),
                     V(set1_ps)(ANGLE_STEP));
    VF z = V(mul_ps)(t, t);
    VF s = V(add_ps)(V(mul_ps)(V(set1_ps)(-1.9515295891E-4f), z), V(set1_ps)(8.3321608736E-3f));
    s = V(sub_ps)(V(mul_ps)(s, z), V(set1_ps)(1.6666654611E-1f));
    s = V(add_ps)(V(mul_ps)(V(mul_ps)(s, z), t), t);
    VF c = V(sub_ps)(V(mul_ps)(V(set1_ps)(2.443315711809948E-5f), z), V(set1_ps)(1.388731625493765E-3f));
    c = V(add_ps)(V(mul_ps)(c, z), V(set1_ps)(4.166664568298827E-2f));
    c = V(add_ps)(V(sub_ps)(V(mul_ps)(V(mul_ps)(c, z), z), V(mul_ps)(V(set1_ps)(0.5f), z)), V(set1_ps)(1.0f));
    const VI one = V(set1_epi32)(1);
    VM swap = V_EQI(VSI(and)(q, one), one);
    VF C = V_SEL(swap, s, c), S = V_SEL(swap, c, s);
    VI negc = V(slli_epi32)(VSI(and)(V(srli_epi32)(V(add_epi32)(q, one), 1), one), 31);
    VI negs = V(slli_epi32)(V(srli_epi32)(q, 1), 31);
    C = V_XORF(C, negc);
    S = V_XORF(S, negs);
    *zc = V(mul_ps)(r, C);
    *zs = V(mul_ps)(r, S);
}

/* Philox4x32-10 of the counters (x[0], x[1], x[2], x[3]), one a lane, in place. */
V_ATTR static inline void V_NAME(philox)(const uint32_t key[2], VI x[4])
{
    const VI m0 = V(set1_epi32)((int)PHILOX_M0), m1 = V(set1_epi32)((int)PHILOX_M1);
    uint32_t k0 = key[0], k1 = key[1];
    VI x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        VI lo0, hi0, lo1, hi1;
        V_NAME(mul_hilo)(x0, m0, &lo0, &hi0);
        V_NAME(mul_hilo)(x2, m1, &lo1, &hi1);
        x0 = VSI(xor)(VSI(xor)(hi1, x1), V(set1_epi32)((int)k0));
        x2 = VSI(xor)(VSI(xor)(hi0, x3), V(set1_epi32)((int)k1));
        x1 = lo1;
        x3 = lo0;
    }
    x[0] = x0, x[1] = x1, x[2] = x2, x[3] = x3;
}

/* The Philox blocks `blocks` (one a lane) of counter (sample, stream) as
 * Box-Muller pairs: lane j of (a0, a1, b0, b1) holds that block's four values. */
V_ATTR static inline void V_NAME(gauss_at)(const uint32_t key[2], uint64_t sample, uint32_t stream, VI blocks,
                                           VF *a0, VF *a1, VF *b0, VF *b1)
{
    VI x[4] = {V(set1_epi32)((int)(uint32_t)sample), V(set1_epi32)((int)(uint32_t)(sample >> 32)), blocks,
               V(set1_epi32)((int)stream)};
    V_NAME(philox)(key, x);
    V_NAME(box_muller)(x[0], x[1], a0, a1);
    V_NAME(box_muller)(x[2], x[3], b0, b1);
}

/* The Philox blocks b, b+1, ... (one a lane) of counter (sample, stream) as
 * Box-Muller pairs: lane j of (a0, a1, b0, b1) holds block b+j's four values. */
V_ATTR static inline void V_NAME(gauss)(const uint32_t key[2], uint64_t sample, uint32_t stream, uint32_t b, VF *a0,
                                        VF *a1, VF *b0, VF *b1)
{
    V_NAME(gauss_at)(key, sample, stream, V(add_epi32)(V(set1_epi32)((int)b), V_LANES), a0, a1, b0, b1);
}

/* The same blocks, each 128-bit quarter transposed: quarter q of r[k] holds
 * block b+4q+k's four values, in channel order. */
V_ATTR static inline void V_NAME(gauss_t)(const uint32_t key[2], uint64_t sample, uint32_t stream, uint32_t b,
                                          VF r[4])
{
    VF a0, a1, b0, b1;
    V_NAME(gauss)(key, sample, stream, b, &a0, &a1, &b0, &b1);
    VF t0 = V(unpacklo_ps)(a0, a1), t1 = V(unpackhi_ps)(a0, a1);
    VF t2 = V(unpacklo_ps)(b0, b1), t3 = V(unpackhi_ps)(b0, b1);
    r[0] = V(shuffle_ps)(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    r[1] = V(shuffle_ps)(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    r[2] = V(shuffle_ps)(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    r[3] = V(shuffle_ps)(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

#undef V
#undef VSI
#undef VF
#undef VI
#undef V_CASTI
#undef V_CASTF
#undef VM
#undef V_LT
#undef V_EQI
#undef V_SEL
#undef V_DEC
#undef V_XORF
#undef V_ODD
#undef V_LANES
#undef V_ATTR
#undef V_NAME
