/* The reproducible sum (warpred/op_rsum.cuh), tested from its contract (the manual at the top of
   op_rsum.cuh: its SEMANTICS and ACCURACY sections) against an exact host reference
   (tests/wt_exact.h: the sum as a 2176-bit fixed-point integer, rounded once to nearest-even).

   Host (no GPU):
     - the reference itself on hand-computed cases: cancellation across the whole range, DBL_MAX +
       DBL_MAX - DBL_MAX, overflow to +-inf and the tie at the overflow threshold, ties to even,
       sticky bits far below, the double-rounding trap of a float sum, subnormal sums, +-0, the
       non-finite rules; against __int128 sums of random scaled integers; its ulp/step helpers and
       its bound check (accepts inside, rejects outside)
     - sizeof the accumulators (32 / 40 bytes)
   GPU:
     - one value: value(rsum_of(x)) and value(add(empty, x)) are x for random bit patterns of every
       kind (-0 -> +0, NaN -> canonical); {x, -x} -> +0 and {x, x} -> 2x or +-inf exactly; the empty
       accumulator and op's identity give +0
     - the hand cases through a warp (one value per lane), a sequential add and a reversed merge
     - warp level: reduce / allreduce (every lane the same bits), _partial (absent lanes write
       nothing), width-8 segments merged by the op; many values per lane, lane assignments random,
       round robin, chunked, all in one lane
     - warps whose lanes hold different highest bins (one lane 2^40 above the others, at each
       lane; every lane its own binade; two bins alternating): whole warp, segments of 8,
       1..32 calling lanes; each result the bits of the sequential adds of its lanes' values
     - block level: 32, 64, 96, 128, 256, 1000, 1024 threads, 2D and 3D blocks, run-time and
       compile-time sizes, reduce vs allreduce, _valid (threads past valid hold a value that must
       not count); three blocks with three different assignments of the same values
     - grid level: warpred_grid_reduce into a warpred_rsum<F>*, finished by a 1-thread kernel;
       several grid and block sizes, assignment lists and a stride loop, compile-time size
     - device level: warpred_device_reduce into F* and into warpred_rsum<F>*, n = 0, 1, 31, 1000,
       2^20 + 3, 2^24 + 5 (not under the sanitizer); the same values at element offsets 0..3 and
       shuffled; the plan's default value_bytes; n > warpred_rsum_max_count is refused and launches
       nothing (a fake plan and a real one)
     - the two usage snippets of op_rsum.cuh (every order of {1e8, 1, -1e8, 0.5} is 1.5 at any
       block size; the host call)
     - the central property: for every data set (uniform, normal, wide range 1e-30..1e30, integers,
       cancelling pairs near and far, zeros, only -0, subnormals, FLT_MAX/DBL_MAX that fit, overflow
       to +inf and -inf, NaN anywhere, +inf, -inf, both) and both types, 17 launch configurations
       across the four levels give IDENTICAL bits, and those are within the documented bound of the
       exact sum (exactly the correctly rounded sum where the contract says the sum is exact); the
       largest error seen is printed, with a plain float sum's for contrast.

   How strictly (wt_exact.h, WT_EXACT_BOUND / WT_EXACT_WINDOW): non-finite inputs decide the bits
   always. Data whose values all lie within the window of exact summation (lowest set bit at least
   M * 2^-35 (float) / M * 2^-53 (double), op_rsum.cuh ACCURACY; this file keeps to 30 / 48 bits
   below the largest where it can, and uses the manual's own hard cases - subnormals only,
   FLT_MAX/DBL_MAX mixes - as they are) is summed exactly before the final rounding: a total F
   holds exactly (zero: +0) must have exactly those bits, an overflowing one
   must be the infinity, any other be within 1 ulp. Elsewhere the documented bound:
   |value - exact| <= ulp(value) + n * M * 2^-36 (float) / 2^-54 (double). Whether a result is the
   correctly rounded sum is printed, not asserted (the contract promises 1 ulp, not 1/2). */
#include <float.h>
#include <warpred/op_rsum.cuh>
#include <warpred/op_tuple.cuh>
#include <warpred/warp_reduce.cuh>
#include <warpred/block_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include <warpred/device_reduce.cuh>
#include "wt_kernels.h"
#include "wt_exact.h"

/* ------------------------------------------------------------------------------------------
   per-type facts and the check against the exact sum
   ------------------------------------------------------------------------------------------ */

static inline wt_exact_verdict check_sum(const wt_exact *a, float got, int mode)
{
    return wt_exact_check_float(a, got, mode);
}
static inline wt_exact_verdict check_sum(const wt_exact *a, double got, int mode)
{
    return wt_exact_check_double(a, got, mode);
}
static inline uint64_t ref_bits(const wt_exact *a, float) { return wt_exact_float_bits(a); }
static inline uint64_t ref_bits(const wt_exact *a, double) { return wt_exact_double_bits(a); }

template <typename F> static const char *fname(void) { return sizeof(F) == 4 ? "float" : "double"; }
template <typename F> static int tix(void) { return sizeof(F) == 4 ? 0 : 1; }

template <typename F> static void exact_of(wt_exact *a, const F *x, size_t n)
{
    wt_exact_clear(a);
    for (size_t i = 0; i < n; i++) wt_exact_add(a, (double)x[i]);
}

/* The largest errors seen by the GPU tests, per type (0 float, 1 double): in ulps of the result
   against the exact sum, and in steps from the correctly rounded sum. */
static double max_err_ulps[2];
static unsigned long long max_steps[2];

/* Fails the test unless got passes the contract's check against a in mode (WT_EXACT_*); records
   the error. */
template <typename F> static void expect_sum(const wt_exact *a, F got, int mode, const char *what)
{
    const wt_exact_verdict v = check_sum(a, got, mode);
    if (!v.ok) fail_msg("%s %s: %s", fname<F>(), what, v.why);
    if (v.err_ulps > max_err_ulps[tix<F>()] && isfinite(v.err_ulps)) max_err_ulps[tix<F>()] = v.err_ulps;
    if (v.steps > max_steps[tix<F>()] && v.steps != ~0ull) max_steps[tix<F>()] = v.steps;
}

/* ------------------------------------------------------------------------------------------
   hand-computed cases (shared by the host test of the reference and the GPU test)
   ------------------------------------------------------------------------------------------ */

/* n values, the correctly rounded sum (NAN: the canonical NaN; 0: +0; the host reference must give
   exactly this), and how strictly the device result is held to the exact sum: 1 WT_EXACT_WINDOW
   (the values lie within the exact window), 0 WT_EXACT_BOUND (they lie farther apart). */
typedef struct {
    const char *name;
    int n;
    double x[4];
    double want;
    int device_mode;
} hand_case;

/* The cases whose values and sum are the same in float and double: zeros and the non-finite rules. */
#define HAND_CASES_BOTH_TYPES                                                                                       \
    {"{-0}", 1, {-0.0}, 0, 1}, {"{-0, -0, -0, -0}", 4, {-0.0, -0.0, -0.0, -0.0}, 0, 1},                             \
        {"{+0, -0}", 2, {0.0, -0.0}, 0, 1}, {"{1, -1}", 2, {1, -1}, 0, 1}, {"nothing", 0, {0}, 0, 1},               \
        {"{+inf, 1}", 2, {INFINITY, 1}, INFINITY, 1}, {"{-inf, 1}", 2, {-INFINITY, 1}, -INFINITY, 1},               \
        {"{+inf, +inf}", 2, {INFINITY, INFINITY}, INFINITY, 1}, {"{+inf, -inf}", 2, {INFINITY, -INFINITY}, NAN, 1}, \
        {"{NaN}", 1, {NAN}, NAN, 1}, {"{-NaN, 1}", 2, {-NAN, 1}, NAN, 1}, {"{+inf, NaN}", 2, {INFINITY, NAN}, NAN, 1},

static const hand_case float_cases[] = {
    {"{1e20, 1, -1e20} (the contract's example)", 3, {1e20f, 1, -1e20f}, 1, 0},
    {"{2^30, 1, -2^30}", 3, {0x1p30, 1, -0x1p30}, 1, 1},
    {"{1e9, 1, -1e9}", 3, {1e9f, 1, -1e9f}, 1, 1},
    {"FLT_MAX + FLT_MAX - FLT_MAX", 3, {FLT_MAX, FLT_MAX, -FLT_MAX}, FLT_MAX, 1},
    {"FLT_MAX + FLT_MAX", 2, {FLT_MAX, FLT_MAX}, INFINITY, 1},
    {"-3 FLT_MAX + FLT_MAX", 4, {-FLT_MAX, -FLT_MAX, FLT_MAX, -FLT_MAX}, -INFINITY, 1},
    {"FLT_MAX + 2^103 (tie at the threshold, odd: up to inf)", 2, {FLT_MAX, 0x1p103}, INFINITY, 1},
    {"FLT_MAX + 2^102", 2, {FLT_MAX, 0x1p102}, FLT_MAX, 1},
    {"1 + 2^-24 (tie, even: down)", 2, {1, 0x1p-24}, 1, 1},
    {"-1 - 2^-24", 2, {-1, -0x1p-24}, -1, 1},
    {"(1 + 2^-23) + 2^-24 (tie, odd: up)", 2, {0x1.000002p0, 0x1p-24}, 0x1.000004p0, 1},
    {"1 + 2^-24 + 2^-149 (sticky far below)", 3, {1, 0x1p-24, 0x1p-149}, 0x1.000002p0, 0},
    {"1 + 2^-24 + 2^-60 (double rounding would give 1)", 3, {1, 0x1p-24, 0x1p-60}, 0x1.000002p0, 0},
    {"2^-149 + 2^-149", 2, {0x1p-149, 0x1p-149}, 0x1p-148, 1},
    {"largest subnormal + 2^-149 = FLT_MIN", 2, {0x1.fffffcp-127, 0x1p-149}, 0x1p-126, 1},
    {"2^-149 - 2^-149", 2, {0x1p-149, -0x1p-149}, 0, 1},
    {"FLT_MAX + 2^-149 - FLT_MAX", 3, {FLT_MAX, 0x1p-149, -FLT_MAX}, 0x1p-149, 0},
    HAND_CASES_BOTH_TYPES{"{FLT_MAX, FLT_MAX, -inf}", 3, {FLT_MAX, FLT_MAX, -INFINITY}, -INFINITY, 1},
};

static const hand_case double_cases[] = {
    {"{1e20, 1, -1e20} (the contract's example)", 3, {1e20, 1, -1e20}, 1, 0},
    {"{2^48, 1, -2^48}", 3, {0x1p48, 1, -0x1p48}, 1, 1},
    {"{1e14, 1, -1e14}", 3, {1e14, 1, -1e14}, 1, 1},
    {"DBL_MAX + DBL_MAX - DBL_MAX", 3, {DBL_MAX, DBL_MAX, -DBL_MAX}, DBL_MAX, 1},
    {"DBL_MAX + DBL_MAX", 2, {DBL_MAX, DBL_MAX}, INFINITY, 1},
    {"-3 DBL_MAX + DBL_MAX", 4, {-DBL_MAX, -DBL_MAX, DBL_MAX, -DBL_MAX}, -INFINITY, 1},
    {"DBL_MAX + 2^970 (tie at the threshold, odd: up to inf)", 2, {DBL_MAX, 0x1p970}, INFINITY, 0},
    {"DBL_MAX + 2^969", 2, {DBL_MAX, 0x1p969}, DBL_MAX, 0},
    {"DBL_MAX + 2^970 - 2^-1074 (just short of the tie)", 3, {DBL_MAX, 0x1p970, -0x1p-1074}, DBL_MAX, 0},
    {"1 + 2^-53 (tie, even: down)", 2, {1, 0x1p-53}, 1, 0},
    {"(1 + 2^-52) + 2^-53 (tie, odd: up)", 2, {0x1.0000000000001p0, 0x1p-53}, 0x1.0000000000002p0, 0},
    {"1 + 2^-53 + 2^-1074 (sticky far below)", 3, {1, 0x1p-53, 0x1p-1074}, 0x1.0000000000001p0, 0},
    {"1 + 2^-54 + 2^-54 (two halves of a half)", 3, {1, 0x1p-54, 0x1p-54}, 1, 0},
    {"1 + 2^-44 + 2^-45", 3, {1, 0x1p-44, 0x1p-45}, 0x1.000000000018p0, 1},
    {"3 x 2^-1074", 3, {0x1p-1074, 0x1p-1074, 0x1p-1074}, 0x0.0000000000003p-1022, 1},
    {"largest subnormal + 2^-1074 = DBL_MIN", 2, {0x0.fffffffffffffp-1022, 0x1p-1074}, 0x1p-1022, 1},
    {"2^-1074 - 2^-1074", 2, {0x1p-1074, -0x1p-1074}, 0, 1},
    {"DBL_MAX + 2^-1074 - DBL_MAX", 3, {DBL_MAX, 0x1p-1074, -DBL_MAX}, 0x1p-1074, 0},
    HAND_CASES_BOTH_TYPES{"{DBL_MAX, DBL_MAX, -inf}", 3, {DBL_MAX, DBL_MAX, -INFINITY}, -INFINITY, 1},
};

