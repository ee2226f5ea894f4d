/* The reproducible all-reduce pieces on one GPU, with the exchange between GPUs simulated: the
   element-wise vector sum of warpred/vector_rsum.cuh, and the scalar path of op_rsum.cuh
   (accumulators of shards merged in any order). Tested from the manuals (vector_rsum.cuh:
   SEMANTICS, SCALE, ACCURACY; op_rsum.cuh: SEMANTICS) against two host references:
     - a model of the documented rule (SCALE: the exponent byte, the step 2^g, the odd truncation,
       one rounding), written here in long double arithmetic rather than in the header's bit
       operations: every GPU result must have exactly its bits;
     - the exact sum (tests/wt_exact.h): every finite result within the documented bound
       1/2 ulp + K * M * 2^-46, the correctly rounded sum where the manual says so (K <= 2, every
       value on the grid), the non-finite rules exactly. A float sum of the same values in a fixed
       order is measured too (the largest errors of both are printed), and the manual's claim that
       the bound is below that sum's (K - 1) * 2^-24 * sum|x| for K >= 3 is checked element by element.

   Host (no GPU): the model on hand cases (the manual's example, cancellation, ties, -0, NaN and
   infinity rules, overflow, 2^16 values of FLT_MAX, subnormals) and against the exact sum on random
   data; every argument error of the host calls is refused with a message before CUDA is touched.
   GPU:
     - the usage snippet of vector_rsum.cuh (its stated output);
     - data sets (uniform, wide and full-range exponents, subnormals, +-0, only -0, cancelling
       pairs, near FLT_MAX, integers, NaN/+inf/-inf sprinkled, all zeros), K = 1, 2, 3, 16, 40 (three
       launches of 16), M = 0, 1, 2, 3, 5, 8, 1029, 10007: bits equal to the model, bound against
       the exact sum; float, __half and __nv_bfloat16 input; vectors aligned (4-element path) and
       shifted by one element (one-element path);
     - groupings: the K vectors spread over P simulated GPUs (P = 1..16; random groupings with
       empty groups and the vectors in random order, and for K = 4 every assignment to P <= 4
       groups), each group running the two local passes on its own buffers, the exchange done
       here (element-wise max of the bytes, then the int64 sums added in a random order): the same
       bits as all K on one GPU, every time;
     - the scalar path: an array cut into P = 1..16 shards at random boundaries (empty shards
       too), each reduced to a warpred_rsum<F> by warpred_device_reduce, the accumulators merged
       in a random order by warpred_op_rsum: the same bits as warpred_device_reduce of the whole
       array (float and double, data sets with NaN, infinities, wide range, overflow).
   Outputs are poisoned before every call; the seed is printed (WARPRED_SEED=n repeats a run);
   WARPRED_TEST_QUICK=1 shrinks the sizes and the number of groupings. */
#include <float.h>
#include <warpred/vector_rsum.cuh>
#include <warpred/op_rsum.cuh>
#include <warpred/device_reduce.cuh>
#include "wt.h"
#include "wt_plans.h"
#include "wt_exact.h"

