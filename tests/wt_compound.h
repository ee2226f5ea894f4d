/* tests/wt_compound.h - host reference models for the compound operations (op_argminmax.cuh,
   op_welford.cuh, op_softmax.cuh, warp_segmented.cuh, atomic_minmax.cuh), written from the
   contract in the headers' manuals, independently of the device code:

   - argmin / argmax (plain and _num): which input pair wins, stated twice (a pairwise "beats"
     relation and a numpy-style two-step selection) so the self-check can cross them
   - Welford: a two-pass mean / variance in long double (a tighter stand-in for the double
     two-pass reference), and the error bound the tests allow
   - online softmax pair: max and sum of exp(x - max) in long double, with the contract's
     -inf / +inf / NaN rules
   - segmented warps: the groups of lanes (by key, by head flags) and an in-lane-order fold
   - 16-bit float atomics: the stored value of fmaximum / fminimum / _num for __half and
     __nv_bfloat16 bit patterns
   - wt_compound_self_check(): host-only checks of the models against known answers (numpy's
     documented argmax / nanargmax results, textbook variances); every test program runs it as a
     test that needs no GPU.

   Floating-point rules are written with C comparisons, signbit and isnan, never with the
   order-preserving bit keys the device code may use. Include after the warpred headers
   (wt_types.h refers to warpred_op_sum). */
#ifndef WT_COMPOUND_H
#define WT_COMPOUND_H

#include <warpred/op_argminmax.cuh>
#include "wt_types.h"

/* ------------------------------------------------------------------------------------------
   argmin / argmax
   ------------------------------------------------------------------------------------------ */

enum wt_argop { WT_ARGMAX, WT_ARGMIN, WT_ARGMAX_NUM, WT_ARGMIN_NUM };
static const char *const wt_argop_name[] = {"argmax", "argmin", "argmax_num", "argmin_num"};

/* The warpred operation of each wt_argop (wt_argop_of<WT_ARGMAX>::type is warpred_op_argmax). */
template <int Op> struct wt_argop_of;
template <> struct wt_argop_of<WT_ARGMAX> {
    typedef warpred_op_argmax type;
};
template <> struct wt_argop_of<WT_ARGMIN> {
    typedef warpred_op_argmin type;
};
template <> struct wt_argop_of<WT_ARGMAX_NUM> {
    typedef warpred_op_argmax_num type;
};
template <> struct wt_argop_of<WT_ARGMIN_NUM> {
    typedef warpred_op_argmin_num type;
};

template <typename T> static int wt_isnan_v(T v)
{
    if constexpr (wt_type<T>::is_int) {
        (void)v;
        return 0;
    } else {
        return isnan(v) != 0;
    }
}

/* -1, 0, 1: the order of warpred_op_max/min on numbers (neither is NaN): -0 < +0. */
template <typename T> static int wt_order(T a, T b)
{
    if (a < b) return -1;
    if (b < a) return 1;
    if constexpr (!wt_type<T>::is_int)
        if (signbit(a) != signbit(b)) return signbit(a) ? -1 : 1; /* a == b == 0 */
    return 0;
}

/* Indices compare as unsigned: index -1 (the identity's) loses every tie. */
template <typename I> static int wt_index_lower(I a, I b)
{
    /* through long long: a 32-bit -1 becomes 2^64 - 1, still above every non-negative index */
    return (unsigned long long)(long long)a < (unsigned long long)(long long)b;
}

/* 1 when (va, ia) strictly beats (vb, ib) under op. */
template <typename T, typename I> static int wt_arg_beats(int op, T va, I ia, T vb, I ib)
{
    const int want_max = op == WT_ARGMAX || op == WT_ARGMAX_NUM, num = op >= WT_ARGMAX_NUM;
    const int na = wt_isnan_v(va), nb = wt_isnan_v(vb);
    if (na && nb) return wt_index_lower(ia, ib); /* among NaNs the lowest index */
    if (na || nb) return num ? nb : na;          /* plain: NaN beats numbers; _num: numbers beat NaN */
    const int c = wt_order(va, vb);
    if (c != 0) return want_max ? c > 0 : c < 0;
    return wt_index_lower(ia, ib); /* ties: the lowest index */
}