enum {
    N_FLOAT_CASES = sizeof float_cases / sizeof float_cases[0],
    N_DOUBLE_CASES = sizeof double_cases / sizeof double_cases[0]
};

/* The expected bits of a hand case's sum in F. */
template <typename F> static uint64_t hand_want_bits(const hand_case *c)
{
    if (isnan(c->want)) return wt_type<F>::nan_bits();
    return wt_type<F>::bits((F)c->want); /* 0 is +0; every other want is exact in F */
}

template <typename F> static void hand_values(const hand_case *c, F *x)
{
    for (int i = 0; i < c->n; i++) x[i] = (F)c->x[i];
}

/* ------------------------------------------------------------------------------------------
   host: the reference itself
   ------------------------------------------------------------------------------------------ */

template <typename F> static void check_hand_cases_host(const hand_case *cases, int count)
{
    for (int k = 0; k < count; k++) {
        const hand_case *c = &cases[k];
        F x[4];
        hand_values(c, x);
        if (c->want != 0 && !isnan(c->want) && !isinf(c->want) && (double)(F)c->want != c->want)
            fail_msg("test table: %s's expected value is not a %s", c->name, fname<F>());
        wt_exact a;
        exact_of(&a, x, (size_t)c->n);
        const uint64_t got = ref_bits(&a, (F)0), want = hand_want_bits<F>(c);
        if (got != want)
            fail_msg("reference, %s %s: bits %llx, expected %llx (%.17g)", fname<F>(), c->name, (unsigned long long)got,
                     (unsigned long long)want, c->want);
        /* the order of the values cannot matter to an integer sum: reversed and rotated too */
        for (int r = 1; r < c->n; r++) {
            wt_exact b;
            wt_exact_clear(&b);
            for (int i = 0; i < c->n; i++) wt_exact_add(&b, (double)x[(i + r) % c->n]);
            if (ref_bits(&b, (F)0) != want)
                fail_msg("reference, %s %s, rotated by %d: bits differ", fname<F>(), c->name, r);
        }
    }
}

static void test_exact_hand_cases(void **state)
{
    (void)state;
    check_hand_cases_host<float>(float_cases, N_FLOAT_CASES);
    check_hand_cases_host<double>(double_cases, N_DOUBLE_CASES);
}

static double from_bits_d(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static float from_bits_f(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* NaN payloads and signs all give the canonical NaN; carry room far above 2^1024; a big
   cancellation leaves the integer exactly zero. */
static void test_exact_specials(void **state)
{
    (void)state;
    wt_exact a;
    const uint32_t fnans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffffffffu, 0x7fc00001u};
    for (int i = 0; i < 5; i++) {
        wt_exact_clear(&a);
        wt_exact_add(&a, 1.0);
        wt_exact_add(&a, (double)from_bits_f(fnans[i]));
        assert_true(wt_exact_float_bits(&a) == 0x7fffffffu);
    }
    const uint64_t dnans[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                              0xffffffffffffffffull};
    for (int i = 0; i < 4; i++) {
        wt_exact_clear(&a);
        wt_exact_add(&a, from_bits_d(dnans[i]));
        wt_exact_add(&a, -INFINITY);
        assert_true(wt_exact_double_bits(&a) == 0x7fffffffffffffffull);
    }
    /* 2^20 x DBL_MAX: +inf; take 2^20 - 1 of them back: DBL_MAX exactly (no wrap in the carry room) */
    wt_exact_clear(&a);
    const int k = 1 << 20;
    for (int i = 0; i < k; i++) wt_exact_add(&a, DBL_MAX);
    assert_true(wt_exact_double_bits(&a) == 0x7ff0000000000000ull);
    assert_true(wt_exact_float_bits(&a) == 0x7f800000u);
    for (int i = 0; i < k - 1; i++) wt_exact_add(&a, -DBL_MAX);
    assert_true(wt_exact_double(&a) == DBL_MAX);
    assert_true(wt_exact_sign(&a) == 1);
    /* ... and 2^20 x -DBL_MAX: -inf */
    wt_exact_clear(&a);
    for (int i = 0; i < k; i++) wt_exact_add(&a, -DBL_MAX);
    assert_true(wt_exact_double_bits(&a) == 0xfff0000000000000ull);
    assert_true(wt_exact_sign(&a) == -1);
    /* every power of two from 2^-1074 to 2^1023 once, then all of them subtracted: exactly zero */
    wt_exact_clear(&a);
    for (int e = -1074; e <= 1023; e++) wt_exact_add(&a, ldexp(1.0, e));
    assert_true(wt_exact_double(&a) == INFINITY); /* 2^1024 - 2^-1074 rounds up */
    for (int e = -1074; e <= 1023; e++) wt_exact_add(&a, -ldexp(1.0, e));
    assert_true(wt_exact_is_zero(&a));
    assert_true(wt_exact_double_bits(&a) == 0 && wt_exact_float_bits(&a) == 0);
    /* 2^1023 - 2^-1074 ... : sum of all powers below 2^1023 is 2^1023 - 2^-1074, which rounds to 2^1023 */
    wt_exact_clear(&a);
    for (int e = -1074; e <= 1022; e++) wt_exact_add(&a, ldexp(1.0, e));
    assert_true(wt_exact_double(&a) == 0x1p1023);
    /* float: the same below 2^127 rounds to 2^127; below 2^-126 (subnormals only) is exact */
    wt_exact_clear(&a);
    for (int e = -149; e <= 126; e++) wt_exact_add(&a, ldexp(1.0, e));
    assert_true(wt_exact_float(&a) == 0x1p127f);
    wt_exact_clear(&a);
    for (int e = -149; e <= -127; e++) wt_exact_add(&a, ldexp(1.0, e));
    assert_true(wt_exact_float(&a) == from_bits_f(0x007fffffu));
    /* the flags and count */
    wt_exact_clear(&a);
    wt_exact_add(&a, -3.0);
    wt_exact_add(&a, 2.0);
    assert_true(a.count == 2 && a.max_abs == 3.0 && wt_exact_double(&a) == -1.0 && wt_exact_float(&a) == -1.0f);
}

/* Random scaled integers: k_i * 2^s with |k_i| < 2^62 (53 significant bits, so each is a double),
   n <= 50 of them summed as __int128 and converted once (gcc's runtime rounds to nearest-even),
   then scaled by 2^s (exact while the result is normal), against the reference: cancellation,
   carries and rounding at every scale, including next to the subnormal range. */
static void test_exact_random_vs_int128(void **state)
{
    (void)state;
    int compared_d = 0, compared_f = 0;
    for (int rep = 0; rep < 4000; rep++) {
        const int n = 1 + wt_rand_below(50);
        const int s = wt_rand_below(2) ? -1074 + wt_rand_below(120) : wt_rand_below(200) - 150;
        __int128 total = 0;
        wt_exact a;
        wt_exact_clear(&a);
        for (int i = 0; i < n; i++) {
            long long k = (long long)((wt_rand64() >> (11 + wt_rand_below(45))) << wt_rand_below(10));
            if (wt_rand_below(2)) k = -k;
            total += k;
            wt_exact_add(&a, ldexp((double)k, s)); /* exact: k has <= 53 significant bits, s >= -1074 */
        }
        const double want_d = ldexp((double)total, s);
        if (fabs(want_d) >= 0x1p-1022 || total == 0) {
            compared_d++;
            if (wt_exact_double(&a) != want_d || (total == 0 && wt_exact_double_bits(&a) != 0))
                fail_msg("n %d, scale 2^%d: reference %a, int128 %a", n, s, wt_exact_double(&a), want_d);
        }
        if (s >= -150) {
            const float want_f = ldexpf((float)total, s);
            if (isfinite(want_f) && (fabsf(want_f) >= 0x1p-126f || total == 0)) {
                compared_f++;
                if (wt_exact_float(&a) != want_f)
                    fail_msg("n %d, scale 2^%d: float reference %a, int128 %a", n, s, (double)wt_exact_float(&a),
                             (double)want_f);
            }
        }
    }
    if (compared_d < 1000 || compared_f < 1000) fail_msg("only %d / %d cases compared", compared_d, compared_f);
}

/* The measuring helpers: ulp, steps, and the bound check's accept / reject. */
static void test_exact_helpers(void **state)
{
    (void)state;
    assert_true(wt_exact_ulp(1.0, wt_exact_float_format) == 0x1p-23);
    assert_true(wt_exact_ulp(1.5, wt_exact_double_format) == 0x1p-52);
    assert_true(wt_exact_ulp(0.0, wt_exact_float_format) == 0x1p-149);
    assert_true(wt_exact_ulp(0x1p-140, wt_exact_float_format) == 0x1p-149);
    assert_true(wt_exact_ulp(-0x1p-1070, wt_exact_double_format) == 0x1p-1074);
    assert_true(wt_exact_ulp(DBL_MAX, wt_exact_double_format) == 0x1p971);
    assert_true(wt_exact_steps_float(1.0f, nextafterf(1.0f, 2.0f)) == 1);
    assert_true(wt_exact_steps_float(0x1p-149f, -0x1p-149f) == 2);
    assert_true(wt_exact_steps_float(0.0f, -0.0f) == 0);
    assert_true(wt_exact_steps_double(-DBL_MAX, DBL_MAX) == 2 * 0x7fefffffffffffffull);
    assert_true(wt_exact_steps_double(1.0, 1.0 + 0x1p-50) == 4);

    wt_exact a;
    wt_exact_clear(&a);
    for (int i = 0; i < 3; i++) wt_exact_add(&a, 1.0);
    wt_exact_add(&a, 0x1p-30); /* 3 + 2^-30: float rounds to 3 */
    wt_exact_verdict v = wt_exact_check_float(&a, 3.0f, WT_EXACT_BITS);
    assert_true(v.ok && v.steps == 0);
    v = wt_exact_check_float(&a, nextafterf(3.0f, 4.0f), WT_EXACT_BOUND); /* one ulp off: inside ulp + 4*3*2^-36 */
    assert_true(v.ok && v.steps == 1);
    v = wt_exact_check_float(&a, nextafterf(3.0f, 4.0f), WT_EXACT_WINDOW); /* within 1 ulp of a total F cannot hold */
    assert_true(v.ok && v.steps == 1);
    v = wt_exact_check_float(&a, nextafterf(3.0f, 4.0f), WT_EXACT_BITS); /* but not correctly rounded */
    assert_false(v.ok);
    v = wt_exact_check_float(&a, nextafterf(3.0f, 2.0f), WT_EXACT_WINDOW); /* 3 - 2^-22: 1 + 2^-8 ulp below */
    assert_false(v.ok);
    v = wt_exact_check_float(&a, 3.0f + 3 * 0x1p-22f, 0); /* three ulps off */
    assert_false(v.ok);
    v = wt_exact_check_float(&a, -3.0f, 0);
    assert_false(v.ok);
    v = wt_exact_check_float(&a, NAN, 0);
    assert_false(v.ok);
    v = wt_exact_check_float(&a, INFINITY, 0);
    assert_false(v.ok);
    /* the second term: n * M * 2^-36 = 3 for {2^36, -2^36, 1} */
    wt_exact_clear(&a);
    wt_exact_add(&a, 0x1p36);
    wt_exact_add(&a, -0x1p36);
    wt_exact_add(&a, 1.0);
    assert_true(wt_exact_check_float(&a, 4.0f, 0).ok);  /* error 3 <= ulp(4) + 3 */
    assert_true(wt_exact_check_float(&a, -2.0f, 0).ok); /* error 3 */
    assert_false(wt_exact_check_float(&a, 5.0f, 0).ok); /* error 4 > ulp(5) + 3 */
    assert_false(wt_exact_check_float(&a, 3.0f, WT_EXACT_BITS).ok);
    assert_false(wt_exact_check_float(&a, 2.0f, WT_EXACT_WINDOW).ok); /* the total 1 is a float: only 1 */
    assert_true(wt_exact_check_float(&a, 1.0f, WT_EXACT_WINDOW).ok);
    /* the window, a total float holds: 3 exactly (nothing else) */
    wt_exact_clear(&a);
    for (int i = 0; i < 3; i++) wt_exact_add(&a, 1.0);
    assert_true(wt_exact_check_float(&a, 3.0f, WT_EXACT_WINDOW).ok);
    assert_false(wt_exact_check_float(&a, nextafterf(3.0f, 4.0f), WT_EXACT_WINDOW).ok);
    assert_true(wt_exact_check_float(&a, nextafterf(3.0f, 4.0f), WT_EXACT_BOUND).ok);
    /* the window, overflow: FLT_MAX + 2^103 rounds to inf, so only inf */
    wt_exact_clear(&a);
    wt_exact_add(&a, FLT_MAX);
    wt_exact_add(&a, 0x1p103);
    assert_true(wt_exact_check_float(&a, INFINITY, WT_EXACT_WINDOW).ok);
    assert_false(wt_exact_check_float(&a, FLT_MAX, WT_EXACT_WINDOW).ok);
    assert_true(wt_exact_check_float(&a, FLT_MAX, WT_EXACT_BOUND).ok);
    /* the window, a tie: 1 + 2^-24 rounds to 1; 1 + 2^-23 is within 1 ulp too, 1 - 2^-24 is not */
    wt_exact_clear(&a);
    wt_exact_add(&a, 1.0);
    wt_exact_add(&a, 0x1p-24);
    assert_true(wt_exact_check_float(&a, 1.0f, WT_EXACT_WINDOW).ok);
    assert_true(wt_exact_check_float(&a, 1.0f + 0x1p-23f, WT_EXACT_WINDOW).ok);
    assert_false(wt_exact_check_float(&a, 1.0f - 0x1p-24f, WT_EXACT_WINDOW).ok);
    assert_false(wt_exact_check_float(&a, 1.0f + 0x1p-23f, WT_EXACT_BITS).ok);
    /* double, at the overflow threshold: DBL_MAX + 2^970 rounds to inf; DBL_MAX is within the bound */
    wt_exact_clear(&a);
    wt_exact_add(&a, DBL_MAX);
    wt_exact_add(&a, 0x1p970);
    assert_true(wt_exact_check_double(&a, INFINITY, WT_EXACT_BITS).ok);
    assert_true(wt_exact_check_double(&a, DBL_MAX, WT_EXACT_BOUND).ok);
    assert_false(wt_exact_check_double(&a, DBL_MAX, WT_EXACT_BITS).ok);
    assert_false(wt_exact_check_double(&a, -INFINITY, WT_EXACT_BOUND).ok);
    /* a finite total far below the threshold: inf is wrong */
    wt_exact_clear(&a);
    wt_exact_add(&a, 0x1p1000);
    assert_false(wt_exact_check_double(&a, INFINITY, WT_EXACT_BOUND).ok);
    /* non-finite inputs decide the bits in every mode */
    wt_exact_add(&a, -INFINITY);
    assert_true(wt_exact_check_double(&a, -INFINITY, WT_EXACT_BOUND).ok);
    assert_false(wt_exact_check_double(&a, -0x1p1000, WT_EXACT_BOUND).ok);
    wt_exact_add(&a, INFINITY);
    assert_true(wt_exact_check_double(&a, from_bits_d(0x7fffffffffffffffull), WT_EXACT_BOUND).ok);
    assert_false(wt_exact_check_double(&a, from_bits_d(0x7ff8000000000000ull), WT_EXACT_BOUND).ok); /* not canonical */
    /* -0 is not +0 */
    wt_exact_clear(&a);
    wt_exact_add(&a, -0.0);
    assert_true(wt_exact_check_float(&a, 0.0f, WT_EXACT_WINDOW).ok);
    assert_false(wt_exact_check_float(&a, -0.0f, WT_EXACT_WINDOW).ok);
    assert_false(wt_exact_check_float(&a, -0.0f, WT_EXACT_BOUND).ok);
}

/* The sizes the contract states. */
static void test_accumulator_sizes(void **state)
{
    (void)state;
    assert_int_equal(sizeof(warpred_rsum<float>), 32);
    assert_int_equal(sizeof(warpred_rsum<double>), 40);
    assert_true((unsigned long long)warpred_rsum_max_count == (1ull << 34) - (1ull << 17));
}

/* ------------------------------------------------------------------------------------------
   the data sets
   ------------------------------------------------------------------------------------------ */

enum {
    K_UNIFORM,     /* U[0, 1) */
    K_NORMAL,      /* N(0, 1) */
    K_WIDE,        /* +-10^U(-30, 30) */
    K_INTEGERS,    /* integers in +-2^30 (float) / +-2^48 (double): inside the exact window */
    K_CANCEL_NEAR, /* pairs +-v, v < 2^30 (double: 2^48) integers, and small integers */
    K_CANCEL_FAR,  /* pairs +-1e20 * (1 + u) and U[0, 1) values: far outside the exact window */
    K_ZEROS,       /* +0 and -0 */
    K_NEG_ZEROS,   /* only -0 */
    K_SUBNORMAL,   /* random subnormals, random signs */
    K_MAX_FITS,    /* cancelling pairs of +-MAX, +-MAX/2, +-2^emax, then MAX + MAX - MAX */
    K_MAX_POS,     /* MAX, MAX/2 and 2^emax, mostly positive: overflows to +inf */
    K_MAX_NEG,     /* the same negated: -inf */
    K_NAN,         /* uniform values with NaNs of several payloads at random places */
    K_POS_INF,     /* U(-1, 1) values, +inf at random places, and +-MAX */
    K_NEG_INF,     /* the same with -inf */
    K_BOTH_INF,    /* +inf and -inf */
    K_NAN_INF,     /* NaN with +inf, -inf and MAX */
    K_COUNT
};
static const char *const k_name[K_COUNT] = {"uniform [0,1)",
                                            "normal",
                                            "wide range 1e-30..1e30",
                                            "integers",
                                            "cancelling pairs (near)",
                                            "cancelling pairs (far)",
                                            "zeros",
                                            "only -0",
                                            "subnormals",
                                            "MAX mix that fits",
                                            "MAX mix -> +inf",
                                            "MAX mix -> -inf",
                                            "NaN anywhere",
                                            "+inf",
                                            "-inf",
                                            "+inf and -inf",
                                            "NaN with infs"};

/* How strictly data set kind's sum is held to the exact one: its values lie within the exact
   window, or not. */
static int k_exact(int kind)
{
    return kind == K_UNIFORM || kind == K_NORMAL || kind == K_WIDE || kind == K_CANCEL_FAR ? WT_EXACT_BOUND
                                                                                           : WT_EXACT_WINDOW;
}

static size_t rand_below_z(size_t n) { return (size_t)(wt_rand64() % (uint64_t)n); }

template <typename F> static void shuffle(F *x, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        const size_t j = rand_below_z(i);
        const F t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
    }
}