/* a warpred host call that sets `why` */
#define WT_VR(call)                                                                                      \
    do {                                                                                                 \
        const char *why_ = "no message";                                                                 \
        const char **why = &why_;                                                                        \
        cudaError_t err_ = (call);                                                                       \
        if (err_ != cudaSuccess)                                                                         \
            fail_msg("%s:%d: %s -> %s (%s)", __FILE__, __LINE__, #call, cudaGetErrorString(err_), why_); \
    } while (0)

/* ------------------------------------------------------------------------------------------
   the host model of the documented rule (vector_rsum.cuh, SCALE and SEMANTICS)
   ------------------------------------------------------------------------------------------ */

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The exponent byte, from frexp rather than from the bits. */
static int model_exponent(float x)
{
    if (isnan(x) || isinf(x)) return 255;
    if (x == 0 || fabsf(x) < FLT_MIN) return 0;
    int e;
    frexpf(x, &e); /* |x| in [2^(e-1), 2^e) */
    return e - 1 + 127;
}

static int model_grid(int e)
{
    const int g = (e > 1 ? e : 1) - 173;
    return g > -149 ? g : -149;
}

/* q(x): |x| / 2^g truncated, with the last bit set when anything was cut; the sign of x. */
static long long model_fixed(float x, int g, int *cut)
{
    const long double r = ldexpl(fabsl((long double)x), -g); /* exact: 24 bits, exponent in range */
    const long double t = floorl(r);
    long long q = (long long)t;
    if (t != r) q |= 1, *cut = 1;
    return signbit(x) ? -q : q;
}

typedef struct model_result {
    uint32_t bits;
    int g;
    int any_cut; /* some value lost bits (the result need not be correctly rounded) */
} model_result;

static model_result model_sum(const float *x, int K)
{
    model_result r = {0, 0, 0};
    int e = 0, nan = 0, pinf = 0, ninf = 0;
    for (int j = 0; j < K; j++) {
        const int ej = model_exponent(x[j]);
        e = ej > e ? ej : e;
        nan |= isnan(x[j]) != 0;
        pinf |= isinf(x[j]) && x[j] > 0;
        ninf |= isinf(x[j]) && x[j] < 0;
    }
    if (e == 255) {
        r.bits = nan || (pinf && ninf) ? 0x7fffffffu : pinf ? 0x7f800000u : 0xff800000u;
        return r;
    }
    r.g = model_grid(e);
    __int128 s = 0;
    for (int j = 0; j < K; j++) s += model_fixed(x[j], r.g, &r.any_cut);
    if (s >= ((__int128)1 << 63) || s < -((__int128)1 << 63)) fail_msg("model: the integer sum left int64 (K %d)", K);
    if (s == 0) return r;                                            /* +0 */
    r.bits = bits_of((float)ldexpl((long double)(long long)s, r.g)); /* exact, then one rounding to float */
    return r;
}

/* ------------------------------------------------------------------------------------------
   one element against the model and the exact sum
   ------------------------------------------------------------------------------------------ */

typedef struct stats {
    double worst_ulps;       /* largest |result - exact| / ulp(result) */
    double worst_float_ulps; /* the same for a float sum in index order */
    double worst_bound_use;  /* largest error / documented bound */
    long long elements, exact_ones;
} stats;

static void check_element(const float *x, int K, uint32_t got, const char *what, size_t i, stats *st)
{
    const model_result m = model_sum(x, K);
    if (got != m.bits) {
        char list[400] = "";
        for (int j = 0; j < K && j < 8; j++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%a", j ? ", " : "", (double)x[j]);
        fail_msg("%s, element %zu (K %d: %s%s): got %a (bits %08x), the rule gives %a (bits %08x)", what, i, K, list,
                 K > 8 ? ", ..." : "", (double)float_of(got), got, (double)float_of(m.bits), m.bits);
    }
    wt_exact a;
    wt_exact_clear(&a);
    double abs_sum = 0;
    float plain = 0;
    for (int j = 0; j < K; j++) {
        wt_exact_add(&a, x[j]);
        abs_sum += fabs((double)x[j]);
        plain += x[j];
    }
    const float gf = float_of(got);
    /* the non-finite rules, zeros, overflow: wt_exact's check with the bound's term K * M * 2^-46 */
    const wt_exact_verdict v = wt_exact__check(&a, gf, got, wt_exact_float_bits(&a), wt_exact_float(&a), 4,
                                               wt_exact_float_format, 46, WT_EXACT_BOUND);
    if (!v.ok) fail_msg("%s, element %zu (K %d): %s", what, i, K, v.why);
    st->elements++;
    if (!isfinite(gf) || a.nan || a.pos_inf || a.neg_inf) return;
    /* the tighter finite bound of the manual: 1/2 ulp(result) + K * M * 2^-46 */
    const double err = fabs(wt_exact_minus(&a, gf)), ulp = wt_exact_ulp(gf, wt_exact_float_format);
    const double bound = 0.5 * ulp + K * a.max_abs * 0x1p-46;
    if (err > bound * (1 + 0x1p-40))
        fail_msg("%s, element %zu (K %d, M %a): error %.4g above the bound %.4g", what, i, K, a.max_abs, err, bound);
    if (bound > 0 && err / bound > st->worst_bound_use) st->worst_bound_use = err / bound;
    if (err / ulp > st->worst_ulps) st->worst_ulps = err / ulp;
    /* exact cases: K <= 2, or nothing cut */
    if ((K <= 2 || !m.any_cut) && got != wt_exact_float_bits(&a))
        fail_msg("%s, element %zu (K %d%s): got %a, the correctly rounded sum is %a", what, i, K,
                 K <= 2 ? "" : ", every value on the grid", (double)gf, (double)wt_exact_float(&a));
    st->exact_ones += got == wt_exact_float_bits(&a);
    if (isfinite(plain)) {
        const double perr = fabs(wt_exact_minus(&a, plain)) / wt_exact_ulp(plain, wt_exact_float_format);
        if (perr > st->worst_float_ulps) st->worst_float_ulps = perr;
    }
    /* the claim against a float sum's bound, where that bound is meaningful (normal range) */
    if (K >= 3 && a.max_abs >= 0x1p-100 && (gf == 0 || fabsf(gf) >= FLT_MIN) && bound > (K - 1) * 0x1p-24 * abs_sum)
        fail_msg("%s, element %zu (K %d): the bound %.4g exceeds a float sum's (K - 1) * 2^-24 * sum|x| = %.4g", what,
                 i, K, bound, (K - 1) * 0x1p-24 * abs_sum);
}

/* ------------------------------------------------------------------------------------------
   host tests
   ------------------------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    int K;
    float x[4];
    float want; /* NAN: the canonical NaN */
} hand_case;

static void test_model_hand_cases(void **state)
{
    (void)state;
    const hand_case cases[] = {
        {"{1e8, 1, -1e8}", 3, {1e8f, 1, -1e8f}, 1},
        {"{1, 2^-24, 2^-24} (a float sum in order: 1)", 3, {1, 0x1p-24f, 0x1p-24f}, 0x1.000002p0f},
        {"{1, 2^-24} (tie: to even)", 2, {1, 0x1p-24f}, 1},
        {"{1 + 2^-23, 2^-24} (tie: up)", 2, {0x1.000002p0f, 0x1p-24f}, 0x1.000004p0f},
        {"{1, 2^-60} (cut, K = 2: still correctly rounded)", 2, {1, 0x1p-60f}, 1},
        {"{1, 2^-24 + 2^-60 (not a float: 2^-24 + 2^-47)}", 2, {1, 0x1.000002p-24f}, 0x1.000002p0f},
        {"{-0, -0}", 2, {-0.0f, -0.0f}, 0},
        {"{+0, -0}", 2, {0.0f, -0.0f}, 0},
        {"{x, -x}", 2, {3.25f, -3.25f}, 0},
        {"{NaN, 1}", 2, {NAN, 1}, NAN},
        {"{+inf, 1, FLT_MAX}", 3, {INFINITY, 1, FLT_MAX}, INFINITY},
        {"{-inf, -inf}", 2, {-INFINITY, -INFINITY}, -INFINITY},
        {"{+inf, -inf}", 2, {INFINITY, -INFINITY}, NAN},
        {"{FLT_MAX, FLT_MAX}", 2, {FLT_MAX, FLT_MAX}, INFINITY},
        {"{FLT_MAX, FLT_MAX, -FLT_MAX}", 3, {FLT_MAX, FLT_MAX, -FLT_MAX}, FLT_MAX},
        {"{-FLT_MAX, -FLT_MAX}", 2, {-FLT_MAX, -FLT_MAX}, -INFINITY},
        {"{2^-149, 2^-149}", 2, {0x1p-149f, 0x1p-149f}, 0x1p-148f},
        {"{largest subnormal, 2^-149}", 2, {0x1.fffffcp-127f, 0x1p-149f}, 0x1p-126f},
        {"{2^-149, -2^-149}", 2, {0x1p-149f, -0x1p-149f}, 0},
        {"{2^-80, 3 * 2^-149, -2^-80} (3 * 2^-149 lies below the step 2^-126: one odd step)",
         3,
         {0x1p-80f, 0x1.8p-148f, -0x1p-80f},
         0x1p-126f},
        {"{2^-103, 3 * 2^-149, -2^-103} (step clamped at 2^-149: exact)",
         3,
         {0x1p-103f, 0x1.8p-148f, -0x1p-103f},
         0x1.8p-148f},
    };
    stats st;
    memset(&st, 0, sizeof st);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const model_result m = model_sum(cases[c].x, cases[c].K);
        const uint32_t want = isnan(cases[c].want) ? 0x7fffffffu : bits_of(cases[c].want);
        if (m.bits != want)
            fail_msg("model, %s: %a (bits %08x), expected %a", cases[c].name, (double)float_of(m.bits), m.bits,
                     (double)cases[c].want);
        check_element(cases[c].x, cases[c].K, m.bits, cases[c].name, 0, &st);
    }
    /* 2^16 values of FLT_MAX: the integers stay inside int64, the total overflows to +inf */
    enum { KMAX = 1 << 16 };
    float *many = (float *)wt_host_alloc(KMAX * sizeof(float));
    for (int j = 0; j < KMAX; j++) many[j] = FLT_MAX;
    if (model_sum(many, KMAX).bits != 0x7f800000u) fail_msg("model: 2^16 x FLT_MAX is not +inf");
    for (int j = 0; j < KMAX; j++) many[j] = j % 2 ? -FLT_MAX : FLT_MAX;
    many[0] = 1.5f; /* the pairs cancel but one -FLT_MAX; 1.5 lies far below the grid (2^81) and cannot move it */
    if (model_sum(many, KMAX).bits != bits_of(-FLT_MAX)) fail_msg("model: alternating FLT_MAX does not cancel");
    wt_host_free(many);
}