/* Position (0..n-1) of the winning pair among v[0..n-1], idx[0..n-1]: a left-to-right fold of
   wt_arg_beats. */
template <typename T, typename I> static int wt_arg_pick(int op, const T *v, const I *idx, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (wt_arg_beats(op, v[i], idx[i], v[best], idx[best])) best = i;
    return best;
}

/* The same answer by numpy's description: plain forms, the first NaN if there is one;
   _num forms, NaN only when everything is NaN; else the extreme value, lowest index among
   equals. Used only to cross-check wt_arg_pick on the host. */
template <typename T, typename I> static int wt_arg_pick_numpy(int op, const T *v, const I *idx, int n)
{
    const int want_max = op == WT_ARGMAX || op == WT_ARGMAX_NUM, num = op >= WT_ARGMAX_NUM;
    int first_nan = -1, numbers = 0;
    for (int i = 0; i < n; i++) {
        if (wt_isnan_v(v[i])) {
            if (first_nan < 0 || wt_index_lower(idx[i], idx[first_nan])) first_nan = i;
        } else {
            numbers++;
        }
    }
    if (first_nan >= 0 && (!num || numbers == 0)) return first_nan;
    int best = -1;
    for (int i = 0; i < n; i++) { /* pass 1: the extreme value */
        if (wt_isnan_v(v[i])) continue;
        if (best < 0 || (want_max ? wt_order(v[i], v[best]) > 0 : wt_order(v[i], v[best]) < 0)) best = i;
    }
    for (int i = 0; i < n; i++) /* pass 2: the lowest index holding it */
        if (!wt_isnan_v(v[i]) && wt_order(v[i], v[best]) == 0 && wt_index_lower(idx[i], idx[best])) best = i;
    return best;
}

/* The documented identity (the result for an empty input): the op's worst value, index -1. */
template <typename T> static T wt_arg_identity_value(int op)
{
    const int want_max = op == WT_ARGMAX || op == WT_ARGMAX_NUM, num = op >= WT_ARGMAX_NUM;
    if constexpr (wt_type<T>::is_int) {
        const T zero = (T)0, ones = (T)~zero;
        const T lowest = ones < zero ? (T)(1ull << (sizeof(T) * 8 - 1)) : zero;
        return want_max ? lowest : (T)~lowest;
    } else {
        if (num) {
            const uint64_t b = wt_type<T>::nan_bits();
            T x;
            memcpy(&x, &b, sizeof x);
            return x;
        }
        return want_max ? (T)-INFINITY : (T)INFINITY;
    }
}

/* 1 when the device's (value, index) is exactly pair number `want` (value bits and index). */
template <typename T, typename I>
static int wt_arg_matches(const T *v, const I *idx, int want, T got_v, I got_i, char *why, size_t whylen)
{
    if (wt_type<T>::bits(got_v) == wt_type<T>::bits(v[want]) && got_i == idx[want]) return 1;
    snprintf(why, whylen, "got (value bits %llx, index %lld), expected input #%d (value bits %llx, index %lld)",
             (unsigned long long)wt_type<T>::bits(got_v), (long long)got_i, want,
             (unsigned long long)wt_type<T>::bits(v[want]), (long long)idx[want]);
    return 0;
}