static double rand_normal(void)
{
    const double u1 = 1.0 - wt_rand_unit(), u2 = wt_rand_unit(); /* u1 in (0, 1] */
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

template <typename F> static F fmax_of(void) { return sizeof(F) == 4 ? (F)FLT_MAX : (F)DBL_MAX; }
template <typename F> static F top_pow2(void) { return sizeof(F) == 4 ? (F)0x1p127 : (F)0x1p1023; }

/* Puts value v at `count` random places of x[0..n). */
template <typename F> static void sprinkle(F *x, size_t n, F v, int count)
{
    for (int i = 0; i < count && n > 0; i++) x[rand_below_z(n)] = v;
}

/* Fills x[0..n) with data set kind, in random order. */
template <typename F> static void fill(F *x, size_t n, int kind)
{
    typedef wt_type<F> W;
    const int dbl = sizeof(F) == 8;
    const F maxes[3] = {fmax_of<F>(), fmax_of<F>() / 2, top_pow2<F>()};
    size_t i = 0;
    switch (kind) {
    case K_UNIFORM:
        for (; i < n; i++) x[i] = (F)wt_rand_unit();
        break;
    case K_NORMAL:
        for (; i < n; i++) x[i] = (F)rand_normal();
        break;
    case K_WIDE:
        for (; i < n; i++) x[i] = (F)((wt_rand_below(2) ? 1 : -1) * pow(10.0, wt_rand_unit() * 60 - 30));
        break;
    case K_INTEGERS: {
        const int bits = dbl ? 48 : 30;
        for (; i < n; i++) x[i] = (F)((double)(long long)(wt_rand64() >> (64 - bits)) * (wt_rand_below(2) ? 1 : -1));
        break;
    }
    case K_CANCEL_NEAR:
    case K_CANCEL_FAR: {
        const size_t pairs = n / 3;
        for (; i + 1 < 2 * pairs; i += 2) {
            F v;
            if (kind == K_CANCEL_FAR) v = (F)(1e20 * (1 + wt_rand_unit()));
            else
                v = (F)ldexp((double)(wt_rand64() >> 44), dbl ? 28 : 10); /* < 2^48 / 2^30, trailing zeros */
            x[i] = v;
            x[i + 1] = -v;
        }
        for (; i < n; i++) x[i] = kind == K_CANCEL_FAR ? (F)wt_rand_unit() : (F)wt_rand_below(1000);
        break;
    }
    case K_ZEROS:
        for (; i < n; i++) x[i] = wt_rand_below(4) ? (F)0 : -(F)0;
        break;
    case K_NEG_ZEROS:
        for (; i < n; i++) x[i] = -(F)0;
        break;
    case K_SUBNORMAL: {
        const uint64_t frac_mask = dbl ? (1ull << 52) - 1 : (1ull << 23) - 1;
        for (; i < n; i++) {
            uint64_t b = wt_rand64() & frac_mask;
            if (wt_rand_below(4) == 0) b &= 0xff; /* some tiny ones */
            if (b == 0) b = 1;
            x[i] = W::from_bits(b | (wt_rand_below(2) ? W::sign_bit() : 0));
        }
        break;
    }
    case K_MAX_FITS: {
        const size_t tail = n >= 3 ? 3 : 0, pairs = (n - tail) / 2;
        for (size_t p = 0; p < pairs; p++) {
            const F v = maxes[wt_rand_below(3)] * (wt_rand_below(2) ? 1 : -1);
            x[i++] = v;
            x[i++] = -v;
        }
        if (tail) { /* MAX + MAX - MAX: exactly MAX, never an intermediate overflow */
            x[i++] = fmax_of<F>();
            x[i++] = fmax_of<F>();
            x[i++] = -fmax_of<F>();
        }
        for (; i < n; i++) x[i] = 0;
        break;
    }
    case K_MAX_POS:
    case K_MAX_NEG:
        for (; i < n; i++) {
            const F v = maxes[wt_rand_below(3)] * (wt_rand_below(4) ? 1 : -1);
            x[i] = kind == K_MAX_NEG ? -v : v;
        }
        if (n > 0 && n < 4) x[0] = x[n - 1] = kind == K_MAX_NEG ? -fmax_of<F>() : fmax_of<F>();
        break;
    case K_NAN:
        for (; i < n; i++) x[i] = (F)wt_rand_unit();
        sprinkle(x, n, W::special(WT_SP_QNAN), 1);
        sprinkle(x, n, W::special(WT_SP_NEG_QNAN), wt_rand_below(2));
        sprinkle(x, n, W::special(WT_SP_SNAN), wt_rand_below(2));
        break;
    case K_POS_INF:
    case K_NEG_INF:
        for (; i < n; i++) x[i] = (F)(wt_rand_unit() * 2 - 1);
        sprinkle(x, n, fmax_of<F>(), 2);
        sprinkle(x, n, -fmax_of<F>(), 1);
        sprinkle(x, n, W::special(kind == K_POS_INF ? WT_SP_INF : WT_SP_NEG_INF), 1 + wt_rand_below(3));
        break;
    case K_BOTH_INF:
        for (; i < n; i++) x[i] = (F)(wt_rand_unit() * 2 - 1);
        if (n >= 2) {
            x[0] = W::special(WT_SP_INF);
            x[1] = W::special(WT_SP_NEG_INF);
        }
        break;
    default: /* K_NAN_INF */
        for (; i < n; i++) x[i] = fmax_of<F>() * (wt_rand_below(2) ? 1 : -1);
        sprinkle(x, n, W::special(WT_SP_INF), 2);
        sprinkle(x, n, W::special(WT_SP_NEG_INF), 1);
        sprinkle(x, n, W::special(WT_SP_NEG_QNAN), 1);
        break;
    }
    shuffle(x, n);
}

/* ------------------------------------------------------------------------------------------
   assignments: which thread adds which values (lists, as offsets into an index array)
   ------------------------------------------------------------------------------------------ */

enum { A_RANDOM, A_ROUND_ROBIN, A_CHUNKS, A_ONE_THREAD, A_COUNT };
static const char *const a_name[A_COUNT] = {"random", "round robin", "chunks", "one thread"};

/* Thread t of threads (only t < active get values) adds x[idx[j]] for j in [offs[t], offs[t+1]).
   offs has threads + 1 entries; idx n; base is added to every offset (to concatenate lists). */
static void assign(int *idx, int *offs, size_t n, int threads, int active, int how, int base)
{
    if (n >= (size_t)1 << 30) fail_msg("assignment lists are for n < 2^30");
    const int nn = (int)n;
    int t = 0, j = 0;
    if (how == A_RANDOM) {
        for (int i = 0; i < nn; i++) idx[i] = i;
        for (int i = nn; i > 1; i--) {
            const int k = (int)(wt_rand64() % (uint64_t)i), tmp = idx[i - 1];
            idx[i - 1] = idx[k];
            idx[k] = tmp;
        }
        /* active - 1 sorted random cuts (counting sort of the cut points) */
        int *cuts = (int *)calloc((size_t)nn + 1, sizeof(int));
        for (int c = 0; c < active - 1; c++) cuts[wt_rand64() % ((uint64_t)nn + 1)]++;
        offs[0] = base;
        t = 1;
        for (int p = 0; p <= nn && t < active; p++)
            for (int c = 0; c < cuts[p] && t < active; c++) offs[t++] = base + p;
        free(cuts);
        for (; t <= threads; t++) offs[t] = base + nn;
        return;
    }
    const int one = how == A_ONE_THREAD ? wt_rand_below(active) : 0;
    const int chunk = (nn + active - 1) / (active > 0 ? active : 1);
    for (t = 0; t < threads; t++) {
        offs[t] = base + j;
        if (t >= active) continue;
        if (how == A_ROUND_ROBIN)
            for (int i = t; i < nn; i += active) idx[j++] = i;
        else if (how == A_CHUNKS)
            for (int i = t * chunk; i < nn && i < (t + 1) * chunk; i++) idx[j++] = i;
        else if (t == one)
            for (int i = 0; i < nn; i++) idx[j++] = i;
    }
    offs[threads] = base + j;
}

/* Device copies of `copies` concatenated assignments of n values over `threads` threads each. */
static void upload_assignment(size_t n, int threads, int active, int how, int copies, int **d_idx, int **d_offs)
{
    int *idx = (int *)wt_host_alloc((size_t)copies * n * sizeof(int) + sizeof(int));
    int *offs = (int *)wt_host_alloc(((size_t)copies * threads + 1) * sizeof(int));
    for (int c = 0; c < copies; c++)
        assign(idx + (size_t)c * n, offs + (size_t)c * threads, n, threads, active, how, (int)(c * n));
    *d_idx = (int *)wt_dev_alloc((size_t)copies * n * sizeof(int) + sizeof(int));
    *d_offs = (int *)wt_dev_alloc(((size_t)copies * threads + 1) * sizeof(int));
    wt_to_dev(*d_idx, idx, (size_t)copies * n * sizeof(int));
    wt_to_dev(*d_offs, offs, ((size_t)copies * threads + 1) * sizeof(int));
    wt_host_free(idx);
    wt_host_free(offs);
}

/* ------------------------------------------------------------------------------------------
   device side
   ------------------------------------------------------------------------------------------ */

/* Adds x[idx[begin..end)] into acc, alternating the per-element add and a merge with a
   one-value accumulator (two groupings the contract says cannot change the result). */
template <typename F> __device__ void add_list(warpred_rsum<F> &acc, const F *x, const int *idx, int begin, int end)
{
    for (int j = begin; j < end; j++) {
        const F v = x[idx[j]];
        if (j & 1) acc = warpred_op_rsum()(acc, warpred_make_rsum(v));
        else
            warpred_rsum_add(acc, v);
    }
}

template <typename F> __device__ warpred_rsum<F> list_sum(const F *x, const int *idx, const int *offs, int t)
{
    warpred_rsum<F> acc = warpred_op_rsum::identity<warpred_rsum<F>>();
    add_list(acc, x, idx, offs[t], offs[t + 1]);
    return acc;
}

/* One value: out[4i] = value(rsum_of(x)), out[4i+1] = value(add(empty, x)); out[4i+2] = value of
   {x, -x}, out[4i+3] = value of {x, x}. */
template <typename F> __global__ void k_single(const F *x, int n, F *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    warpred_rsum<F> a = warpred_op_rsum::identity<warpred_rsum<F>>();
    warpred_rsum_add(a, x[i]);
    out[4 * i] = warpred_rsum_value(warpred_make_rsum(x[i]));
    out[4 * i + 1] = warpred_rsum_value(a);
    out[4 * i + 2] = warpred_rsum_value(warpred_op_rsum()(warpred_make_rsum(x[i]), warpred_make_rsum(-x[i])));
    warpred_rsum_add(a, x[i]);
    out[4 * i + 3] = warpred_rsum_value(a);
}

/* The empty accumulator and the op's identity: +0, and neutral. out[0..3]. */
template <typename F> __global__ void k_empty(F v, F *out)
{
    typedef warpred_rsum<F> A;
    out[0] = warpred_rsum_value(warpred_op_rsum::identity<warpred_rsum<F>>());
    out[1] = warpred_rsum_value(warpred_op_rsum::identity<A>());
    out[2] = warpred_rsum_value(warpred_op_rsum()(warpred_op_rsum::identity<A>(), warpred_make_rsum(v)));
    out[3] = warpred_rsum_value(warpred_op_rsum()(warpred_make_rsum(v), warpred_op_rsum::identity<warpred_rsum<F>>()));
}

/* Hand case c (a block of 32 threads each): lane l < count holds value l, the others the
   identity; out[3c] = warp allreduce (lane 0), out[3c+1] = sequential adds, out[3c+2] = merges
   in reverse order. */
template <typename F> __global__ void k_cases(const F *vals, const int *first, const int *count, F *out)
{
    typedef warpred_rsum<F> A;
    const int c = blockIdx.x, lane = threadIdx.x, k = count[c];
    const F *v = vals + first[c];
    const A r = warpred_warp_allreduce(lane < k ? warpred_make_rsum(v[lane]) : warpred_op_rsum::identity<A>(),
                                       warpred_op_rsum());
    if (lane != 0) return;
    out[3 * c] = warpred_rsum_value(r);
    A s = warpred_op_rsum::identity<warpred_rsum<F>>(), t = warpred_op_rsum::identity<warpred_rsum<F>>();
    for (int j = 0; j < k; j++) warpred_rsum_add(s, v[j]);
    for (int j = k - 1; j >= 0; j--) t = warpred_op_rsum()(warpred_make_rsum(v[j]), t);
    out[3 * c + 1] = warpred_rsum_value(s);
    out[3 * c + 2] = warpred_rsum_value(t);
}

/* Warp modes: WT_FULL (reduce into out[32] by lane 0, allreduce into out[lane]), SEG8 (width-8
   allreduce, the four segment results merged by lane 0 into out[32]), 1..32 (_partial: lanes
   0..mode-1 call; reduce into out[32], allreduce into out[lane]). */
enum { SEG8 = -2 };

template <typename F> __global__ void k_warp(const F *x, const int *idx, const int *offs, int mode, F *out)
{
    typedef warpred_rsum<F> A;
    __shared__ A seg[4];
    const int lane = threadIdx.x;
    const A acc = list_sum(x, idx, offs, lane);
    if (mode == WT_FULL) {
        const A r = warpred_warp_reduce(acc, warpred_op_rsum());
        const A s = warpred_warp_allreduce(acc, warpred_op_rsum());
        if (lane == 0) out[32] = warpred_rsum_value(r);
        out[lane] = warpred_rsum_value(s);
    } else if (mode == SEG8) {
        const A s = warpred_warp_allreduce<8>(acc, warpred_op_rsum());
        if (lane % 8 == 0) seg[lane / 8] = s;
        __syncwarp();
        if (lane == 0)
            out[32] = warpred_rsum_value(
                warpred_op_rsum()(warpred_op_rsum()(seg[3], seg[0]), warpred_op_rsum()(seg[2], seg[1])));
    } else if (lane < mode) {
        const A r = warpred_warp_reduce_partial(acc, warpred_op_rsum(), mode);
        const A s = warpred_warp_allreduce_partial(acc, warpred_op_rsum(), mode);
        if (lane == 0) out[32] = warpred_rsum_value(r);
        out[lane] = warpred_rsum_value(s);
    }
}

/* Block b, thread tid: its list; threads past valid (valid > 0) add a value that must not count.
   red[b] = value of the block reduce (thread 0), all[g] = value of the allreduce. BT > 0: the
   compile-time forms. */
template <int BT, typename F>
__global__ void k_block(const F *x, const int *idx, const int *offs, int valid, F *red, F *all)
{
    typedef warpred_rsum<F> A;
    const int nt = blockDim.x * blockDim.y * blockDim.z, tid = wt_block_tid(), g = blockIdx.x * nt + tid;
    A acc = list_sum(x, idx, offs, g);
    if (valid > 0 && tid >= valid) warpred_rsum_add(acc, (F)12345.5);
    A r = warpred_op_rsum::identity<warpred_rsum<F>>(), s = r;
    if constexpr (BT > 0) wt_block_calls_static<BT>(acc, warpred_op_rsum(), valid, tid, &r, &s);
    else
        wt_block_calls(acc, warpred_op_rsum(), valid, tid, &r, &s);
    if (tid == 0) red[blockIdx.x] = warpred_rsum_value(r);
    all[g] = warpred_rsum_value(s);
}

/* Grid level over lists (thread g of the grid adds list g) or a stride loop. */
template <int BT, typename F>
__global__ void k_grid_lists(const F *x, const int *idx, const int *offs, warpred_grid_scratch scratch,
                             warpred_rsum<F> *out)
{
    const int nt = blockDim.x * blockDim.y * blockDim.z, g = blockIdx.x * nt + wt_block_tid();
    (void)warpred_grid_reduce<BT>(list_sum(x, idx, offs, g), warpred_op_rsum(), scratch, out);
}

template <typename F>
__global__ void k_grid_stride(const F *x, size_t n, warpred_grid_scratch scratch, warpred_rsum<F> *out)
{
    const size_t nt = (size_t)blockDim.x * blockDim.y * blockDim.z, stride = nt * gridDim.x;
    warpred_rsum<F> acc = warpred_op_rsum::identity<warpred_rsum<F>>();
    for (size_t i = blockIdx.x * nt + wt_block_tid(); i < n; i += stride) warpred_rsum_add(acc, x[i]);
    (void)warpred_grid_reduce(acc, warpred_op_rsum(), scratch, out);
}

template <typename F> __global__ void k_finish(const warpred_rsum<F> *acc, F *out) { *out = warpred_rsum_value(*acc); }

/* ------------------------------------------------------------------------------------------
   host side of each level: each returns the bits of the sum (checking its own internal
   agreement: every lane / thread / block the same)
   ------------------------------------------------------------------------------------------ */

/* Several results of one data set, by configuration. */
typedef struct {
    char name[40][80];
    uint64_t bits[40];
    int count;
} results;

static void note(results *rs, uint64_t bits, const char *fmt, ...)
{
    if (rs->count == 40) fail_msg("more than 40 configurations");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rs->name[rs->count], sizeof rs->name[0], fmt, ap);
    va_end(ap);
    rs->bits[rs->count++] = bits;
}