/* Random values whose exponents span `spread` binades below 2^top, some negative, some zero. */
static float random_value(int top, int spread)
{
    const int e = top - (spread > 0 ? wt_rand_below(spread + 1) : 0);
    const float m = (float)(wt_rand32() >> 8) * 0x1p-24f; /* [0, 1), 24 bits */
    float x = ldexpf(m, e);
    if (wt_rand32() & 1) x = -x;
    return x;
}

static void test_model_against_exact(void **state)
{
    (void)state;
    stats st;
    memset(&st, 0, sizeof st);
    float x[64];
    for (int trial = 0; trial < 20000; trial++) {
        const int K = 1 + wt_rand_below(64), spread = wt_rand_below(80), top = wt_rand_below(200) - 100;
        const int cancel = trial % 2; /* odd trials: pairs that nearly cancel, so that the total is small */
        for (int j = 0; j < K; j++)
            x[j] = cancel && j % 2 ? -x[j - 1] + random_value(top - 20 - wt_rand_below(40), 30)
                                   : random_value(top, spread);
        check_element(x, K, model_sum(x, K).bits, "model on random values", (size_t)trial, &st);
    }
    printf("[ INFO     ] model vs exact, 20000 random sets: largest error %.3g ulp (%.3g of the bound), a float "
           "sum in order %.3g ulp; %lld of %lld correctly rounded\n",
           st.worst_ulps, st.worst_bound_use, st.worst_float_ulps, st.exact_ones, st.elements);
}