/* A float/double NaN with the given payload bits (quiet or signalling, either sign). */
template <typename T> static T wt_nan_with(uint64_t payload, int negative)
{
    uint64_t b =
        sizeof(T) == 4 ? 0x7f800000ull | (payload & 0x7fffff) : 0x7ff0000000000000ull | (payload & 0xfffffffffffffull);
    if ((b & (sizeof(T) == 4 ? 0x7fffffull : 0xfffffffffffffull)) == 0) b |= 1; /* never inf */
    if (negative) b |= sizeof(T) == 4 ? 0x80000000ull : 0x8000000000000000ull;
    T x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* ------------------------------------------------------------------------------------------
   Welford mean / variance
   ------------------------------------------------------------------------------------------ */

typedef struct wt_moments {
    long double mean, m2; /* m2: sum of squared deviations from the mean */
    long long count;
} wt_moments;

/* Two passes: the mean, then the squared deviations from it (long double: 64-bit mantissa). */
template <typename T> static wt_moments wt_two_pass(const T *x, long long n)
{
    wt_moments r = {0, 0, n};
    if (n == 0) return r;
    long double s = 0;
    for (long long i = 0; i < n; i++) s += (long double)x[i];
    r.mean = s / n;
    for (long long i = 0; i < n; i++) {
        const long double d = (long double)x[i] - r.mean;
        r.m2 += d * d;
    }
    return r;
}

/* What the finishing helpers must give for these moments (NaN where undefined). */
static inline double wt_mean_of(wt_moments m) { return m.count == 0 ? NAN : (double)m.mean; }
static inline double wt_var_pop_of(wt_moments m) { return m.count == 0 ? NAN : (double)(m.m2 / m.count); }
static inline double wt_var_sample_of(wt_moments m) { return m.count < 2 ? NAN : (double)(m.m2 / (m.count - 1)); }

/* Allowed relative error of a tree of Chan merges in precision u over n values of mean mu and
   standard deviation sd. Each merge rounds the partial means by ~u*|mu|; that error enters m2
   through the delta^2 term, worst for small n: ~ u*|mu| / (sd*sqrt(n)) per level, log2(n)
   levels, plus the ordinary ~log2(n)*u of the sums. (Measured with a host Chan tree on
   1e6 + U(-1e-2, 1e-2) in double: 3.3e-9 at n = 32, 6e-10 at 1024, 5e-11 at 3e5; the bound
   gives 2e-8, 7e-9 and 7e-10.) */
static inline double wt_welford_var_tol(double u, double mu, double sd, long long n)
{
    const double levels = log2((double)n) + 2;
    const double drift = sd > 0 ? u * fabs(mu) / (sd * sqrt((double)n)) : 0;
    return 4 * levels * (u + drift);
}

/* ------------------------------------------------------------------------------------------
   online softmax pair
   ------------------------------------------------------------------------------------------ */

typedef struct wt_softmax_ref {
    double max;  /* NaN when any input is NaN */
    double sum;  /* sum of exp(x_i - max); NaN when any input is NaN */
    int has_nan; /* any NaN input */
    int pinf;    /* count of +inf inputs */
} wt_softmax_ref;

template <typename T> static wt_softmax_ref wt_softmax_model(const T *x, int n)
{
    wt_softmax_ref r = {-INFINITY, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        const double v = (double)x[i];
        if (isnan(v)) r.has_nan = 1;
        else if (v == INFINITY)
            r.pinf++;
        if (!isnan(v) && v > r.max) r.max = v;
    }
    if (r.has_nan) {
        r.max = r.sum = NAN;
        return r;
    }
    if (r.pinf) { /* finite inputs contribute exp(-inf) = 0; each +inf contributes 1 */
        r.sum = r.pinf;
        return r;
    }
    if (r.max == -INFINITY) return r; /* empty or all -inf: (-inf, 0) */
    long double s = 0;
    for (int i = 0; i < n; i++) s += expl((long double)x[i] - (long double)r.max);
    r.sum = (double)s;
    return r;
}

/* Allowed relative error of the sum: each merge rescales by exp(m_i - m), whose argument is
   rounded (relative error up to u*|m_i - m| <= u*range after exp) plus exp's own few ulps; a
   tree of depth log2(n)+1 stacks them. */
static inline double wt_softmax_sum_tol(double u, double range, int n)
{
    return 4 * (log2((double)n) + 2) * (range + 8) * u;
}

/* ------------------------------------------------------------------------------------------
   segmented warp reductions
   ------------------------------------------------------------------------------------------ */

/* Lanes of `calling` (a 32-bit mask) whose key equals lane l's. */
template <typename K> static unsigned wt_key_group(const K *keys, unsigned calling, int l)
{
    unsigned m = 0;
    for (int j = 0; j < 32; j++)
        if (((calling >> j) & 1) && keys[j] == keys[l]) m |= 1u << j;
    return m;
}

/* The run holding lane l: from the nearest head at or below l (lane 0 always starts one) up to
   the lane before the next head. */
static inline unsigned wt_flag_run(const unsigned char *head, int l)
{
    int first = l, last = l;
    while (first > 0 && !head[first]) first--;
    while (last < 31 && !head[last + 1]) last++;
    return (unsigned)(((1ull << (last + 1)) - 1) & ~((1ull << first) - 1));
}

static inline int wt_lowest_lane(unsigned m) { return __builtin_ctz(m); }

/* An associative, NOT commutative operation on unsigned long long: affine maps x -> a*x + b
   (mod 2^32), a in the high half, b in the low half; op(f, g) applies f first, then g. A
   reduction over lanes in ascending order equals the composition in lane order, so any
   reordering of lanes shows. */
static inline unsigned long long wt_affine_compose(unsigned long long f, unsigned long long g)
{
    const uint32_t fa = (uint32_t)(f >> 32), fb = (uint32_t)f, ga = (uint32_t)(g >> 32), gb = (uint32_t)g;
    return ((unsigned long long)(uint32_t)(fa * ga) << 32) | (uint32_t)(fb * ga + gb);
}

/* ------------------------------------------------------------------------------------------
   16-bit float atomics
   ------------------------------------------------------------------------------------------ */

enum { WT_FN_MAX, WT_FN_MIN, WT_FN_MAX_NUM, WT_FN_MIN_NUM };
static const char *const wt_fn_name[] = {"fmaximum", "fminimum", "fmaximum_num", "fminimum_num"};

/* The value of a 16-bit pattern (is_bf16: bfloat16, else IEEE half), exactly, as a double. */
static inline double wt_h16_value(uint16_t b, int is_bf16)
{
    if (is_bf16) {
        uint32_t w = (uint32_t)b << 16;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    const int sign = b >> 15, e = (b >> 10) & 31, m = b & 1023;
    double v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -24);
    else
        v = ldexp((double)(m | 1024), e - 25);
    return sign ? -v : v;
}

static inline int wt_h16_isnan(uint16_t b, int is_bf16)
{
    return is_bf16 ? (b & 0x7fff) > 0x7f80 : (b & 0x7fff) > 0x7c00;
}

/* Stored bits after fn(memory x, argument v): the rule of atomic_minmax.cuh for 16-bit types. */
static inline uint16_t wt_h16_stored(int fn, uint16_t x, uint16_t v, int is_bf16)
{
    const int is_max = fn == WT_FN_MAX || fn == WT_FN_MAX_NUM, num = fn >= WT_FN_MAX_NUM;
    const int xn = wt_h16_isnan(x, is_bf16), vn = wt_h16_isnan(v, is_bf16);
    if (!num && xn) return x;
    if (!num && vn) return is_max ? 0x7fff : 0xffff;
    if (num && vn) return x;
    if (num && xn) return v;
    const double dx = wt_h16_value(x, is_bf16), dv = wt_h16_value(v, is_bf16);
    if (dx == dv) {
        if (dx == 0 && signbit(dx) != signbit(dv)) return is_max ? (signbit(dx) ? v : x) : (signbit(dx) ? x : v);
        return x;
    }
    return (dv > dx) == is_max ? v : x;
}

/* ------------------------------------------------------------------------------------------
   host self-check of the models (no GPU)
   ------------------------------------------------------------------------------------------ */

static inline void wt_compound_self_check(void **state)
{
    (void)state;
    /* numpy.argmax([1, 3, 3, 2]) == 1; argmin == 0 */
    {
        const float v[] = {1, 3, 3, 2};
        const int i[] = {0, 1, 2, 3};
        assert_int_equal(wt_arg_pick(WT_ARGMAX, v, i, 4), 1);
        assert_int_equal(wt_arg_pick(WT_ARGMIN, v, i, 4), 0);
    }
    /* numpy.argmax([1, nan, 5, nan]) == 1 (the first NaN); numpy.nanargmax == 2;
       numpy.argmin == 1; numpy.nanargmin == 0 */
    {
        const double v[] = {1, NAN, 5, wt_nan_with<double>(7, 1)};
        const long long i[] = {0, 1, 2, 3};
        assert_int_equal(wt_arg_pick(WT_ARGMAX, v, i, 4), 1);
        assert_int_equal(wt_arg_pick(WT_ARGMAX_NUM, v, i, 4), 2);
        assert_int_equal(wt_arg_pick(WT_ARGMIN, v, i, 4), 1);
        assert_int_equal(wt_arg_pick(WT_ARGMIN_NUM, v, i, 4), 0);
    }
    /* all NaN: every form gives the first NaN (numpy.nanargmax raises; the contract says the
       first NaN). Indices out of order: "first" means lowest index, not position. */
    {
        const float v[] = {NAN, NAN, NAN};
        const int i[] = {9, 4, 7};
        for (int op = 0; op < 4; op++) assert_int_equal(wt_arg_pick(op, v, i, 3), 1);
    }
    /* -0 < +0: argmax({-0 at 0, +0 at 1}) == 1, argmin == 0; all -inf: argmax index 0 */
    {
        const float v[] = {-0.0f, 0.0f};
        const int i[] = {0, 1};
        assert_int_equal(wt_arg_pick(WT_ARGMAX, v, i, 2), 1);
        assert_int_equal(wt_arg_pick(WT_ARGMIN, v, i, 2), 0);
        const float w[] = {-INFINITY, -INFINITY, -INFINITY};
        const int j[] = {5, 2, 8};
        assert_int_equal(wt_arg_pick(WT_ARGMAX, w, j, 3), 1);
        assert_int_equal(wt_arg_pick(WT_ARGMIN, w, j, 3), 1);
    }
    /* the identity loses to every real pair, even an equal value (index -1 is unsigned max) */
    {
        for (int op = 0; op < 4; op++) {
            const float v[] = {wt_arg_identity_value<float>(op), wt_arg_identity_value<float>(op)};
            const int i[] = {-1, 3};
            assert_int_equal(wt_arg_pick(op, v, i, 2), 1);
            const long long li[] = {-1, 3};
            const int iv[] = {wt_arg_identity_value<int>(op), wt_arg_identity_value<int>(op)};
            assert_int_equal(wt_arg_pick(op, iv, li, 2), 1);
        }
        assert_true(wt_arg_identity_value<int>(WT_ARGMAX) == INT32_MIN);
        assert_true(wt_arg_identity_value<unsigned>(WT_ARGMAX) == 0u);
        assert_true(wt_arg_identity_value<unsigned long long>(WT_ARGMIN) == ~0ull);
        assert_true(wt_type<float>::bits(wt_arg_identity_value<float>(WT_ARGMIN_NUM)) == 0x7fffffffull);
    }
    /* the two statements of the rule agree on random small inputs with many ties and NaNs */
    for (int rep = 0; rep < 20000; rep++) {
        float v[9];
        int idx[9];
        const int n = 1 + wt_rand_below(9);
        for (int k = 0; k < n; k++) {
            const int r = wt_rand_below(8);
            v[k] = r == 0 ? NAN : r == 1 ? -0.0f : r == 2 ? 0.0f : r == 3 ? -INFINITY : (float)(wt_rand_below(3) - 1);
            idx[k] = wt_rand_below(3) == 0 ? -1 : wt_rand_below(1000);
            for (int j = 0; j < k; j++)
                if (idx[j] == idx[k]) idx[k] = 1000 + k; /* distinct indices: no ambiguous pairs */
        }
        for (int op = 0; op < 4; op++) {
            const int a = wt_arg_pick(op, v, idx, n), b = wt_arg_pick_numpy(op, v, idx, n);
            if (a != b) fail_msg("%s models disagree: fold %d, numpy-style %d (n %d)", wt_argop_name[op], a, b, n);
        }
    }
    /* two-pass moments: {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, population variance 4, sample 32/7 */
    {
        const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
        const wt_moments m = wt_two_pass(x, 8);
        assert_true(wt_mean_of(m) == 5.0 && wt_var_pop_of(m) == 4.0);
        assert_true(fabs(wt_var_sample_of(m) - 32.0 / 7) < 1e-15);
        const wt_moments one = wt_two_pass(x, 1), none = wt_two_pass(x, 0);
        assert_true(wt_var_pop_of(one) == 0 && isnan(wt_var_sample_of(one)) && isnan(wt_mean_of(none)));
    }
    /* softmax: {0, ln 3}: max ln 3, sum 1/3 + 1; -inf entries add nothing; all -inf: (-inf, 0);
       +inf twice: (+inf, 2); NaN anywhere: NaN */
    {
        const double a[] = {0, log(3.0), -INFINITY};
        wt_softmax_ref r = wt_softmax_model(a, 3);
        assert_true(r.max == log(3.0) && fabs(r.sum - 4.0 / 3) < 1e-15);
        const double b[] = {-INFINITY, -INFINITY};
        r = wt_softmax_model(b, 2);
        assert_true(r.max == -INFINITY && r.sum == 0);
        const double c[] = {INFINITY, 5, INFINITY, -INFINITY};
        r = wt_softmax_model(c, 4);
        assert_true(r.max == INFINITY && r.sum == 2);
        const double d[] = {INFINITY, NAN};
        r = wt_softmax_model(d, 2);
        assert_true(isnan(r.max) && isnan(r.sum));
    }
    /* segmented: keys {7, 3, 7, ...}; runs from head flags */
    {
        int keys[32];
        for (int l = 0; l < 32; l++) keys[l] = l % 3 == 0 ? 7 : 100 + l;
        assert_true(wt_key_group(keys, 0xffffffffu, 3) == 0x49249249u);
        assert_true(wt_key_group(keys, 0x0000000fu, 0) == 0x9u);
        unsigned char head[32] = {0};
        head[5] = head[6] = head[31] = 1;
        assert_true(wt_flag_run(head, 0) == 0x1fu && wt_flag_run(head, 4) == 0x1fu);
        assert_true(wt_flag_run(head, 5) == 0x20u && wt_flag_run(head, 6) == 0x7fffffc0u);
        assert_true(wt_flag_run(head, 31) == 0x80000000u);
        /* affine maps: (2x+1) then (3x+5) = 6x+8; the other order 6x+11 */
        assert_true(wt_affine_compose(0x200000001ull, 0x300000005ull) == 0x600000008ull);
        assert_true(wt_affine_compose(0x300000005ull, 0x200000001ull) == 0x60000000bull);
    }
    /* 16-bit values and the stored-bits rule */
    {
        assert_true(wt_h16_value(0x3c00, 0) == 1.0 && wt_h16_value(0x0001, 0) == ldexp(1.0, -24));
        assert_true(wt_h16_value(0x7bff, 0) == 65504.0 && wt_h16_value(0x3f80, 1) == 1.0);
        assert_true(wt_h16_value(0x0001, 1) == ldexp(1.0, -133));
        assert_true(wt_h16_stored(WT_FN_MAX, 0x8000, 0x0000, 0) == 0x0000); /* -0 < +0 */
        assert_true(wt_h16_stored(WT_FN_MIN, 0x0000, 0x8000, 1) == 0x8000);
        assert_true(wt_h16_stored(WT_FN_MAX, 0x3c00, 0x7e00, 0) == 0x7fff);     /* NaN argument: 0x7fff */
        assert_true(wt_h16_stored(WT_FN_MIN, 0x3c00, 0xffc0, 1) == 0xffff);     /* fminimum: 0xffff */
        assert_true(wt_h16_stored(WT_FN_MAX, 0xfe01, 0x3c00, 0) == 0xfe01);     /* NaN in memory stays */
        assert_true(wt_h16_stored(WT_FN_MAX_NUM, 0x7fff, 0xbc00, 0) == 0xbc00); /* _num: NaN replaced */
        assert_true(wt_h16_stored(WT_FN_MIN_NUM, 0xbf80, 0x7fc0, 1) == 0xbf80); /* _num: NaN ignored */
        assert_true(wt_h16_stored(WT_FN_MIN, 0x0001, 0x8001, 0) == 0x8001);
    }
}

#endif /* WT_COMPOUND_H */