/* Every configuration gave the first one's bits. */
template <typename F> static void expect_identical(const results *rs, const char *what)
{
    for (int i = 1; i < rs->count; i++)
        if (rs->bits[i] != rs->bits[0])
            fail_msg("%s %s: NOT REPRODUCIBLE: %s gave %.17g (bits %llx), %s gave %.17g (bits %llx)", fname<F>(), what,
                     rs->name[0], (double)wt_type<F>::from_bits(rs->bits[0]), (unsigned long long)rs->bits[0],
                     rs->name[i], (double)wt_type<F>::from_bits(rs->bits[i]), (unsigned long long)rs->bits[i]);
}

/* Every configuration gave the same bits, and they pass the contract against the exact sum of
   x[0..n) in mode; a receives that exact sum. */
template <typename F>
static void expect_reproduced_sum(const results *rs, const F *x, size_t n, int mode, const char *what, wt_exact *a)
{
    expect_identical<F>(rs, what);
    exact_of(a, x, n);
    expect_sum(a, wt_type<F>::from_bits(rs->bits[0]), mode, what);
}

template <typename F> static uint64_t run_warp(const F *d_x, size_t n, int mode, int how)
{
    typedef wt_type<F> W;
    int *d_idx, *d_offs;
    const int callers = mode > 0 ? mode : 32;
    upload_assignment(n, 32, callers, how, 1, &d_idx, &d_offs);
    F *d_out = (F *)wt_dev_alloc(33 * sizeof(F)), out[33];
    k_warp<F><<<1, 32>>>(d_x, d_idx, d_offs, mode, d_out);
    WT_LAUNCHED();
    wt_to_host(out, d_out, sizeof out);
    wt_dev_free(d_idx);
    wt_dev_free(d_offs);
    wt_dev_free(d_out);
    const int lanes_written = mode == SEG8 ? 0 : callers;
    for (int l = 0; l < 32; l++) {
        if (l >= lanes_written) {
            if (!wt_is_poison(out[l]))
                fail_msg("%s warp mode %d: lane %d wrote but should not have", fname<F>(), mode, l);
        } else if (W::bits(out[l]) != W::bits(out[32])) {
            fail_msg("%s warp mode %d (%s), n %zu: allreduce lane %d bits %llx, reduce bits %llx", fname<F>(), mode,
                     a_name[how], n, l, (unsigned long long)W::bits(out[l]), (unsigned long long)W::bits(out[32]));
        }
    }
    if (wt_is_poison(out[32])) fail_msg("%s warp mode %d: no result", fname<F>(), mode);
    return W::bits(out[32]);
}