/* Every argument error is refused before any CUDA call (so this runs without a GPU too). */
static void test_argument_errors(void **state)
{
    (void)state;
    float *fake = (float *)(uintptr_t)4096; /* never dereferenced: every call below is refused */
    float *odd = (float *)(uintptr_t)4097;
    const float *one[1] = {fake};
    const float *bad[2] = {fake, NULL};
    const float *misaligned[1] = {odd};
    unsigned char *emax = (unsigned char *)(uintptr_t)8192;
    long long *sum = (long long *)(uintptr_t)16384;
    float *out = (float *)(uintptr_t)32768;
    const char *why = NULL;
    struct {
        cudaError_t err;
        const char *what;
    } refused[] = {
        {warpred_vector_rsum_exponents(one, -1, 10, emax, 0, &why), "k < 0"},
        {warpred_vector_rsum_exponents(one, (int)warpred_vector_rsum_max_count + 1, 10, emax, 0, &why), "k > max"},
        {warpred_vector_rsum_exponents((const float *const *)NULL, 1, 10, emax, 0, &why), "v NULL"},
        {warpred_vector_rsum_exponents(bad, 2, 10, emax, 0, &why), "a vector NULL"},
        {warpred_vector_rsum_exponents(misaligned, 1, 10, emax, 0, &why), "a vector misaligned"},
        {warpred_vector_rsum_exponents(one, 1, 10, (unsigned char *)NULL, 0, &why), "emax NULL"},
        {warpred_vector_rsum_fixed(one, 1, 10, (const unsigned char *)NULL, sum, 0, &why), "fixed: emax NULL"},
        {warpred_vector_rsum_fixed(one, 1, 10, emax, (long long *)NULL, 0, &why), "fixed: sum NULL"},
        {warpred_vector_rsum_fixed(bad, 2, 10, emax, sum, 0, &why), "fixed: a vector NULL"},
        {warpred_vector_rsum_fixed(one, -3, 10, emax, sum, 0, &why), "fixed: k < 0"},
        {warpred_vector_rsum_finish((const long long *)NULL, emax, 10, out, 0, &why), "finish: sum NULL"},
        {warpred_vector_rsum_finish(sum, (const unsigned char *)NULL, 10, out, 0, &why), "finish: emax NULL"},
        {warpred_vector_rsum_finish(sum, emax, 10, (float *)NULL, 0, &why), "finish: out NULL"},
        {warpred_vector_rsum_finish(sum, emax, 10, (float *)sum, 0, &why), "finish: out aliases sum"},
    };
    for (size_t c = 0; c < sizeof refused / sizeof refused[0]; c++)
        if (refused[c].err != cudaErrorInvalidValue) fail_msg("%s: not refused", refused[c].what);
    /* the message names the call family */
    why = NULL;
    warpred_vector_rsum_exponents(one, -1, 10, emax, 0, &why);
    if (!why || !strstr(why, "warpred_vector_rsum")) fail_msg("no message for k < 0");
    /* m == 0: nothing to do, nothing launched, even with NULL outputs */
    if (warpred_vector_rsum_exponents(one, 1, 0, (unsigned char *)NULL, 0, &why) != cudaSuccess ||
        warpred_vector_rsum_fixed(one, 1, 0, (const unsigned char *)NULL, (long long *)NULL, 0, &why) != cudaSuccess ||
        warpred_vector_rsum_finish((const long long *)NULL, (const unsigned char *)NULL, 0, (float *)NULL, 0, &why) !=
            cudaSuccess)
        fail_msg("m == 0 was refused: %s", why);
}

/* ------------------------------------------------------------------------------------------
   data
   ------------------------------------------------------------------------------------------ */

enum {
    D_UNIFORM,
    D_WIDE,       /* exponents over 120 binades */
    D_FULL_RANGE, /* every float exponent, subnormals included */
    D_SUBNORMAL,
    D_ZEROS, /* +0 and -0 */
    D_NEG_ZEROS,
    D_CANCEL, /* vector 2j + 1 = -vector 2j, plus a small one */
    D_NEAR_MAX,
    D_INTEGERS,
    D_SPECIAL, /* NaN, +inf, -inf sprinkled among finite values */
    D_COUNT
};
static const char *const d_name[D_COUNT] = {"uniform", "wide range", "full range",   "subnormals", "+-0",
                                            "only -0", "cancelling", "near FLT_MAX", "integers",   "NaN/inf sprinkled"};

static float data_value(int kind, int j, size_t i, const float *prev)
{
    switch (kind) {
    case D_UNIFORM: return (float)(2 * wt_rand_unit() - 1);
    case D_WIDE: return random_value(60, 120);
    case D_FULL_RANGE: return wt_rand_below(16) == 0 ? 0.0f : random_value(128, 128 + 149);
    case D_SUBNORMAL: return ldexpf((float)(int)(wt_rand32() % (1u << 23)) * (wt_rand32() & 1 ? 1 : -1), -149);
    case D_ZEROS: return wt_rand32() & 1 ? 0.0f : -0.0f;
    case D_NEG_ZEROS: return -0.0f;
    case D_CANCEL: return j % 2 ? -prev[i] : random_value(20, 40);
    case D_NEAR_MAX: return (wt_rand32() & 3 ? 1 : -1) * ldexpf(1.0f + (float)(wt_rand32() >> 9) * 0x1p-23f, 127);
    case D_INTEGERS: return (float)((int)(wt_rand32() % 2001) - 1000);
    default: {
        const int r = wt_rand_below(24);
        return r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : random_value(10, 30);
    }
    }
}

template <typename T> static T to_input(float x);
template <> float to_input<float>(float x) { return x; }
template <> __half to_input<__half>(float x) { return __float2half(x); }
template <> __nv_bfloat16 to_input<__nv_bfloat16>(float x) { return __float2bfloat16(x); }
static float as_float(float x) { return x; }
static float as_float(__half x) { return __half2float(x); }
static float as_float(__nv_bfloat16 x) { return __bfloat162float(x); }
static const char *name_of(float) { return "float"; }
static const char *name_of(__half) { return "__half"; }
static const char *name_of(__nv_bfloat16) { return "__nv_bfloat16"; }
template <typename T> static const char *tname(void) { return name_of(T()); }

/* K vectors of m values on the host (vector j at j * ld) and their float values. */
template <typename T> struct vectors {
    int K;
    size_t m, ld;
    T *h;     /* K * ld */
    float *f; /* the same values as floats, K * ld */
    T *d;     /* device copy, with one element of room in front (the shifted layout) */
};

template <typename T> static vectors<T> make_vectors(int kind, int K, size_t m)
{
    vectors<T> v;
    v.K = K;
    v.m = m;
    v.ld = (m + 1 + 7) / 8 * 8; /* vector j starts 16-byte aligned (float) at j * ld */
    v.h = (T *)wt_host_alloc(K * v.ld * sizeof(T) + sizeof(T));
    v.f = (float *)wt_host_alloc(K * v.ld * sizeof(float) + sizeof(float));
    for (int j = 0; j < K; j++)
        for (size_t i = 0; i < v.ld; i++) {
            const float x = i < m ? data_value(kind, j, i, j ? v.f + (j - 1) * v.ld : NULL) : 12345.0f;
            v.h[j * v.ld + i] = to_input<T>(x);
            v.f[j * v.ld + i] = as_float(v.h[j * v.ld + i]); /* what the GPU sees */
        }
    /* device: two copies, aligned at d and shifted by one element at d + K * ld + 1 */
    v.d = (T *)wt_dev_alloc((2 * K * v.ld + 8) * sizeof(T));
    wt_to_dev(v.d, v.h, K * v.ld * sizeof(T));
    wt_to_dev(v.d + K * v.ld + 1, v.h, K * v.ld * sizeof(T));
    return v;
}

template <typename T> static void free_vectors(vectors<T> *v)
{
    wt_dev_free(v->d);
    wt_host_free(v->f);
    wt_host_free(v->h);
}

template <typename T> static const T *vector_ptr(const vectors<T> *v, int j, int shifted)
{
    return v->d + (shifted ? v->K * v->ld + 1 : 0) + j * v->ld;
}

/* ------------------------------------------------------------------------------------------
   the exchange, simulated: element-wise max of bytes and sum of int64, group by group in a given
   order (what ncclAllReduce with ncclMax / ncclSum computes exactly, in whatever order it adds)
   ------------------------------------------------------------------------------------------ */

__global__ void sim_max(unsigned char *dst, const unsigned char *src, size_t m)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < m && src[i] > dst[i]) dst[i] = src[i];
}

__global__ void sim_add(long long *dst, const long long *src, size_t m)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < m) dst[i] += src[i];
}