/* Three blocks of `shape`, each with its own assignment of all n values; valid > 0: _valid. */
template <int BT, typename F> static uint64_t run_block(const F *d_x, size_t n, dim3 shape, int valid, int how)
{
    typedef wt_type<F> W;
    enum { BLOCKS = 3 };
    const int nt = (int)(shape.x * shape.y * shape.z), active = valid > 0 ? valid : nt;
    int *d_idx, *d_offs;
    upload_assignment(n, nt, active, how, BLOCKS, &d_idx, &d_offs);
    F *d_red = (F *)wt_dev_alloc(BLOCKS * sizeof(F)), *d_all = (F *)wt_dev_alloc((size_t)BLOCKS * nt * sizeof(F));
    k_block<BT, F><<<BLOCKS, shape>>>(d_x, d_idx, d_offs, valid, d_red, d_all);
    WT_LAUNCHED();
    F red[BLOCKS];
    F *all = (F *)wt_host_alloc((size_t)BLOCKS * nt * sizeof(F));
    wt_to_host(red, d_red, sizeof red);
    wt_to_host(all, d_all, (size_t)BLOCKS * nt * sizeof(F));
    if (wt_is_poison(red[0]))
        fail_msg("%s block (%u,%u,%u): thread 0 of block 0 wrote no result", fname<F>(), shape.x, shape.y, shape.z);
    for (int b = 0; b < BLOCKS; b++) {
        if (W::bits(red[b]) != W::bits(red[0]))
            fail_msg("%s block (%u,%u,%u)%s valid %d, %s: block %d reduce bits %llx, block 0 %llx (same values, other "
                     "assignment)",
                     fname<F>(), shape.x, shape.y, shape.z, BT ? " static" : "", valid, a_name[how], b,
                     (unsigned long long)W::bits(red[b]), (unsigned long long)W::bits(red[0]));
        for (int t = 0; t < nt; t++)
            if (W::bits(all[(size_t)b * nt + t]) != W::bits(red[0]))
                fail_msg("%s block (%u,%u,%u)%s valid %d, %s: block %d thread %d allreduce bits %llx, reduce %llx",
                         fname<F>(), shape.x, shape.y, shape.z, BT ? " static" : "", valid, a_name[how], b, t,
                         (unsigned long long)W::bits(all[(size_t)b * nt + t]), (unsigned long long)W::bits(red[0]));
    }
    wt_host_free(all);
    wt_dev_free(d_idx);
    wt_dev_free(d_offs);
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    return W::bits(red[0]);
}

/* Finishes an accumulator in device memory with a 1-thread kernel; returns the bits. */
template <typename F> static uint64_t finish(const warpred_rsum<F> *d_acc)
{
    F *d_v = (F *)wt_dev_alloc(sizeof(F)), v;
    k_finish<F><<<1, 1>>>(d_acc, d_v);
    WT_LAUNCHED();
    wt_to_host(&v, d_v, sizeof v);
    wt_dev_free(d_v);
    if (wt_is_poison(v)) fail_msg("the finishing kernel wrote nothing");
    return wt_type<F>::bits(v);
}

/* blocks x shape over lists (how >= 0; BT the compile-time size or 0) or a stride loop (how < 0).
   Runs twice on one scratch (no reset between): both runs must agree. */
template <int BT, typename F> static uint64_t run_grid(const F *d_x, size_t n, int blocks, dim3 shape, int how)
{
    typedef warpred_rsum<F> A;
    const int nt = (int)(shape.x * shape.y * shape.z);
    warpred_grid_scratch *scratch = wt_grid_scratch((unsigned)blocks, sizeof(A));
    A *d_acc = (A *)wt_dev_alloc(sizeof(A));
    int *d_idx = NULL, *d_offs = NULL;
    if (how >= 0) upload_assignment(n, blocks * nt, blocks * nt, how, 1, &d_idx, &d_offs);
    uint64_t first = 0;
    for (int rep = 0; rep < 2; rep++) {
        wt_poison(d_acc, sizeof(A));
        if (how >= 0) k_grid_lists<BT, F><<<blocks, shape>>>(d_x, d_idx, d_offs, *scratch, d_acc);
        else
            k_grid_stride<F><<<blocks, shape>>>(d_x, n, *scratch, d_acc);
        WT_LAUNCHED();
        wt_grid_scratch_ok(scratch, "rsum grid");
        const uint64_t bits = finish(d_acc);
        if (rep == 0) first = bits;
        else if (bits != first)
            fail_msg("%s grid %d x (%u,%u,%u): second run bits %llx, first %llx", fname<F>(), blocks, shape.x, shape.y,
                     shape.z, (unsigned long long)bits, (unsigned long long)first);
    }
    if (how >= 0) {
        wt_dev_free(d_idx);
        wt_dev_free(d_offs);
    }
    wt_dev_free(d_acc);
    wt_grid_scratch_free(scratch);
    return first;
}

/* warpred_device_reduce over d_in[0..n) into a F (acc_out 0) or into a warpred_rsum<F> finished
   by a kernel (acc_out 1). */
template <typename F> static uint64_t run_device(const warpred_device_plan *plan, const F *d_in, size_t n, int acc_out)
{
    typedef warpred_rsum<F> A;
    const char *why = NULL;
    cudaError_t err;
    uint64_t bits;
    if (acc_out) {
        A *d_acc = (A *)wt_dev_alloc(sizeof(A));
        err = warpred_device_reduce(plan, d_in, n, d_acc, warpred_op_rsum(), 0, &why);
        if (err != cudaSuccess)
            fail_msg("warpred_device_reduce(%s, n %zu, into an accumulator): %s (%s)", fname<F>(), n,
                     cudaGetErrorString(err), why);
        WT_LAUNCHED();
        bits = finish(d_acc);
        wt_dev_free(d_acc);
    } else {
        F *d_out = (F *)wt_dev_alloc(sizeof(F)), v;
        err = warpred_device_reduce(plan, d_in, n, d_out, warpred_op_rsum(), 0, &why);
        if (err != cudaSuccess)
            fail_msg("warpred_device_reduce(%s, n %zu): %s (%s)", fname<F>(), n, cudaGetErrorString(err), why);
        WT_LAUNCHED();
        wt_to_host(&v, d_out, sizeof v);
        wt_dev_free(d_out);
        if (wt_is_poison(v)) fail_msg("warpred_device_reduce(%s, n %zu) wrote nothing", fname<F>(), n);
        bits = wt_type<F>::bits(v);
    }
    return bits;
}

/* The device-level configurations over x (host) and d_x (its aligned device copy): offsets 0..3
   (the values copied to d_buf + offset, everything around them poison), a shuffled copy, into
   an accumulator; and a grid-stride kernel on the shuffled copy. */
template <typename F>
static void device_configs(results *rs, const warpred_device_plan *plan, const F *x, const F *d_x, size_t n)
{
    F *d_buf = (F *)wt_dev_alloc((n + 4) * sizeof(F));
    for (int off = 0; off < 4; off++) {
        wt_poison(d_buf, (n + 4) * sizeof(F));
        if (n) WT_CUDA(cudaMemcpy(d_buf + off, d_x, n * sizeof(F), cudaMemcpyDeviceToDevice));
        note(rs, run_device(plan, d_buf + off, n, 0), "device reduce at element offset %d", off);
    }
    note(rs, run_device(plan, d_x, n, 1), "device reduce into an accumulator");
    F *y = (F *)wt_host_alloc(n * sizeof(F) + sizeof(F));
    memcpy(y, x, n * sizeof(F));
    shuffle(y, n);
    wt_to_dev(d_buf + 1, y, n * sizeof(F));
    note(rs, run_device(plan, d_buf + 1, n, 0), "device reduce of a shuffled copy (offset 1)");
    note(rs, run_grid<0>(d_buf + 1, n, 132, dim3(256), -1), "grid 132 x 256 stride, shuffled copy");
    wt_host_free(y);
    wt_dev_free(d_buf);
}

/* ------------------------------------------------------------------------------------------
   GPU tests
   ------------------------------------------------------------------------------------------ */

template <typename F> static void run_single(void)
{
    typedef wt_type<F> W;
    const int n = 4096;
    F *x = (F *)wt_host_alloc(n * sizeof(F)), *out = (F *)wt_host_alloc(4 * n * sizeof(F));
    for (int i = 0; i < n; i++) {
        uint64_t b = wt_rand64();
        if (i < WT_NSPECIAL) x[i] = W::special(i);
        else {
            if (sizeof(F) == 4) b >>= 32;
            if (i % 4 == 1) b &= ~(uint64_t)0 >> (sizeof(F) == 4 ? 41 : 12); /* subnormals */
            x[i] = W::from_bits(b);
        }
    }
    x[WT_NSPECIAL] = fmax_of<F>();
    x[WT_NSPECIAL + 1] = top_pow2<F>();
    F *d_x = (F *)wt_dev_alloc(n * sizeof(F)), *d_out = (F *)wt_dev_alloc(4 * n * sizeof(F));
    wt_to_dev(d_x, x, n * sizeof(F));
    k_single<F><<<n / 256, 256>>>(d_x, n, d_out);
    WT_LAUNCHED();
    wt_to_host(out, d_out, 4 * n * sizeof(F));
    for (int i = 0; i < n; i++) {
        wt_exact one, pair_neg, pair_same;
        wt_exact_clear(&one);
        wt_exact_add(&one, (double)x[i]);
        pair_neg = one;
        wt_exact_add(&pair_neg, -(double)x[i]);
        pair_same = one;
        wt_exact_add(&pair_same, (double)x[i]);
        char what[160];
        snprintf(what, sizeof what, "one value %.9g (bits %llx) via warpred_make_rsum", (double)x[i],
                 (unsigned long long)W::bits(x[i]));
        expect_sum(&one, out[4 * i], WT_EXACT_WINDOW, what);
        snprintf(what, sizeof what, "one value %.9g (bits %llx) via warpred_rsum_add", (double)x[i],
                 (unsigned long long)W::bits(x[i]));
        expect_sum(&one, out[4 * i + 1], WT_EXACT_WINDOW, what);
        snprintf(what, sizeof what, "{x, -x}, x = %.9g (bits %llx)", (double)x[i], (unsigned long long)W::bits(x[i]));
        expect_sum(&pair_neg, out[4 * i + 2], WT_EXACT_WINDOW, what);
        snprintf(what, sizeof what, "{x, x}, x = %.9g (bits %llx)", (double)x[i], (unsigned long long)W::bits(x[i]));
        expect_sum(&pair_same, out[4 * i + 3], WT_EXACT_WINDOW, what);
    }
    /* the empty accumulator and the identity */
    F e[4];
    F *d_e = (F *)wt_dev_alloc(sizeof e);
    k_empty<F><<<1, 1>>>((F)-2.5, d_e);
    WT_LAUNCHED();
    wt_to_host(e, d_e, sizeof e);
    if (W::bits(e[0]) != 0 || W::bits(e[1]) != 0)
        fail_msg("%s: value of the empty accumulator bits %llx, of the identity %llx; expected +0", fname<F>(),
                 (unsigned long long)W::bits(e[0]), (unsigned long long)W::bits(e[1]));
    if (e[2] != (F)-2.5 || e[3] != (F)-2.5)
        fail_msg("%s: identity + {-2.5} gave %g and %g", fname<F>(), (double)e[2], (double)e[3]);
    wt_dev_free(d_e);
    wt_dev_free(d_x);
    wt_dev_free(d_out);
    wt_host_free(x);
    wt_host_free(out);
}

static void test_single_values(void **state)
{
    WT_NEED_GPU(state);
    run_single<float>();
    run_single<double>();
}

template <typename F> static void run_hand_cases(const hand_case *cases, int count)
{
    F *vals = (F *)wt_host_alloc(4 * (size_t)count * sizeof(F)),
      *out = (F *)wt_host_alloc(3 * (size_t)count * sizeof(F));
    int *first = (int *)wt_host_alloc((size_t)count * sizeof(int)),
        *cnt = (int *)wt_host_alloc((size_t)count * sizeof(int));
    for (int c = 0; c < count; c++) {
        first[c] = 4 * c;
        cnt[c] = cases[c].n;
        hand_values(&cases[c], vals + 4 * c);
    }
    F *d_vals = (F *)wt_dev_alloc(4 * (size_t)count * sizeof(F)),
      *d_out = (F *)wt_dev_alloc(3 * (size_t)count * sizeof(F));
    int *d_first = (int *)wt_dev_alloc((size_t)count * sizeof(int)),
        *d_cnt = (int *)wt_dev_alloc((size_t)count * sizeof(int));
    wt_to_dev(d_vals, vals, 4 * (size_t)count * sizeof(F));
    wt_to_dev(d_first, first, (size_t)count * sizeof(int));
    wt_to_dev(d_cnt, cnt, (size_t)count * sizeof(int));
    k_cases<F><<<count, 32>>>(d_vals, d_first, d_cnt, d_out);
    WT_LAUNCHED();
    wt_to_host(out, d_out, 3 * (size_t)count * sizeof(F));
    for (int c = 0; c < count; c++) {
        wt_exact a;
        exact_of(&a, vals + 4 * c, (size_t)cases[c].n);
        static const char *const how[3] = {"warp allreduce", "sequential adds", "reverse merges"};
        for (int k = 0; k < 3; k++) {
            char what[200];
            snprintf(what, sizeof what, "%s via %s", cases[c].name, how[k]);
            expect_sum(&a, out[3 * c + k], cases[c].device_mode, what);
            if (wt_type<F>::bits(out[3 * c + k]) != wt_type<F>::bits(out[3 * c]))
                fail_msg("%s %s: %s gave bits %llx, warp allreduce %llx", fname<F>(), cases[c].name, how[k],
                         (unsigned long long)wt_type<F>::bits(out[3 * c + k]),
                         (unsigned long long)wt_type<F>::bits(out[3 * c]));
        }
        if (wt_type<F>::bits(out[3 * c]) != hand_want_bits<F>(&cases[c]))
            printf("[ INFO     ] %s %s: %.17g, correctly rounded %.17g (%s)\n", fname<F>(), cases[c].name,
                   (double)out[3 * c], cases[c].want,
                   cases[c].device_mode == WT_EXACT_WINDOW ? "within 1 ulp"
                                                           : "outside the exact window; within the bound");
    }
    wt_dev_free(d_vals);
    wt_dev_free(d_out);
    wt_dev_free(d_first);
    wt_dev_free(d_cnt);
    wt_host_free(vals);
    wt_host_free(out);
    wt_host_free(first);
    wt_host_free(cnt);
}

static void test_hand_cases(void **state)
{
    WT_NEED_GPU(state);
    run_hand_cases<float>(float_cases, N_FLOAT_CASES);
    run_hand_cases<double>(double_cases, N_DOUBLE_CASES);
}

/* x[0..n) filled as kind, in a host buffer of room elements, and a device copy of the same size. */
template <typename F> static F *make_data(size_t n, size_t room, int kind, F **d_x)
{
    F *x = (F *)wt_host_alloc(room * sizeof(F));
    fill(x, n, kind);
    *d_x = (F *)wt_dev_alloc(room * sizeof(F));
    wt_to_dev(*d_x, x, n * sizeof(F));
    return x;
}

/* The loop of each level's test: for each of sizes[0..nsizes) and each data set of
   kinds[0..nkinds) (an empty input is one data set), the data on the host and on the device
   (`spare` elements more than n in each), configs(&rs, x, d_x, n, s, k) noting the bits of every
   configuration it runs (s, k: the size's and the data set's positions in the lists), then the
   check: every configuration gave the same bits, and they pass the contract against the exact sum
   (an empty sum: +0). */
template <typename F, typename Configs>
static void run_level(const char *level, const size_t *sizes, size_t nsizes, const int *kinds, size_t nkinds,
                      size_t spare, Configs configs)
{
    for (size_t s = 0; s < nsizes; s++)
        for (size_t k = 0; k < nkinds; k++) {
            const size_t n = sizes[s];
            if (n == 0 && k > 0) break;
            F *d_x;
            F *x = make_data(n, n + spare, kinds[k], &d_x);
            results rs;
            rs.count = 0;
            configs(&rs, (const F *)x, (const F *)d_x, n, s, k);
            char what[120];
            snprintf(what, sizeof what, "%s level, %s, n %zu", level, n ? k_name[kinds[k]] : "nothing", n);
            wt_exact a;
            expect_reproduced_sum(&rs, x, n, k_exact(kinds[k]), what, &a);
            if (n == 0 && rs.bits[0] != 0)
                fail_msg("%s %s: bits %llx, expected +0", fname<F>(), what, (unsigned long long)rs.bits[0]);
            wt_dev_free(d_x);
            wt_host_free(x);
        }
}

/* The warp level alone: every mode and assignment over small and larger sets. */
template <typename F> static void run_warp_level(void)
{
    const size_t sizes[] = {5, 33, 1000, 1, 32, 100};
    const int kinds[] = {K_UNIFORM,   K_WIDE,     K_INTEGERS, K_CANCEL_FAR, K_NEG_ZEROS,
                         K_SUBNORMAL, K_MAX_FITS, K_NAN,      K_BOTH_INF};
    const int modes[] = {WT_FULL, SEG8, 1, 2, 17, 31, 32};
    const int quick = wt_quick(); /* under the sanitizer: fewer sizes, data sets and assignments */
    const size_t nsizes = quick ? 2 : sizeof sizes / sizeof sizes[0],
                 nkinds = quick ? 5 : sizeof kinds / sizeof kinds[0];
    run_level<F>("warp", sizes, nsizes, kinds, nkinds, 0,
                 [&](results *rs, const F *, const F *d_x, size_t n, size_t, size_t) {
                     for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
                         for (int how = 0; how < A_COUNT; how += quick ? 3 : 1)
                             note(rs, run_warp(d_x, n, modes[m], how), "warp mode %d, %s", modes[m], a_name[how]);
                 });
}

static void test_warp_level(void **state)
{
    WT_NEED_GPU(state);
    run_warp_level<float>();
    run_warp_level<double>();
}

/* Warps whose lanes hold different highest bins, so that the trees' steps meet two bins and the
   warp redoes its tree with the realignment (op_rsum.cuh, settle). Case c < 32: lane c holds a
   value 2^40 times the others'; case 32: lane L's value lies 2^(5 L) up (every lane its own
   binade); case 33: lanes alternate between two bins, signs mixed; case 34: every third lane
   holds zero (the lowest bin, nothing to add: the tree's result stands); case 35: every fourth
   lane adds 2^20 and -2^20 after its value (zero parts, the highest bin: every other lane lifts);
   case 36: as 34, and lane 7 holds a value one bin below the others. Mode APART_WARP: the whole
   warp; APART_SEG8: segments of 8 lanes; 1..32: lanes 0..mode-1 call (_partial). Each calling lane writes its
   allreduce result to all[], the first lane of each segment its reduce result to red[], and
   every calling lane to ref[] the sequential adds of its segment's values (no tree). */
enum { APART_CASES = 37, APART_CANCEL = 35, APART_WARP = -1, APART_SEG8 = -8 };

/* acc += 2^20 - 2^20 in the lanes of case APART_CANCEL that take it */
template <typename F> __device__ void apart_cancel(warpred_rsum<F> &acc, int c, int lane)
{
    if (c != APART_CANCEL || lane % 4 != 1) return;
    warpred_rsum_add(acc, (F)0x1p20);
    warpred_rsum_add(acc, (F)-0x1p20);
}

template <typename F> __global__ void k_apart(const F *vals, int mode, F *red, F *all, F *ref)
{
    typedef warpred_rsum<F> A;
    const int c = blockIdx.x, lane = threadIdx.x;
    const int width = mode == APART_SEG8 ? 8 : 32, n = mode < 0 ? 32 : mode;
    const F *v = vals + 32 * c;
    if (lane >= n) return;
    A acc = warpred_make_rsum(v[lane]);
    apart_cancel(acc, c, lane);
    A r, s;
    if (mode == APART_WARP) {
        r = warpred_warp_reduce(acc, warpred_op_rsum());
        s = warpred_warp_allreduce(acc, warpred_op_rsum());
    } else if (mode == APART_SEG8) {
        r = warpred_warp_reduce<8>(acc, warpred_op_rsum());
        s = warpred_warp_allreduce<8>(acc, warpred_op_rsum());
    } else {
        r = warpred_warp_reduce_partial(acc, warpred_op_rsum(), n);
        s = warpred_warp_allreduce_partial(acc, warpred_op_rsum(), n);
    }
    const int first = lane / width * width, end = first + width < n ? first + width : n;
    A q = warpred_op_rsum::identity<A>();
    for (int j = first; j < end; j++) {
        warpred_rsum_add(q, v[j]);
        apart_cancel(q, c, j);
    }
    if (lane == first) red[32 * c + lane] = warpred_rsum_value(r);
    all[32 * c + lane] = warpred_rsum_value(s);
    ref[32 * c + lane] = warpred_rsum_value(q);
}

template <typename F> static void apart_values(F *vals)
{
    for (int c = 0; c < APART_CASES; c++)
        for (int lane = 0; lane < 32; lane++) {
            const double u = 1.0 + wt_rand_unit(), sign = wt_rand_below(2) ? -1.0 : 1.0;
            double x;
            if (c < 32) x = lane == c ? ldexp(u, 40) : u;
            else if (c == 32)
                x = sign * ldexp(u, 5 * lane - 60);
            else if (c == 33)
                x = sign * (lane % 2 ? ldexp(u, 30) : u);
            else if (c == 34)
                x = lane % 3 == 1 ? 0.0 : sign * u;
            else if (c == APART_CANCEL) /* float's 24 bits: exact on the grids of 2^20's bin too */
                x = sign * (double)(float)u;
            else
                x = lane % 3 == 1 ? 0.0 : sign * (lane == 7 ? ldexp(u, -15) : u);
            vals[32 * c + lane] = (F)x;
        }
}