static unsigned blocks_for(size_t m) { return (unsigned)((m + 255) / 256 > 0 ? (m + 255) / 256 : 1); }

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        const int j = wt_rand_below(i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Buffers of P simulated GPUs. */
typedef struct sim_gpus {
    int P;
    size_t m, stride;        /* stride: elements between the GPUs' buffers (16-byte multiple) */
    unsigned char *emax;     /* P * stride: each GPU's exponent bytes, after the exchange its copy */
    long long *sum;          /* P * stride */
    unsigned char *emax_all; /* the exchange's result */
    long long *sum_all;
    float *out;
} sim_gpus;

static sim_gpus sim_create(int P, size_t m)
{
    sim_gpus s;
    s.P = P;
    s.m = m;
    s.stride = (m + 15) / 16 * 16 + 16;
    s.emax = (unsigned char *)wt_dev_alloc(P * s.stride);
    s.sum = (long long *)wt_dev_alloc(P * s.stride * sizeof(long long));
    s.emax_all = (unsigned char *)wt_dev_alloc(s.stride);
    s.sum_all = (long long *)wt_dev_alloc(s.stride * sizeof(long long));
    s.out = (float *)wt_dev_alloc(s.stride * sizeof(float));
    return s;
}

static void sim_free(sim_gpus *s)
{
    wt_dev_free(s->out);
    wt_dev_free(s->sum_all);
    wt_dev_free(s->emax_all);
    wt_dev_free(s->sum);
    wt_dev_free(s->emax);
}

/* The whole reproducible all-reduce with vector j on simulated GPU group_of[j] (0 <= . < P), in
   the order `order` within each GPU; the exchanges in a random order. The result, as bits, into
   got[0 .. m). */
template <typename T>
static void run_grouped(const vectors<T> *v, const int *group_of, const int *order, int P, int shifted, sim_gpus *s,
                        uint32_t *got)
{
    const size_t m = v->m;
    const T **ptrs = (const T **)wt_host_alloc((v->K + 1) * sizeof(T *));
    int gpu_order[16];
    for (int p = 0; p < P; p++) gpu_order[p] = p;
    wt_poison(s->emax, P * s->stride);
    wt_poison(s->sum, P * s->stride * sizeof(long long));
    wt_poison(s->out, s->stride * sizeof(float));
    for (int pass = 0; pass < 2; pass++) {
        for (int p = 0; p < P; p++) {
            int k = 0;
            for (int c = 0; c < v->K; c++)
                if (group_of[order[c]] == p) ptrs[k++] = vector_ptr(v, order[c], shifted);
            if (pass == 0) WT_VR(warpred_vector_rsum_exponents(ptrs, k, m, s->emax + p * s->stride, 0, why));
            else
                WT_VR(warpred_vector_rsum_fixed(ptrs, k, m, s->emax + p * s->stride, s->sum + p * s->stride, 0, why));
        }
        shuffle(gpu_order, P);
        if (pass == 0) { /* max over the GPUs, then every GPU gets the result */
            WT_CUDA(cudaMemcpy(s->emax_all, s->emax + gpu_order[0] * s->stride, m ? m : 1, cudaMemcpyDeviceToDevice));
            for (int p = 1; p < P && m; p++) {
                sim_max<<<blocks_for(m), 256>>>(s->emax_all, s->emax + gpu_order[p] * s->stride, m);
                WT_CUDA(cudaGetLastError());
            }
            for (int p = 0; p < P; p++)
                WT_CUDA(cudaMemcpy(s->emax + p * s->stride, s->emax_all, m ? m : 1, cudaMemcpyDeviceToDevice));
        } else {
            WT_CUDA(cudaMemcpy(s->sum_all, s->sum + gpu_order[0] * s->stride, (m ? m : 1) * sizeof(long long),
                               cudaMemcpyDeviceToDevice));
            for (int p = 1; p < P && m; p++) {
                sim_add<<<blocks_for(m), 256>>>(s->sum_all, s->sum + gpu_order[p] * s->stride, m);
                WT_CUDA(cudaGetLastError());
            }
        }
    }
    /* any GPU finishes on its copy; the outputs shifted too in the shifted layout (one-element path) */
    float *out = s->out + (shifted ? 1 : 0);
    WT_VR(warpred_vector_rsum_finish(s->sum_all, s->emax_all, m, out, 0, why));
    WT_LAUNCHED();
    if (m) wt_to_host(got, out, m * sizeof(float));
    wt_host_free(ptrs);
}

/* ------------------------------------------------------------------------------------------
   GPU tests
   ------------------------------------------------------------------------------------------ */

/* The usage snippet of vector_rsum.cuh (scripts/snippets.py copies it from the manual). */
#include "snippets/vector_rsum.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float host[3][2] = {{1e8f, 1}, {1, 0x1p-24f}, {-1e8f, 0x1p-24f}};
    float *d = (float *)wt_dev_copy(host, sizeof host);
    unsigned char *emax = (unsigned char *)wt_dev_alloc(2);
    long long *sum = (long long *)wt_dev_alloc(2 * sizeof(long long));
    float *out = (float *)wt_dev_alloc(2 * sizeof(float));
    const float *v[3] = {d, d + 2, d + 4};
    WT_CUDA(sum_vectors(v, 3, 2, emax, sum, out, 0));
    WT_LAUNCHED();
    float got[2];
    wt_to_host(got, out, sizeof got);
    if (got[0] != 1.0f || got[1] != 0x1.000002p0f)
        fail_msg("snippet: {%.9g, %.9g}, expected {1, 1.00000012}", (double)got[0], (double)got[1]);
    float plain[2] = {0, 0};
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 2; i++) plain[i] += host[j][i];
    if (plain[0] != 0.0f || plain[1] != 1.0f) fail_msg("the manual's float sum in order is not {0, 1}");
}

/* All K vectors on one GPU: the model's bits for every element, within the bound. */
template <typename T> static void run_values(int kind, int K, size_t m, stats *st)
{
    vectors<T> v = make_vectors<T>(kind, K, m);
    sim_gpus s = sim_create(1, m);
    int *group_of = (int *)wt_host_alloc_zeroed(K * sizeof(int)), *order = (int *)wt_host_alloc(K * sizeof(int));
    for (int j = 0; j < K; j++) order[j] = j;
    uint32_t *got = (uint32_t *)wt_host_alloc((m + 1) * sizeof(uint32_t));
    uint32_t *again = (uint32_t *)wt_host_alloc((m + 1) * sizeof(uint32_t));
    float *col = (float *)wt_host_alloc(K * sizeof(float));
    char what[160];
    for (int shifted = 0; shifted < 2; shifted++) {
        run_grouped(&v, group_of, order, 1, shifted, &s, shifted ? again : got);
        snprintf(what, sizeof what, "%s %s, K %d, m %zu, %s", tname<T>(), d_name[kind], K, m,
                 shifted ? "shifted (one element a thread)" : "aligned (4 elements a thread)");
        if (shifted && m && memcmp(got, again, m * sizeof(uint32_t)) != 0) fail_msg("%s: differs from aligned", what);
    }
    for (size_t i = 0; i < m; i++) {
        for (int j = 0; j < K; j++) col[j] = v.f[j * v.ld + i];
        check_element(col, K, got[i], what, i, st);
    }
    wt_host_free(col);
    wt_host_free(again);
    wt_host_free(got);
    wt_host_free(order);
    wt_host_free(group_of);
    sim_free(&s);
    free_vectors(&v);
}

template <typename T> static void values_all_kinds(void)
{
    stats st;
    memset(&st, 0, sizeof st);
    /* under the sanitizer: fewer shapes, and for the 16-bit inputs the data sets whose conversion differs */
    const int quick = wt_quick();
    const int Ks[] = {1, 2, 3, 16, 40}, Ks_quick[] = {1, 3, 40};
    const size_t ms[] = {0, 1, 2, 3, 5, 8, 1029}, ms_quick[] = {0, 3, 5, 1029};
    const int nK = quick ? 3 : 5, nm = quick ? 4 : 7;
    for (int kind = 0; kind < D_COUNT; kind++) {
        if (quick && sizeof(T) == 2 && kind != D_WIDE && kind != D_SUBNORMAL && kind != D_SPECIAL) continue;
        for (int a = 0; a < nK; a++)
            run_values<T>(kind, quick ? Ks_quick[a] : Ks[a], kind == D_SPECIAL ? 1029 : 5, &st);
        for (int b = 0; b < nm; b++) run_values<T>(kind, 3, quick ? ms_quick[b] : ms[b], &st);
        run_values<T>(kind, 16, quick ? 1031 : 10007, &st);
    }
    printf("[ INFO     ] %s: %lld elements with the model's bits; largest error %.3g ulp (%.3g of the bound); a float "
           "sum in order: %.3g ulp; %lld correctly rounded\n",
           tname<T>(), st.elements, st.worst_ulps, st.worst_bound_use, st.worst_float_ulps, st.exact_ones);
}

static void test_values_float(void **state)
{
    WT_NEED_GPU(state);
    values_all_kinds<float>();
}
static void test_values_half(void **state)
{
    WT_NEED_GPU(state);
    values_all_kinds<__half>();
}
static void test_values_bfloat16(void **state)
{
    WT_NEED_GPU(state);
    values_all_kinds<__nv_bfloat16>();
}

/* The central property: every grouping over P simulated GPUs gives the bits of one GPU holding all. */
template <typename T> static void run_groupings(int kind, int K, size_t m, int exhaustive_up_to, int random_per_p)
{
    vectors<T> v = make_vectors<T>(kind, K, m);
    sim_gpus s = sim_create(16, m);
    int *group_of = (int *)wt_host_alloc_zeroed(K * sizeof(int)), *order = (int *)wt_host_alloc(K * sizeof(int));
    uint32_t *whole = (uint32_t *)wt_host_alloc((m + 1) * sizeof(uint32_t));
    uint32_t *got = (uint32_t *)wt_host_alloc((m + 1) * sizeof(uint32_t));
    for (int j = 0; j < K; j++) order[j] = j;
    s.P = 1;
    run_grouped(&v, group_of, order, 1, 0, &s, whole);
    int runs = 0;
    for (int P = 1; P <= 16; P++) {
        /* every assignment of the K vectors to P GPUs (K small) */
        if (P <= exhaustive_up_to) {
            long long total = 1;
            for (int j = 0; j < K; j++) total *= P;
            for (long long a = 0; a < total; a++) {
                long long r = a;
                for (int j = 0; j < K; j++) group_of[j] = (int)(r % P), r /= P;
                shuffle(order, K);
                run_grouped(&v, group_of, order, P, (int)(a & 1), &s, got);
                runs++;
                if (m && memcmp(got, whole, m * sizeof(uint32_t)) != 0)
                    fail_msg("%s %s, K %d, m %zu: assignment %lld to %d GPUs differs from one GPU", tname<T>(),
                             d_name[kind], K, m, a, P);
            }
        }
        /* random groupings: GPUs with many vectors, with none, vectors in any order */
        for (int rep = 0; rep < random_per_p; rep++) {
            const int crowded = wt_rand_below(P); /* one GPU gets a larger share */
            for (int j = 0; j < K; j++) group_of[j] = wt_rand_below(3) == 0 ? crowded : wt_rand_below(P);
            shuffle(order, K);
            run_grouped(&v, group_of, order, P, rep & 1, &s, got);
            runs++;
            for (size_t i = 0; i < m; i++)
                if (got[i] != whole[i])
                    fail_msg("%s %s, K %d, m %zu, %d GPUs (random grouping %d): element %zu is %a, one GPU gave %a",
                             tname<T>(), d_name[kind], K, m, P, rep, i, (double)float_of(got[i]),
                             (double)float_of(whole[i]));
        }
    }
    printf("[ INFO     ] %-14s %-18s K %2d m %-6zu: %d groupings over 1..16 GPUs, the same bits as one GPU\n",
           tname<T>(), d_name[kind], K, m, runs);
    wt_host_free(got);
    wt_host_free(whole);
    wt_host_free(order);
    wt_host_free(group_of);
    sim_free(&s);
    free_vectors(&v);
}

static void test_groupings(void **state)
{
    WT_NEED_GPU(state);
    const int quick = wt_quick();
    const size_t m = quick ? 1031 : 10007;
    /* K = 4: every assignment to up to 4 GPUs (3 under the sanitizer), on hard data */
    run_groupings<float>(D_SPECIAL, 4, 37, quick ? 3 : 4, 0);
    run_groupings<float>(D_FULL_RANGE, 4, 37, quick ? 2 : 4, 0);
    const int kinds[] = {D_WIDE, D_FULL_RANGE, D_CANCEL, D_SPECIAL, D_NEAR_MAX};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (quick && k > 1) break;
        run_groupings<float>(kinds[k], 16, m, 0, quick ? 1 : 2);
    }
    run_groupings<float>(D_WIDE, 40, quick ? 101 : 1029, 0, 1); /* GPUs with more than one launch's 16 vectors */
    run_groupings<__nv_bfloat16>(D_WIDE, 16, m, 0, 1);
    if (!quick) run_groupings<__half>(D_SPECIAL, 16, m, 0, 1);
}