template <typename F> static void run_apart(void)
{
    const size_t count = 32 * APART_CASES, bytes = count * sizeof(F);
    F *vals = (F *)wt_host_alloc(bytes), *red = (F *)wt_host_alloc(bytes), *all = (F *)wt_host_alloc(bytes),
      *ref = (F *)wt_host_alloc(bytes);
    apart_values(vals);
    F *d_vals = (F *)wt_dev_copy(vals, bytes), *d_red = (F *)wt_dev_alloc(bytes), *d_all = (F *)wt_dev_alloc(bytes),
      *d_ref = (F *)wt_dev_alloc(bytes);
    const int full[] = {APART_WARP, APART_SEG8, 1, 2, 3, 5, 7, 8, 9, 16, 17, 19, 24, 31, 32},
              quick[] = {APART_WARP, APART_SEG8, 1, 19, 32};
    const int *modes = wt_quick() ? quick : full;
    const int nmodes = wt_quick() ? (int)(sizeof quick / sizeof quick[0]) : (int)(sizeof full / sizeof full[0]);
    for (int m = 0; m < nmodes; m++) {
        const int mode = modes[m], width = mode == APART_SEG8 ? 8 : 32, n = mode < 0 ? 32 : mode;
        wt_poison(d_red, bytes);
        wt_poison(d_all, bytes);
        wt_poison(d_ref, bytes);
        k_apart<F><<<APART_CASES, 32>>>(d_vals, mode, d_red, d_all, d_ref);
        WT_LAUNCHED();
        wt_to_host(red, d_red, bytes);
        wt_to_host(all, d_all, bytes);
        wt_to_host(ref, d_ref, bytes);
        for (int c = 0; c < APART_CASES; c++)
            for (int lane = 0; lane < 32; lane++) {
                const size_t i = 32 * (size_t)c + lane;
                const int first = lane / width * width;
                if (lane >= n) continue; /* this lane did not call */
                if (lane == first) {
                    const int end = first + width < n ? first + width : n;
                    wt_exact a;
                    exact_of(&a, vals + 32 * c + first, (size_t)(end - first));
                    char what[160];
                    snprintf(what, sizeof what, "lanes apart, case %d, lanes %d..%d, sequential adds", c, first,
                             end - 1);
                    expect_sum(&a, ref[i], WT_EXACT_BOUND, what);
                    if (wt_type<F>::bits(red[i]) != wt_type<F>::bits(ref[i]))
                        fail_msg("%s lanes apart, case %d, width %d, %d lanes: reduce gave bits %llx in lane %d, the "
                                 "sequential adds %llx",
                                 fname<F>(), c, width, n, (unsigned long long)wt_type<F>::bits(red[i]), lane,
                                 (unsigned long long)wt_type<F>::bits(ref[i]));
                }
                if (wt_type<F>::bits(all[i]) != wt_type<F>::bits(ref[i]))
                    fail_msg("%s lanes apart, case %d, width %d, %d lanes: allreduce gave bits %llx in lane %d, "
                             "the sequential adds %llx",
                             fname<F>(), c, width, n, (unsigned long long)wt_type<F>::bits(all[i]), lane,
                             (unsigned long long)wt_type<F>::bits(ref[i]));
            }
    }
    wt_dev_free(d_vals);
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_dev_free(d_ref);
    wt_host_free(vals);
    wt_host_free(red);
    wt_host_free(all);
    wt_host_free(ref);
}

/* More shapes of the redo: segments of 8 with only lanes 0..n-1 calling (each segment settles
   with its own mask; the last one is partial), a block's _valid calls (threads past valid hold a value
   far above the others that must not count) and an rsum member of a tuple (settle through the
   tuple's member-wise protocol). Each result's bits against sequential adds of the same values. */
template <typename F> __global__ void k_apart_partial8(const F *vals, int n, F *red, F *ref)
{
    typedef warpred_rsum<F> A;
    const int c = blockIdx.x, lane = threadIdx.x;
    const F *v = vals + 32 * c;
    if (lane >= n) return;
    const A r = warpred_warp_reduce_partial<8>(warpred_make_rsum(v[lane]), warpred_op_rsum(), n);
    const int first = lane / 8 * 8, end = first + 8 < n ? first + 8 : n;
    if (lane != first) return;
    A q = warpred_op_rsum::identity<A>();
    for (int j = first; j < end; j++) warpred_rsum_add(q, v[j]);
    red[32 * c + lane] = warpred_rsum_value(r);
    ref[32 * c + lane] = warpred_rsum_value(q);
}

template <typename F> __global__ void k_apart_valid(const F *vals, int valid, F *red, F *ref)
{
    typedef warpred_rsum<F> A;
    const int tid = threadIdx.x;
    const F *v = vals + blockIdx.x * blockDim.x;
    A acc = warpred_make_rsum(v[tid]);
    if (tid >= valid) warpred_rsum_add(acc, (F)1e30f); /* must not count */
    const A r = warpred_block_reduce_valid(acc, warpred_op_rsum(), valid);
    if (tid != 0) return;
    A q = warpred_op_rsum::identity<A>();
    for (int j = 0; j < valid; j++) warpred_rsum_add(q, v[j]);
    red[blockIdx.x] = warpred_rsum_value(r);
    ref[blockIdx.x] = warpred_rsum_value(q);
}

template <typename F> __global__ void k_apart_tuple(const F *vals, F *red, F *ref)
{
    typedef warpred_rsum<F> A;
    const int c = blockIdx.x, lane = threadIdx.x;
    const F *v = vals + 32 * c;
    const auto op = warpred_make_op_tuple(warpred_op_rsum(), warpred_op_max());
    const auto r = warpred_warp_allreduce(warpred_make_tuple(warpred_make_rsum(v[lane]), v[lane]), op);
    A q = warpred_op_rsum::identity<A>();
    for (int j = 0; j < 32; j++) warpred_rsum_add(q, v[j]);
    red[32 * c + lane] = warpred_rsum_value(r.v0);
    ref[32 * c + lane] = warpred_rsum_value(q);
    if (lane == 0) red[32 * gridDim.x + c] = r.v1;
}

template <typename F> static void expect_same_bits(F got, F want, const char *what, int c, int where)
{
    if (wt_type<F>::bits(got) != wt_type<F>::bits(want))
        fail_msg("%s lanes apart, %s, case %d, at %d: bits %llx, the sequential adds %llx", fname<F>(), what, c, where,
                 (unsigned long long)wt_type<F>::bits(got), (unsigned long long)wt_type<F>::bits(want));
}

template <typename F> static void run_apart_more(void)
{
    const int BT = 256, BLOCKS = 6;
    const size_t count = 32 * APART_CASES, big = (size_t)BT * BLOCKS;
    F *vals = (F *)wt_host_alloc(count * sizeof(F)), *red = (F *)wt_host_alloc((count + APART_CASES) * sizeof(F)),
      *ref = (F *)wt_host_alloc(count * sizeof(F)), *bv = (F *)wt_host_alloc(big * sizeof(F));
    apart_values(vals);
    for (size_t i = 0; i < big; i++) {
        const double u = 1.0 + wt_rand_unit(), sign = wt_rand_below(2) ? -1.0 : 1.0;
        bv[i] = (F)(sign * ldexp(u, 5 * (int)(i % 19) - 45));
    }
    F *d_vals = (F *)wt_dev_copy(vals, count * sizeof(F)), *d_bv = (F *)wt_dev_copy(bv, big * sizeof(F)),
      *d_red = (F *)wt_dev_alloc((count + APART_CASES) * sizeof(F)), *d_ref = (F *)wt_dev_alloc(count * sizeof(F));
    const int ns[] = {1, 5, 8, 13, 21, 30, 32};
    for (int k = 0; k < (int)(sizeof ns / sizeof ns[0]); k++) {
        const int n = ns[k];
        wt_poison(d_red, count * sizeof(F));
        wt_poison(d_ref, count * sizeof(F));
        k_apart_partial8<F><<<APART_CASES, 32>>>(d_vals, n, d_red, d_ref);
        WT_LAUNCHED();
        wt_to_host(red, d_red, count * sizeof(F));
        wt_to_host(ref, d_ref, count * sizeof(F));
        for (int c = 0; c < APART_CASES; c++)
            for (int first = 0; first < n; first += 8)
                expect_same_bits(red[32 * c + first], ref[32 * c + first], "_partial<8>", c, 1000 * n + first);
    }
    const int valids[] = {1, 31, 33, 100, 129, 255, 256};
    for (int k = 0; k < (int)(sizeof valids / sizeof valids[0]); k++) {
        wt_poison(d_red, BLOCKS * sizeof(F));
        wt_poison(d_ref, BLOCKS * sizeof(F));
        k_apart_valid<F><<<BLOCKS, BT>>>(d_bv, valids[k], d_red, d_ref);
        WT_LAUNCHED();
        wt_to_host(red, d_red, BLOCKS * sizeof(F));
        wt_to_host(ref, d_ref, BLOCKS * sizeof(F));
        for (int b = 0; b < BLOCKS; b++) expect_same_bits(red[b], ref[b], "block _valid", b, valids[k]);
    }
    wt_poison(d_red, (count + APART_CASES) * sizeof(F));
    wt_poison(d_ref, count * sizeof(F));
    k_apart_tuple<F><<<APART_CASES, 32>>>(d_vals, d_red, d_ref);
    WT_LAUNCHED();
    wt_to_host(red, d_red, (count + APART_CASES) * sizeof(F));
    wt_to_host(ref, d_ref, count * sizeof(F));
    for (int c = 0; c < APART_CASES; c++) {
        F top = vals[32 * c];
        for (int j = 1; j < 32; j++) top = vals[32 * c + j] > top ? vals[32 * c + j] : top;
        for (int lane = 0; lane < 32; lane++)
            expect_same_bits(red[32 * c + lane], ref[32 * c + lane], "tuple member", c, lane);
        if (red[count + c] != top)
            fail_msg("%s lanes apart, tuple's max member, case %d: %.17g, expected %.17g", fname<F>(), c,
                     (double)red[count + c], (double)top);
    }
    wt_dev_free(d_vals);
    wt_dev_free(d_bv);
    wt_dev_free(d_red);
    wt_dev_free(d_ref);
    wt_host_free(vals);
    wt_host_free(red);
    wt_host_free(ref);
    wt_host_free(bv);
}

static void test_warp_lanes_apart(void **state)
{
    WT_NEED_GPU(state);
    run_apart<float>();
    run_apart<double>();
    run_apart_more<float>();
    run_apart_more<double>();
}

/* The block level alone: every shape, run-time and compile-time, reduce vs allreduce, _valid. */
template <typename F> static void run_block_level(void)
{
    const size_t sizes[] = {77, 5003, 1, 1000};
    const int kinds[] = {K_NORMAL, K_INTEGERS, K_CANCEL_NEAR, K_ZEROS, K_MAX_POS, K_NEG_INF};
    const dim3 shapes[] = {dim3(32),   dim3(64),   dim3(96),    dim3(128),        dim3(256),
                           dim3(1000), dim3(1024), dim3(16, 8), dim3(10, 10, 10), dim3(7, 5, 3)};
    const size_t nsizes = wt_quick() ? 1 : sizeof sizes / sizeof sizes[0],
                 nkinds = wt_quick() ? 3 : sizeof kinds / sizeof kinds[0];
    run_level<F>("block", sizes, nsizes, kinds, nkinds, 0,
                 [&](results *rs, const F *, const F *d_x, size_t n, size_t s, size_t k) {
                     for (size_t b = 0; b < sizeof shapes / sizeof shapes[0]; b++) {
                         const dim3 sh = shapes[b];
                         const int nt = (int)(sh.x * sh.y * sh.z), how = (int)((b + s + k) % A_COUNT);
                         note(rs, run_block<0>(d_x, n, sh, 0, how), "block (%u,%u,%u), %s", sh.x, sh.y, sh.z,
                              a_name[how]);
                         const int valid = b % 3 == 0 ? 1 : b % 3 == 1 ? nt - 1 : nt / 2 + 1;
                         if (valid > 0 && valid < nt)
                             note(rs, run_block<0>(d_x, n, sh, valid, (how + 1) % A_COUNT), "block (%u,%u,%u) valid %d",
                                  sh.x, sh.y, sh.z, valid);
                     }
                     note(rs, run_block<256>(d_x, n, dim3(256), 0, A_RANDOM), "block <256>");
                     note(rs, run_block<256>(d_x, n, dim3(16, 16), 0, A_ROUND_ROBIN), "block <256> as 16x16");
                     note(rs, run_block<256>(d_x, n, dim3(256), 200, A_CHUNKS), "block <256> valid 200");
                     note(rs, run_block<1024>(d_x, n, dim3(1024), 0, A_RANDOM), "block <1024>");
                 });
}

static void test_block_level(void **state)
{
    WT_NEED_GPU(state);
    run_block_level<float>();
    run_block_level<double>();
}

/* The grid level alone: several grids and block shapes, lists and stride loops. */
template <typename F> static void run_grid_level(void)
{
    const size_t sizes[] = {1000, 100003, 1};
    const int kinds[] = {K_UNIFORM, K_WIDE, K_SUBNORMAL, K_MAX_FITS, K_NAN};
    const size_t nsizes = wt_quick() ? 1 : sizeof sizes / sizeof sizes[0];
    run_level<F>("grid", sizes, nsizes, kinds, sizeof kinds / sizeof kinds[0], 0,
                 [&](results *rs, const F *, const F *d_x, size_t n, size_t, size_t) {
                     note(rs, run_grid<0>(d_x, n, 1, dim3(32), A_RANDOM), "grid 1 x 32, random lists");
                     note(rs, run_grid<0>(d_x, n, 2, dim3(1000), A_CHUNKS), "grid 2 x 1000, chunks");
                     note(rs, run_grid<0>(d_x, n, 7, dim3(8, 4, 3), A_RANDOM), "grid 7 x (8,4,3), random lists");
                     note(rs, run_grid<256>(d_x, n, 64, dim3(256), A_ROUND_ROBIN), "grid 64 x <256>, round robin");
                     note(rs, run_grid<0>(d_x, n, 300, dim3(96), A_ONE_THREAD), "grid 300 x 96, one thread");
                     note(rs, run_grid<0>(d_x, n, 132, dim3(1024), -1), "grid 132 x 1024, stride");
                     note(rs, run_grid<0>(d_x, n, 2000, dim3(32), -1), "grid 2000 x 32, stride");
                 });
}

static void test_grid_level(void **state)
{
    WT_NEED_GPU(state);
    run_grid_level<float>();
    run_grid_level<double>();
}

/* The device level: sizes up to 2^24 + 5 (not under the sanitizer: the sizes above 2^21), offsets,
   shuffled, into an accumulator. */
template <typename F> static void run_device_level(warpred_device_plan *plan)
{
    const size_t sizes[] = {0, 1, 31, 1000, ((size_t)1 << 20) + 3, ((size_t)1 << 24) + 5};
    const int kinds[] = {K_UNIFORM, K_WIDE, K_INTEGERS, K_NAN};
    size_t nsizes = 0; /* sizes ascend */
    while (nsizes < sizeof sizes / sizeof sizes[0] && !(wt_quick() && sizes[nsizes] > ((size_t)1 << 21))) nsizes++;
    run_level<F>("device", sizes, nsizes, kinds, wt_quick() ? 2 : sizeof kinds / sizeof kinds[0], 1,
                 [&](results *rs, const F *x, const F *d_x, size_t n, size_t, size_t) {
                     device_configs(rs, plan, x, d_x, n);
                     note(rs, run_grid<0>(d_x, n, 2000, dim3(128), -1), "grid 2000 x 128, stride");
                 });
}

static void test_device_level(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    if (plan->value_bytes != 64)
        fail_msg(
            "a plan created with value_bytes 0 serves %u bytes; the contract says 64 (warpred_rsum<double> is %zu)",
            plan->value_bytes, sizeof(warpred_rsum<double>));
    run_device_level<float>(plan);
    run_device_level<double>(plan);
    wt_device_plan_free(plan);
}

/* n > warpred_rsum_max_count is refused before anything is launched: through a fake plan
   (scratch pointers that any launch would fault on) and through a real one with a 64-element
   buffer (the outputs keep their poison). */
static void test_too_many_rejected(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan fake = wt_fake_device_plan(64);
    WT_CUDA(cudaGetDevice(&fake.device));
    const size_t n = (size_t)warpred_rsum_max_count + 1;
    const char *why = NULL;
    cudaError_t err = warpred_device_reduce(&fake, (const float *)4096, n, (float *)8192, warpred_op_rsum(), 0, &why);
    if (err != cudaErrorInvalidValue)
        fail_msg("float, n = max_count + 1: %s, expected cudaErrorInvalidValue", cudaGetErrorString(err));
    if (why == NULL || why[0] == '\0' || strcmp(why, "no error") == 0) fail_msg("no message for n = max_count + 1");
    printf("[ INFO     ] n = warpred_rsum_max_count + 1: \"%s\"\n", why);
    why = NULL;
    err = warpred_device_reduce(&fake, (const double *)4096, (size_t)1 << 40, (warpred_rsum<double> *)8192,
                                warpred_op_rsum(), 0, &why);
    if (err != cudaErrorInvalidValue)
        fail_msg("double into an accumulator, n = 2^40: %s, expected cudaErrorInvalidValue", cudaGetErrorString(err));
    if (why == NULL || why[0] == '\0' || strcmp(why, "no error") == 0) fail_msg("no message for n = 2^40");
    WT_LAUNCHED();

    warpred_device_plan *plan = wt_device_plan(0);
    float *d_x = (float *)wt_dev_alloc(64 * sizeof(float)), *d_out = (float *)wt_dev_alloc(sizeof(float));
    warpred_rsum<float> *d_acc = (warpred_rsum<float> *)wt_dev_alloc(sizeof(warpred_rsum<float>));
    err = warpred_device_reduce(plan, d_x, n, d_out, warpred_op_rsum(), 0, &why);
    if (err != cudaErrorInvalidValue)
        fail_msg("n = max_count + 1: %s, expected cudaErrorInvalidValue", cudaGetErrorString(err));
    err = warpred_device_reduce(plan, d_x, n, d_acc, warpred_op_rsum(), 0, &why);
    if (err != cudaErrorInvalidValue)
        fail_msg("n = max_count + 1 into an accumulator: %s, expected cudaErrorInvalidValue", cudaGetErrorString(err));
    WT_LAUNCHED();
    float got;
    warpred_rsum<float> acc;
    wt_to_host(&got, d_out, sizeof got);
    wt_to_host(&acc, d_acc, sizeof acc);
    if (!wt_is_poison(got) || !wt_is_poison(acc)) fail_msg("a refused call wrote its output");
    wt_device_plan_free(plan);
}

/* The usage snippets of op_rsum.cuh, as the build copies them from the manual
   (scripts/snippets.py): the kernel row_sums and the host function reproducible_total. */
#include "snippets/op_rsum.inc"

/* Rows: every order of {1e8, 1, -1e8, 0.5} (24 rows) at several block sizes: 1.5 exactly each
   time; then the host call of the second snippet on the same 96 values: 36 exactly. */
static void test_doc_snippets(void **state)
{
    WT_NEED_GPU(state);
    enum { ROWS = 24, COLS = 4 };
    const float v[COLS] = {1e8f, 1, -1e8f, 0.5f};
    float x[ROWS * COLS], out[ROWS];
    for (int r = 0; r < ROWS; r++) { /* permutation r of the four values (factorial number system) */
        int left[COLS] = {0, 1, 2, 3}, k = r;
        for (int c = 0; c < COLS; c++) {
            const int radix = COLS - c, pick = k % radix;
            k /= radix;
            x[r * COLS + c] = v[left[pick]];
            for (int j = pick; j < COLS - 1; j++) left[j] = left[j + 1];
        }
    }
    float *d_x = (float *)wt_dev_alloc(sizeof x), *d_out = (float *)wt_dev_alloc(sizeof out);
    wt_to_dev(d_x, x, sizeof x);
    const int threads[] = {1, 2, 3, 4, 32, 64, 256};
    for (int t = 0; t < 7; t++) {
        wt_poison(d_out, sizeof out);
        row_sums<<<ROWS, threads[t]>>>(d_x, COLS, d_out);
        WT_LAUNCHED();
        wt_to_host(out, d_out, sizeof out);
        for (int r = 0; r < ROWS; r++)
            if (out[r] != 1.5f)
                fail_msg("snippet row %d {%g, %g, %g, %g} with %d threads: %.9g, expected 1.5", r, (double)x[r * COLS],
                         (double)x[r * COLS + 1], (double)x[r * COLS + 2], (double)x[r * COLS + 3], threads[t],
                         (double)out[r]);
    }
    warpred_device_plan *owned = wt_device_plan(0);
    const size_t n = ROWS * COLS;
    float *out1 = d_out;
    wt_poison(out1, sizeof(float));
    WT_CUDA(reproducible_total(owned, d_x, n, out1));
    WT_LAUNCHED();
    wt_device_plan_free(owned);
    float total;
    wt_to_host(&total, out1, sizeof total);
    if (total != 36.0f) fail_msg("snippet device call: %.9g, expected 36", (double)total);
}

/* The central property: per data set, every configuration at every level gives the same bits,
   within the bound of the exact sum. */
template <typename F> static void run_reproducible(warpred_device_plan *plan, int kind, size_t n)
{
    F *d_x;
    F *x = make_data(n, n, kind, &d_x);
    results rs;
    rs.count = 0;
    note(&rs, run_warp(d_x, n, WT_FULL, A_RANDOM), "one warp, random lanes");
    note(&rs, run_warp(d_x, n, 19, A_ROUND_ROBIN), "warp _partial 19 lanes");
    note(&rs, run_warp(d_x, n, SEG8, A_CHUNKS), "warp width 8, merged");
    note(&rs, run_block<0>(d_x, n, dim3(1000), 0, A_RANDOM), "block 1000");
    note(&rs, run_block<0>(d_x, n, dim3(8, 4, 4), 77, A_ROUND_ROBIN), "block (8,4,4) valid 77");
    note(&rs, run_block<256>(d_x, n, dim3(256), 0, A_CHUNKS), "block <256>");
    note(&rs, run_grid<0>(d_x, n, 1, dim3(1024), A_RANDOM), "grid 1 x 1024 lists");
    note(&rs, run_grid<0>(d_x, n, 37, dim3(12, 8), A_RANDOM), "grid 37 x (12,8) lists");
    note(&rs, run_grid<0>(d_x, n, 132, dim3(256), -1), "grid 132 x 256 stride");
    note(&rs, run_grid<0>(d_x, n, 3001, dim3(64), -1), "grid 3001 x 64 stride");
    device_configs(&rs, plan, x, d_x, n);
    char what[120];
    snprintf(what, sizeof what, "%s, n %zu (%d configurations)", k_name[kind], n, rs.count);
    wt_exact a;
    expect_reproduced_sum(&rs, x, n, k_exact(kind), what, &a);
    const F got = wt_type<F>::from_bits(rs.bits[0]);
    const wt_exact_verdict v = check_sum(&a, got, WT_EXACT_BOUND);
    F plain = 0; /* a plain sequential sum in F, for contrast */
    for (size_t i = 0; i < n; i++) plain += x[i];
    const wt_exact_verdict pv = check_sum(&a, plain, WT_EXACT_BOUND);
    if (isfinite((double)got))
        printf("[ INFO     ] %-6s %-24s n %-8zu %2d configs, same bits: %-14.9g error %.3g ulp (%llu steps from "
               "correctly rounded); "
               "plain sequential sum %.3g ulp\n",
               fname<F>(), k_name[kind], n, rs.count, (double)got, v.err_ulps, v.steps,
               isfinite((double)plain) ? pv.err_ulps : INFINITY);
    else
        printf("[ INFO     ] %-6s %-24s n %-8zu %2d configs, same bits: %g\n", fname<F>(), k_name[kind], n, rs.count,
               (double)got);
    wt_dev_free(d_x);
    wt_host_free(x);
}

static void test_reproducible_everywhere(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t n = wt_quick() ? 10007 : 100003;
    for (int kind = 0; kind < K_COUNT; kind++) {
        /* under the sanitizer: four data sets (what it checks does not depend on the values) */
        if (wt_quick() && !(kind == K_UNIFORM || kind == K_MAX_FITS || kind == K_NAN || kind == K_BOTH_INF)) continue;
        run_reproducible<float>(plan, kind, n);
        run_reproducible<double>(plan, kind, n);
    }
    /* the plain reference: a million values of N(0, 1) and of U[0, 1) */
    if (!wt_quick())
        for (int kind = K_UNIFORM; kind <= K_NORMAL; kind++) {
            run_reproducible<float>(plan, kind, 1000003);
            run_reproducible<double>(plan, kind, 1000003);
        }
    wt_device_plan_free(plan);
    printf(
        "[ INFO     ] largest error over every GPU result so far: float %.3g ulp (%llu steps from correctly rounded), "
        "double %.3g ulp (%llu steps)\n",
        max_err_ulps[0], max_steps[0], max_err_ulps[1], max_steps[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_exact_hand_cases),  WT_TEST(test_exact_specials),    WT_TEST(test_exact_random_vs_int128),
        WT_TEST(test_exact_helpers),     WT_TEST(test_accumulator_sizes), WT_TEST(test_single_values),
        WT_TEST(test_hand_cases),        WT_TEST(test_warp_level),        WT_TEST(test_warp_lanes_apart),
        WT_TEST(test_block_level),       WT_TEST(test_grid_level),        WT_TEST(test_device_level),
        WT_TEST(test_too_many_rejected), WT_TEST(test_doc_snippets),      WT_TEST(test_reproducible_everywhere),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