/* ---- the scalar path: shards reduced to warpred_rsum accumulators, merged in any order ---- */

template <typename F> __global__ void fold_rsum(const warpred_rsum<F> *acc, const int *order, int P, F *out)
{
    warpred_rsum<F> a = warpred_op_rsum::identity<warpred_rsum<F>>();
    for (int r = 0; r < P; r++) a = warpred_op_rsum()(a, acc[order[r]]);
    *out = warpred_rsum_value(a);
}

template <typename F> static uint64_t bits64(F x)
{
    uint64_t u = 0;
    memcpy(&u, &x, sizeof x);
    return u;
}

template <typename F> static void run_scalar_shards(warpred_device_plan *plan, int kind, size_t n)
{
    F *x = (F *)wt_host_alloc(n * sizeof(F));
    float *prev = (float *)wt_host_alloc_zeroed(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        /* the vector generator's values, vector 0 and 1 interleaved (so that cancelling pairs occur) */
        const float f = data_value(kind, (int)(i & 1), i, prev);
        prev[i] = f;
        if (i + 1 < n) prev[i + 1] = f;
        x[i] = (F)f;
        if (sizeof(F) == 8 && isfinite(f) && kind != D_NEAR_MAX) x[i] = (F)f * (1 + (F)wt_rand_unit() * 0x1p-30);
    }
    F *d_x = (F *)wt_dev_copy(x, n * sizeof(F));
    F *d_out = (F *)wt_dev_alloc(2 * sizeof(F));
    warpred_rsum<F> *d_acc = (warpred_rsum<F> *)wt_dev_alloc(16 * sizeof(warpred_rsum<F>));
    int *d_order = (int *)wt_dev_alloc(16 * sizeof(int));
    WT_VR(warpred_device_reduce(plan, d_x, n, d_out, warpred_op_rsum(), 0, why));
    WT_LAUNCHED();
    F whole;
    wt_to_host(&whole, d_out, sizeof whole);
    const int tries = wt_quick() ? 1 : 3;
    for (int P = 1; P <= 16; P++)
        for (int t = 0; t < tries; t++) {
            size_t cut[17];
            cut[0] = 0;
            cut[P] = n;
            for (int p = 1; p < P; p++) cut[p] = wt_rand_below(4) == 0 ? cut[p - 1] : (size_t)wt_rand64() % (n + 1);
            for (int p = 1; p < P; p++) /* sorted, so shards may be empty but never negative */
                for (int q = p; q > 1 && cut[q] < cut[q - 1]; q--) {
                    const size_t tmp = cut[q];
                    cut[q] = cut[q - 1];
                    cut[q - 1] = tmp;
                }
            wt_poison(d_acc, 16 * sizeof(warpred_rsum<F>));
            wt_poison(d_out + 1, sizeof(F));
            for (int p = 0; p < P; p++)
                WT_VR(warpred_device_reduce(plan, d_x + cut[p], cut[p + 1] - cut[p], d_acc + p, warpred_op_rsum(), 0,
                                            why));
            int order[16];
            for (int p = 0; p < P; p++) order[p] = p;
            shuffle(order, P);
            wt_to_dev(d_order, order, sizeof order);
            fold_rsum<F><<<1, 1>>>(d_acc, d_order, P, d_out + 1);
            WT_LAUNCHED();
            F got;
            wt_to_host(&got, d_out + 1, sizeof got);
            if (bits64(got) != bits64(whole))
                fail_msg("%s %s, n %zu: %d shards (try %d) merged give %.17g, the whole array %.17g",
                         sizeof(F) == 4 ? "float" : "double", d_name[kind], n, P, t, (double)got, (double)whole);
        }
    printf("[ INFO     ] scalar %-6s %-18s n %zu: 1..16 shards at random boundaries, merged in random orders: the "
           "same bits as the whole array (%.9g)\n",
           sizeof(F) == 4 ? "float" : "double", d_name[kind], n, (double)whole);
    wt_dev_free(d_order);
    wt_dev_free(d_acc);
    wt_dev_free(d_out);
    wt_dev_free(d_x);
    wt_host_free(prev);
    wt_host_free(x);
}

static void test_scalar_shards(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t n = wt_quick() ? 10007 : 1000003;
    const int kinds[] = {D_UNIFORM, D_WIDE, D_FULL_RANGE, D_CANCEL, D_NEAR_MAX, D_SPECIAL, D_NEG_ZEROS};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        run_scalar_shards<float>(plan, kinds[k], n);
        run_scalar_shards<double>(plan, kinds[k], n);
    }
    run_scalar_shards<float>(plan, D_WIDE, 5); /* fewer elements than shards */
    wt_device_plan_free(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_model_hand_cases), WT_TEST(test_model_against_exact), WT_TEST(test_argument_errors),
        WT_TEST(test_doc_snippet),      WT_TEST(test_values_float),        WT_TEST(test_values_half),
        WT_TEST(test_values_bfloat16),  WT_TEST(test_groupings),           WT_TEST(test_scalar_shards),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
