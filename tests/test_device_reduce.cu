/* warpred_device_reduce (warpred/device_reduce.cuh) against exact host references: sizes
   around every boundary of the load pattern (n = 0..5, 31, 33, 1000, 4096, 65537, 2^20 + 7) at
   several alignments of the start, integer sums exact, float sums within an argued bound (and
   exact when accumulated in double), min/max/_num with NaN and +-0 at random positions, 1-, 2-
   and 8-byte inputs, transforms, identities for n = 0, bitwise determinism, 50 calls on one plan
   with no reset, CUDA graph capture and replay, the argument errors and their messages (no GPU
   needed), and n above 2^31. Back-to-back calls through one plan whose grids go from one
   block to a full wave and back and whose types change (partials of larger grids and other
   types stay in the scratch), and graphs replayed between direct calls. */
#include <warpred/device_reduce.cuh>
#if __has_include(<warpred/op_argminmax.cuh>)
#    include <warpred/op_argminmax.cuh>
#    define WT_HAVE_ARGMINMAX 1
#endif
#if __has_include(<warpred/op_welford.cuh>)
#    include <warpred/op_welford.cuh>
#    define WT_HAVE_WELFORD 1
#endif
#if __has_include(<warpred/op_rsum.cuh>)
#    include <warpred/op_rsum.cuh>
#    define WT_HAVE_RSUM 1
#endif
#include "wt_types.h"
#include "wt_plans.h" /* plans owned by the running test: wt_device_plan, wt_device_plan_free */

/* One call, checked: poisons *d_out, reduces, waits, returns the result. */
template <typename T, typename R, typename Op, typename F>
static R reduce_once(const warpred_device_plan *plan, const T *d_in, size_t n, R *d_out, Op op, F f)
{
    const char *why = NULL;
    wt_poison(d_out, sizeof(R));
    const cudaError_t err = warpred_device_transform_reduce(plan, d_in, n, d_out, op, f, 0, &why);
    if (err != cudaSuccess) fail_msg("warpred_device_reduce(n = %zu): %s (%s)", n, cudaGetErrorString(err), why);
    WT_LAUNCHED();
    R got;
    wt_to_host(&got, d_out, sizeof got);
    return got;
}

/* ------------------------------------------------------------------------------------------
   sizes, alignments, bounds
   ------------------------------------------------------------------------------------------ */

static const size_t wt_sizes[] = {0, 1, 2, 3, 4, 5, 31, 33, 1000, 4096, 65537, ((size_t)1 << 20) + 7};
enum { WT_NSIZES = sizeof wt_sizes / sizeof wt_sizes[0] };
static const size_t WT_MAX_N = ((size_t)1 << 20) + 7;

/* Four starts per type, in elements past a 16-byte boundary: aligned, one element in, the
   middle and the last element of a 16-byte vector (fewer for 8-byte types, which have two). */
template <typename T> static int wt_offsets(size_t *off)
{
    const size_t k = 16 / sizeof(T);
    off[0] = 0;
    off[1] = 1;
    if (k == 2) return 2;
    off[2] = k / 2;
    off[3] = k - 1;
    return 4;
}

/* fn(n, off) for every size n of wt_sizes and every start off (in elements) of wt_offsets<T>. */
template <typename T, typename Fn> static void each_size_and_offset(Fn fn)
{
    size_t off[4];
    const int noff = wt_offsets<T>(off);
    for (int s = 0; s < WT_NSIZES; s++)
        for (int o = 0; o < noff; o++) fn(wt_sizes[s], off[o]);
}

/* The most roundings any element's value meets in a float sum: the pairing inside its 16-byte
   load (log2 K), the thread's running sum (one per load it takes, plus head and tail), the
   block tree (8 levels for 256 threads), the sequential fold of the partials (blocks / 32 + 1)
   and the tree after it (up to 8). The error is at most depth * u * sum |x| (first order). */
static double sum_depth(const warpred_device_plan *plan, size_t n, size_t elem_bytes)
{
    const size_t k = 16 / elem_bytes, blocks = warpred_device_blocks(plan, n, elem_bytes);
    const size_t threads = blocks * WARPRED_DEVICE_THREADS, loads = (n / k + threads - 1) / threads;
    return log2((double)k) + (double)loads + 2 + 8 + (double)(blocks / 32 + 1) + 8;
}

/* The expected bits of a min/max reduction (fold with the host model; a NaN result is the
   canonical NaN, since every element goes through the operation), or of its identity for n = 0. */
template <typename T> static uint64_t minmax_expected(int op, const T *x, size_t n)
{
    typedef wt_type<T> W;
    if (n == 0) {
        if (wt_op_is_num(op)) return W::nan_bits();
        return W::bits(W::special(wt_op_is_max(op) ? WT_SP_NEG_INF : WT_SP_INF));
    }
    double v = W::to_d(x[0]);
    for (size_t i = 1; i < n; i++) v = wt_model(op, v, W::to_d(x[i]));
    return isnan(v) ? W::nan_bits() : W::bits(W::from_d(v));
}

/* ------------------------------------------------------------------------------------------
   the manual's snippet
   ------------------------------------------------------------------------------------------ */

/* the transform squared_error and the host function device_reduce_example, as the build copies
   them from the manual */
#include "snippets/device_reduce.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float hx[5] = {1, 2, 3, 4, 5}, ht[5] = {0, 2, 3, 4, 7};
    float *x = (float *)wt_dev_alloc(sizeof hx), *t = (float *)wt_dev_alloc(sizeof ht);
    float *out_f = (float *)wt_dev_alloc(3 * sizeof(float));
    double *out_d = (double *)wt_dev_alloc(sizeof(double));
    wt_to_dev(x, hx, sizeof hx);
    wt_to_dev(t, ht, sizeof ht);
    cudaStream_t stream;
    WT_CUDA(cudaStreamCreate(&stream));
    const cudaError_t err =
        device_reduce_example(x, t, out_f, out_d, stream); /* cudaSuccess: the NULL out was refused */
    WT_CUDA(cudaStreamSynchronize(stream));
    WT_LAUNCHED();
    WT_CUDA(cudaStreamDestroy(stream));
    float got[3];
    double got_d;
    wt_to_host(got, out_f, sizeof got);
    wt_to_host(&got_d, out_d, sizeof got_d);
    if (got[0] != 15.0f || got[1] != 5.0f || got_d != 15.0 || got[2] != 5.0f)
        fail_msg("snippet: sum %g, max %g, double sum %g, squared error %g; expected 15, 5, 15, 5", got[0], got[1],
                 got_d, got[2]);
    WT_CUDA(err);
}

/* ------------------------------------------------------------------------------------------
   argument errors: no GPU needed (the checks come before any CUDA call)
   ------------------------------------------------------------------------------------------ */

/* got (the call's result) is taken before why is read: a call sets why as it returns */
static void expect_error(cudaError_t got, cudaError_t want, const char *why, const char *needle)
{
    if (got != want)
        fail_msg("returned %s, expected %s (message: %s)", cudaGetErrorString(got), cudaGetErrorString(want),
                 why ? why : "(none)");
    if (why == NULL || strstr(why, needle) == NULL)
        fail_msg("message \"%s\" does not say \"%s\"", why ? why : "(null)", needle);
}
#define EXPECT_ERROR(CALL, WANT, NEEDLE)       \
    do {                                       \
        const cudaError_t got_ = (CALL);       \
        expect_error(got_, WANT, why, NEEDLE); \
    } while (0)

static void test_rejects_bad_arguments(void **state)
{
    (void)state;
    /* a plan that looks created; its pointers are never dereferenced by a rejected call */
    warpred_device_plan fake = wt_fake_device_plan(4);
    const float *in = (const float *)4096;
    float *out = (float *)8192;
    const char *why = NULL;

    EXPECT_ERROR(warpred_device_reduce((const warpred_device_plan *)NULL, in, 10, out, warpred_op_sum(), 0, &why),
                 cudaErrorInvalidValue, "plan is NULL");
    EXPECT_ERROR(warpred_device_reduce(&fake, in, 10, (float *)NULL, warpred_op_sum(), 0, &why), cudaErrorInvalidValue,
                 "out is NULL");
    EXPECT_ERROR(warpred_device_reduce(&fake, (const float *)NULL, 10, out, warpred_op_max(), 0, &why),
                 cudaErrorInvalidValue, "in is NULL and n > 0");
    EXPECT_ERROR(
        warpred_device_reduce(&fake, (const float *)((const char *)in + 2), 10, out, warpred_op_max(), 0, &why),
        cudaErrorInvalidValue, "not aligned");
    EXPECT_ERROR(warpred_device_transform_reduce(&fake, in, 10, (double *)out, warpred_op_sum(),
                                                 warpred_xf_to<double>(), 0, &why),
                 cudaErrorInvalidValue, "larger than the plan's value_bytes");
    EXPECT_ERROR(warpred_device_sum(&fake, (const double *)in, 10, (double *)out, 0, &why), cudaErrorInvalidValue,
                 "larger than the plan's value_bytes");
    warpred_device_plan destroyed = fake;
    destroyed.scratch.partials = NULL;
    EXPECT_ERROR(warpred_device_sum(&destroyed, in, 10, out, 0, &why), cudaErrorInvalidValue, "not created");
    /* why may be NULL */
    assert_int_equal(warpred_device_sum(&fake, (const float *)NULL, 3, out), cudaErrorInvalidValue);
    EXPECT_ERROR(warpred_device_plan_create(NULL, 0, &why), cudaErrorInvalidValue, "plan is NULL");
    assert_int_equal(warpred_device_plan_destroy(NULL), cudaErrorInvalidValue);
}

/* On the GPU: the same argument errors launch nothing (*out keeps its poison), and a plan used on
   another device than its own is refused. */
static void test_errors_launch_nothing(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(4);
    double *d_out = (double *)wt_dev_alloc(sizeof(double));
    float *d_x = (float *)wt_dev_alloc(64 * sizeof(float));
    const char *why = NULL;
    EXPECT_ERROR(
        warpred_device_transform_reduce(plan, d_x, 64, d_out, warpred_op_sum(), warpred_xf_to<double>(), 0, &why),
        cudaErrorInvalidValue, "value_bytes");
    EXPECT_ERROR(warpred_device_reduce(plan, (const float *)NULL, 64, (float *)d_out, warpred_op_sum(), 0, &why),
                 cudaErrorInvalidValue, "in is NULL");
    WT_LAUNCHED();
    double got;
    wt_to_host(&got, d_out, sizeof got);
    if (!wt_is_poison(got)) fail_msg("a rejected call wrote *out");
    warpred_device_plan wrong_device = *plan;
    wrong_device.device = plan->device + 1;
    EXPECT_ERROR(warpred_device_sum(&wrong_device, d_x, 64, (float *)d_out, 0, &why), cudaErrorInvalidDevice, "device");
    /* n == 0 with in NULL is fine: the identity */
    WT_CUDA(warpred_device_reduce(plan, (const float *)NULL, 0, (float *)d_out, warpred_op_max(), 0, &why));
    assert_string_equal(why, "no error");
    WT_LAUNCHED();
    float id;
    wt_to_host(&id, d_out, sizeof id);
    if (wt_type<float>::bits(id) != 0xff800000u)
        fail_msg("max over nothing: bits %llx, expected -inf", (unsigned long long)wt_type<float>::bits(id));
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   identities for n = 0
   ------------------------------------------------------------------------------------------ */

template <typename T, typename Op> static void check_identity(warpred_device_plan *plan, T *d_out, Op op, uint64_t want)
{
    const T got = reduce_once(plan, (const T *)NULL, 0, d_out, op, warpred_xf_identity());
    if (wt_type<T>::bits(got) != want)
        fail_msg("%s %s over n = 0: bits %llx, expected %llx", wt_type<T>::name(), wt_op_name[wt_op_of<Op>::code],
                 (unsigned long long)wt_type<T>::bits(got), (unsigned long long)want);
}

template <typename T> static void check_float_identities(warpred_device_plan *plan)
{
    typedef wt_type<T> W;
    T *d_out = (T *)wt_dev_alloc(sizeof(T));
    check_identity(plan, d_out, warpred_op_sum(), 0); /* +0, as numpy.sum([]) */
    check_identity(plan, d_out, warpred_op_max(), W::bits(W::special(WT_SP_NEG_INF)));
    check_identity(plan, d_out, warpred_op_min(), W::bits(W::special(WT_SP_INF)));
    check_identity(plan, d_out, warpred_op_max_num(), W::nan_bits());
    check_identity(plan, d_out, warpred_op_min_num(), W::nan_bits());
    wt_dev_free(d_out);
}

static void test_identity_for_empty_input(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    check_float_identities<float>(plan);
    check_float_identities<double>(plan);
    check_float_identities<__half>(plan);
    check_float_identities<__nv_bfloat16>(plan);
    int *d_i = (int *)wt_dev_alloc(sizeof(int));
    check_identity(plan, d_i, warpred_op_sum(), 0);
    check_identity(plan, d_i, warpred_op_max(), 0x80000000u);
    check_identity(plan, d_i, warpred_op_min(), 0x7fffffffu);
    unsigned *d_u = (unsigned *)wt_dev_alloc(sizeof(unsigned));
    check_identity(plan, d_u, warpred_op_and(), 0xffffffffu);
    check_identity(plan, d_u, warpred_op_or(), 0);
    check_identity(plan, d_u, warpred_op_xor(), 0);
    check_identity(plan, d_u, warpred_op_min(), 0xffffffffu);
    long long *d_ll = (long long *)wt_dev_alloc(sizeof(long long));
    check_identity(plan, d_ll, warpred_op_max(), 0x8000000000000000ull);
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   integer sums and bitwise operations: exact
   ------------------------------------------------------------------------------------------ */

static void test_int_sums_exact(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t cap = WT_MAX_N + 16;
    int *x = (int *)wt_host_alloc(cap * sizeof(int)), *d_x = (int *)wt_dev_alloc(cap * sizeof(int));
    long long *d_ll = (long long *)wt_dev_alloc(sizeof(long long));
    int *d_i = (int *)wt_dev_alloc(sizeof(int));
    unsigned *d_u = (unsigned *)wt_dev_alloc(sizeof(unsigned));
    each_size_and_offset<int>([&](size_t n, size_t off) {
        for (size_t i = 0; i < n + off; i++) x[i] = (int)wt_rand32();
        wt_to_dev(d_x, x, (n + off) * sizeof(int));
        const int *in = x + off, *d_in = d_x + off;
        long long want = 0;
        unsigned wrap = 0, all = ~0u, any = 0, parity = 0;
        for (size_t i = 0; i < n; i++) {
            want += in[i];
            wrap += (unsigned)in[i];
            all &= (unsigned)in[i];
            any |= (unsigned)in[i];
            parity ^= (unsigned)in[i];
        }
        const long long got = reduce_once(plan, d_in, n, d_ll, warpred_op_sum(), warpred_xf_to<long long>());
        if (got != want)
            fail_msg("int -> long long sum, n = %zu, offset %zu: got %lld, expected %lld", n, off, got, want);
        const int got_i = reduce_once(plan, d_in, n, d_i, warpred_op_sum(), warpred_xf_identity());
        if ((unsigned)got_i != wrap)
            fail_msg("int sum (wraps), n = %zu, offset %zu: got %d, expected %d", n, off, got_i, (int)wrap);
        const unsigned *d_uin = (const unsigned *)d_in;
        const unsigned got_and = reduce_once(plan, d_uin, n, d_u, warpred_op_and(), warpred_xf_identity());
        const unsigned got_or = reduce_once(plan, d_uin, n, d_u, warpred_op_or(), warpred_xf_identity());
        const unsigned got_xor = reduce_once(plan, d_uin, n, d_u, warpred_op_xor(), warpred_xf_identity());
        if (got_and != all || got_or != any || got_xor != parity)
            fail_msg("n = %zu, offset %zu: and/or/xor %08x %08x %08x, expected %08x %08x %08x", n, off, got_and, got_or,
                     got_xor, all, any, parity);
    });
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   float sums: within the bound in float; exact when accumulated in double
   ------------------------------------------------------------------------------------------ */

static void test_float_sums(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t cap = WT_MAX_N + 16;
    float *x = (float *)wt_host_alloc(cap * sizeof(float)), *d_x = (float *)wt_dev_alloc(cap * sizeof(float));
    float *d_f = (float *)wt_dev_alloc(sizeof(float));
    double *d_d = (double *)wt_dev_alloc(sizeof(double));
    each_size_and_offset<float>([&](size_t n, size_t off) {
        /* k * 2^-20 with |k| < 2^19: exact in float, and every partial sum of up to 2^20 + 7
           of them is exact in double */
        for (size_t i = 0; i < n + off; i++) x[i] = (float)ldexp((double)((int)(wt_rand32() >> 13) - (1 << 18)), -20);
        wt_to_dev(d_x, x, (n + off) * sizeof(float));
        const float *in = x + off, *d_in = d_x + off;
        double exact = 0, abs_sum = 0;
        for (size_t i = 0; i < n; i++) {
            exact += in[i];
            abs_sum += fabs((double)in[i]);
        }
        const float got = reduce_once(plan, d_in, n, d_f, warpred_op_sum(), warpred_xf_identity());
        const double tol = sum_depth(plan, n, sizeof(float)) * 0x1p-24 * abs_sum;
        if (fabs((double)got - exact) > tol)
            fail_msg("float sum, n = %zu, offset %zu: got %.9g, expected %.9g (bound %.3g)", n, off, (double)got, exact,
                     tol);
        const double got_d = reduce_once(plan, d_in, n, d_d, warpred_op_sum(), warpred_xf_to<double>());
        if (got_d != exact)
            fail_msg("float sum in double, n = %zu, offset %zu: got %.17g, expected exactly %.17g", n, off, got_d,
                     exact);
        /* float in, double out, no transform: the accumulator is R, so this adds in double too */
        const double got_id = reduce_once(plan, d_in, n, d_d, warpred_op_sum(), warpred_xf_identity());
        if (got_id != exact)
            fail_msg("float in, double out, n = %zu, offset %zu: got %.17g, expected %.17g", n, off, got_id, exact);
    });
    wt_device_plan_free(plan);
}

/* A sum of only -0 is -0 (each thread starts from -0, the true identity of IEEE addition); one
   +0 among them makes it +0. */
template <typename T> static void check_negative_zero_sums(warpred_device_plan *plan)
{
    typedef wt_type<T> W;
    const size_t n = 65537;
    T *x = (T *)wt_host_alloc((n + 1) * sizeof(T)), *d_x = (T *)wt_dev_alloc((n + 1) * sizeof(T)),
      *d_out = (T *)wt_dev_alloc(sizeof(T));
    for (size_t i = 0; i <= n; i++) x[i] = W::special(WT_SP_NEG_ZERO);
    wt_to_dev(d_x, x, (n + 1) * sizeof(T));
    const size_t counts[] = {1, 5, 1000, n};
    for (int c = 0; c < 4; c++) {
        const T got = reduce_once(plan, d_x + 1, counts[c], d_out, warpred_op_sum(), warpred_xf_identity());
        if (W::bits(got) != W::sign_bit())
            fail_msg("%s sum of %zu times -0: bits %llx", W::name(), counts[c], (unsigned long long)W::bits(got));
    }
    const size_t at = 1 + wt_rand32() % n;
    x[at] = W::special(WT_SP_ZERO);
    wt_to_dev(d_x, x, (n + 1) * sizeof(T));
    const T got = reduce_once(plan, d_x + 1, n, d_out, warpred_op_sum(), warpred_xf_identity());
    if (W::bits(got) != 0)
        fail_msg("%s sum of -0s and one +0 (at %zu): bits %llx", W::name(), at - 1, (unsigned long long)W::bits(got));
    wt_host_free(x);
    wt_dev_free(d_x);
    wt_dev_free(d_out);
}

static void test_sum_of_negative_zeros(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    check_negative_zero_sums<float>(plan);
    check_negative_zero_sums<double>(plan);
    check_negative_zero_sums<__half>(plan);
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   min / max / min_num / max_num with NaN and +-0 at random positions
   ------------------------------------------------------------------------------------------ */

enum { CASE_RANDOM, CASE_ZEROS, CASE_ONE_NAN, CASE_ALL_NAN, CASES };
static const char *const case_name[] = {"random with specials", "+-0 on the extreme side", "one NaN", "all NaN"};

/* Fills x[0..n) for a case. CASE_ZEROS: all values negative except a few +-0 (max is then a
   zero, its sign decided by -0 < +0); `negate` mirrors that for min. */
template <typename T> static void fill_case(T *x, size_t n, int c, int negate)
{
    typedef wt_type<T> W;
    for (size_t i = 0; i < n; i++) {
        switch (c) {
        case CASE_RANDOM: x[i] = W::random(1); break;
        case CASE_ZEROS: x[i] = W::from_d((negate ? 1 : -1) * (0.25 + wt_rand_unit())); break;
        case CASE_ONE_NAN: x[i] = W::random(0); break;
        default: x[i] = W::special(wt_rand_below(2) ? WT_SP_QNAN : WT_SP_NEG_QNAN);
        }
    }
    if (n == 0) return;
    if (c == CASE_ZEROS) {
        const int zeros = 1 + wt_rand_below(3);
        for (int z = 0; z < zeros; z++) x[wt_rand32() % n] = W::special(wt_rand_below(2) ? WT_SP_ZERO : WT_SP_NEG_ZERO);
    }
    if (c == CASE_ONE_NAN) x[wt_rand32() % n] = W::special(wt_rand_below(2) ? WT_SP_SNAN : WT_SP_NEG_QNAN);
}

template <typename T, typename Op>
static void check_minmax(warpred_device_plan *plan, const T *x, const T *d_in, size_t n, T *d_out, const char *what,
                         size_t offset)
{
    const int op = wt_op_of<Op>::code;
    const T got = reduce_once(plan, d_in, n, d_out, Op(), warpred_xf_identity());
    const uint64_t want = minmax_expected(op, x, n), bits = wt_type<T>::bits(got);
    if (bits != want)
        fail_msg("%s %s, %s, n = %zu, offset %zu: bits %llx, expected %llx", wt_type<T>::name(), wt_op_name[op], what,
                 n, offset, (unsigned long long)bits, (unsigned long long)want);
}

template <typename T> static void run_minmax(warpred_device_plan *plan)
{
    static const size_t sizes[] = {1, 2, 3, 5, 31, 33, 1000, 4096, 65537};
    const int nsizes = wt_quick() ? 7 : 9;
    const size_t cap = 65537 + 16;
    T *x = (T *)wt_host_alloc(cap * sizeof(T)), *d_x = (T *)wt_dev_alloc(cap * sizeof(T)),
      *d_out = (T *)wt_dev_alloc(sizeof(T));
    size_t off[4];
    const int noff = wt_offsets<T>(off);
    for (int s = 0; s < nsizes; s++)
        for (int o = 0; o < noff; o++)
            for (int c = 0; c < CASES; c++)
                for (int negate = 0; negate < (c == CASE_ZEROS ? 2 : 1); negate++) {
                    const size_t n = sizes[s];
                    fill_case(x, off[o], CASE_RANDOM, 0); /* before the start: never read */
                    fill_case(x + off[o], n, c, negate);
                    wt_to_dev(d_x, x, (n + off[o]) * sizeof(T));
                    const T *in = x + off[o], *d_in = d_x + off[o];
                    check_minmax<T, warpred_op_max>(plan, in, d_in, n, d_out, case_name[c], off[o]);
                    check_minmax<T, warpred_op_min>(plan, in, d_in, n, d_out, case_name[c], off[o]);
                    check_minmax<T, warpred_op_max_num>(plan, in, d_in, n, d_out, case_name[c], off[o]);
                    check_minmax<T, warpred_op_min_num>(plan, in, d_in, n, d_out, case_name[c], off[o]);
                }
    wt_host_free(x);
    wt_dev_free(d_x);
    wt_dev_free(d_out);
}

static void test_minmax_nan_and_zeros(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    run_minmax<float>(plan);
    run_minmax<double>(plan);
    run_minmax<__half>(plan);
    run_minmax<__nv_bfloat16>(plan);
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   1-, 2- and 8-byte inputs
   ------------------------------------------------------------------------------------------ */

/* Small integers in [-amp, amp]: exact in every type, so their sums are exact as long as the
   partial sums stay within the type's exact integers. */
template <typename T> static long long fill_small_ints(T *x, size_t count, size_t first, size_t n, int amp)
{
    long long sum = 0;
    for (size_t i = 0; i < count; i++) {
        const int k = (int)(wt_rand32() % (2 * amp + 1)) - amp;
        x[i] = wt_type<T>::from_d((double)k);
        if (i >= first && i < first + n) sum += k;
    }
    return sum;
}

template <typename H> static void check_16bit_sums(warpred_device_plan *plan)
{
    typedef wt_type<H> W;
    const size_t cap = WT_MAX_N + 16;
    H *x = (H *)wt_host_alloc(cap * sizeof(H)), *d_x = (H *)wt_dev_alloc(cap * sizeof(H)),
      *d_h = (H *)wt_dev_alloc(sizeof(H));
    float *d_f = (float *)wt_dev_alloc(sizeof(float));
    each_size_and_offset<H>([&](size_t n, size_t off) {
        const long long want = fill_small_ints(x, n + off, off, n, 4);
        wt_to_dev(d_x, x, (n + off) * sizeof(H));
        /* accumulated in float: exact for any of these sizes */
        const float got = reduce_once(plan, d_x + off, n, d_f, warpred_op_sum(), warpred_xf_to<float>());
        if (got != (float)want)
            fail_msg("%s -> float sum, n = %zu, offset %zu: got %.9g, expected %lld", W::name(), n, off, (double)got,
                     want);
        /* in the type itself: exact while every partial sum stays within the type's exact
           integers (2^11 for __half, 2^8 for __nv_bfloat16), which n * amp guarantees */
        const int bf16 = W::unit_roundoff() == 0x1p-8, amp = bf16 ? 1 : 2;
        if (n * amp <= (bf16 ? 256u : 2048u)) {
            const long long want_small = fill_small_ints(x, n + off, off, n, amp);
            wt_to_dev(d_x, x, (n + off) * sizeof(H));
            const H got_h = reduce_once(plan, d_x + off, n, d_h, warpred_op_sum(), warpred_xf_identity());
            if (W::to_d(got_h) != (double)want_small)
                fail_msg("%s sum, n = %zu, offset %zu: got %g, expected %lld", W::name(), n, off, W::to_d(got_h),
                         want_small);
        }
    });
    /* in the type itself, rounding on the way: within the bound */
    const size_t n = 4096;
    double exact = 0, abs_sum = 0;
    for (size_t i = 0; i < n + 3; i++) x[i] = W::random(0);
    for (size_t i = 3; i < n + 3; i++) {
        exact += W::to_d(x[i]);
        abs_sum += fabs(W::to_d(x[i]));
    }
    wt_to_dev(d_x, x, (n + 3) * sizeof(H));
    const H got = reduce_once(plan, d_x + 3, n, d_h, warpred_op_sum(), warpred_xf_identity());
    const double tol = sum_depth(plan, n, sizeof(H)) * W::unit_roundoff() * abs_sum;
    if (fabs(W::to_d(got) - exact) > tol)
        fail_msg("%s sum of %zu random values: got %g, expected %g (bound %g)", W::name(), n, W::to_d(got), exact, tol);
    wt_host_free(x);
    wt_dev_free(d_x);
    wt_dev_free(d_h);
    wt_dev_free(d_f);
}

static void test_16bit_inputs(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    check_16bit_sums<__half>(plan);
    check_16bit_sums<__nv_bfloat16>(plan);
    wt_device_plan_free(plan);
}

static void test_8bit_inputs(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t cap = WT_MAX_N + 16;
    unsigned char *x = (unsigned char *)wt_host_alloc(cap), *d_x = (unsigned char *)wt_dev_alloc(cap);
    int *d_i = (int *)wt_dev_alloc(sizeof(int));
    each_size_and_offset<unsigned char>([&](size_t n, size_t off) {
        for (size_t i = 0; i < n + off; i++) x[i] = (unsigned char)wt_rand32();
        wt_to_dev(d_x, x, n + off);
        long long want = 0;
        int top = 0;
        for (size_t i = off; i < off + n; i++) {
            want += x[i];
            top = x[i] > top ? x[i] : top;
        }
        const int got = reduce_once(plan, d_x + off, n, d_i, warpred_op_sum(), warpred_xf_to<int>());
        if (got != want)
            fail_msg("unsigned char -> int sum, n = %zu, offset %zu: got %d, expected %lld", n, off, got, want);
        const int got_max = reduce_once(plan, d_x + off, n, d_i, warpred_op_max(), warpred_xf_to<int>());
        if (n > 0 && got_max != top)
            fail_msg("unsigned char -> int max, n = %zu, offset %zu: got %d, expected %d", n, off, got_max, top);
    });
    wt_device_plan_free(plan);
}

static void test_8byte_inputs(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t cap = WT_MAX_N + 16;
    double *x = (double *)wt_host_alloc(cap * sizeof(double)), *d_x = (double *)wt_dev_alloc(cap * sizeof(double));
    double *d_d = (double *)wt_dev_alloc(sizeof(double));
    long long *ll = (long long *)x, *d_ll = (long long *)d_x, *d_llout = (long long *)wt_dev_alloc(sizeof(long long));
    each_size_and_offset<double>([&](size_t n, size_t off) {
        /* doubles k * 2^-30, |k| < 2^30: every partial sum is exact */
        double exact = 0;
        for (size_t i = 0; i < n + off; i++) x[i] = ldexp((double)((long long)(wt_rand32() >> 1) - (1ll << 30)), -30);
        for (size_t i = off; i < off + n; i++) exact += x[i];
        wt_to_dev(d_x, x, (n + off) * sizeof(double));
        const double got = reduce_once(plan, d_x + off, n, d_d, warpred_op_sum(), warpred_xf_identity());
        if (got != exact)
            fail_msg("double sum, n = %zu, offset %zu: got %.17g, expected exactly %.17g", n, off, got, exact);
        /* long long, full range: wraps modulo 2^64 */
        unsigned long long want = 0;
        for (size_t i = 0; i < n + off; i++) ll[i] = (long long)wt_rand64();
        for (size_t i = off; i < off + n; i++) want += (unsigned long long)ll[i];
        wt_to_dev(d_ll, ll, (n + off) * sizeof(long long));
        const long long got_ll = reduce_once(plan, d_ll + off, n, d_llout, warpred_op_sum(), warpred_xf_identity());
        if ((unsigned long long)got_ll != want)
            fail_msg("long long sum, n = %zu, offset %zu: got %llx, expected %llx", n, off, (unsigned long long)got_ll,
                     want);
    });
    /* random doubles, rounding on the way: within the bound of a long double reference */
    const size_t n = WT_MAX_N;
    long double ref = 0;
    double abs_sum = 0;
    for (size_t i = 0; i < n + 1; i++) x[i] = (wt_rand_unit() * 2.0 - 1.0) * 100.0;
    for (size_t i = 1; i < n + 1; i++) {
        ref += x[i];
        abs_sum += fabs(x[i]);
    }
    wt_to_dev(d_x, x, (n + 1) * sizeof(double));
    const double got = reduce_once(plan, d_x + 1, n, d_d, warpred_op_sum(), warpred_xf_identity());
    /* the reference's own error, n roundings of long double at most, is added to the bound */
    const double tol = (sum_depth(plan, n, sizeof(double)) * 0x1p-53 + (double)n * 0x1p-64) * abs_sum;
    if (fabsl((long double)got - ref) > tol)
        fail_msg("double sum of %zu random values: got %.17g, expected %.17Lg (bound %.3g)", n, got, ref, tol);
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   transforms: squared error (a second array through the index), count-if
   ------------------------------------------------------------------------------------------ */

struct squared_error_double {
    const float *target;
    __device__ double operator()(float y, size_t i) const
    {
        const double d = (double)y - (double)target[i];
        return d * d;
    }
};

struct count_above {
    float threshold;
    __device__ long long operator()(float x, size_t) const { return x > threshold ? 1 : 0; }
};

static void test_transforms(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t cap = WT_MAX_N + 16;
    float *y = (float *)wt_host_alloc(cap * sizeof(float)), *t = (float *)wt_host_alloc(cap * sizeof(float));
    float *d_y = (float *)wt_dev_alloc(cap * sizeof(float)), *d_t = (float *)wt_dev_alloc(cap * sizeof(float));
    double *d_d = (double *)wt_dev_alloc(sizeof(double));
    long long *d_ll = (long long *)wt_dev_alloc(sizeof(long long));
    each_size_and_offset<float>([&](size_t n, size_t off) {
        for (size_t i = 0; i < n + off; i++) {
            y[i] = (float)(wt_rand_unit() * 4.0 - 2.0);
            t[i] = (float)(wt_rand_unit() * 4.0 - 2.0);
        }
        wt_to_dev(d_y, y, (n + off) * sizeof(float));
        wt_to_dev(d_t, t, (n + off) * sizeof(float));
        /* the target array is indexed from the same start as the input */
        squared_error_double se = {d_t + off};
        count_above ca = {0.5f};
        long double sq = 0;
        long long count = 0;
        for (size_t i = off; i < off + n; i++) {
            const long double d = (long double)y[i] - (long double)t[i];
            sq += d * d;
            count += y[i] > 0.5f;
        }
        const double got_sq = reduce_once(plan, d_y + off, n, d_d, warpred_op_sum(), se);
        /* each square is within u of exact; the sum adds depth roundings of u on top; the
           long double reference errs by at most n roundings of its own */
        const double tol = ((1 + sum_depth(plan, n, sizeof(float))) * 0x1p-53 + (double)n * 0x1p-64) * (double)sq;
        if (fabsl((long double)got_sq - sq) > tol)
            fail_msg("squared error, n = %zu, offset %zu: got %.17g, expected %.17Lg (bound %.3g)", n, off, got_sq, sq,
                     tol);
        const long long got_count = reduce_once(plan, d_y + off, n, d_ll, warpred_op_sum(), ca);
        if (got_count != count)
            fail_msg("count-if, n = %zu, offset %zu: got %lld, expected %lld", n, off, got_count, count);
    });
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   determinism, many calls without reset, graph capture
   ------------------------------------------------------------------------------------------ */

/* The same call ten times: the same bits. A second plan on the same device: the same bits too
   (the grid depends only on n, the input type and the device). */
static void test_bitwise_deterministic(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0), *other = wt_device_plan(0);
    const size_t n = wt_quick() ? ((size_t)1 << 18) + 3 : ((size_t)1 << 24) + 3;
    float *x = (float *)wt_host_alloc((n + 1) * sizeof(float)), *d_x = (float *)wt_dev_alloc((n + 1) * sizeof(float));
    float *d_f = (float *)wt_dev_alloc(sizeof(float));
    for (size_t i = 0; i < n + 1; i++) x[i] = (float)((wt_rand_unit() - 0.3) * ldexp(1.0, wt_rand_below(40) - 20));
    wt_to_dev(d_x, x, (n + 1) * sizeof(float));
    double abs_sum = 0, ref = 0;
    for (size_t i = 1; i < n + 1; i++) {
        ref += x[i];
        abs_sum += fabs((double)x[i]);
    }
    uint32_t first = 0;
    for (int r = 0; r < 10; r++) {
        const float got = reduce_once(r == 9 ? other : plan, d_x + 1, n, d_f, warpred_op_sum(), warpred_xf_identity());
        const uint32_t bits = (uint32_t)wt_type<float>::bits(got);
        if (r == 0) {
            first = bits;
            const double tol = sum_depth(plan, n, sizeof(float)) * 0x1p-24 * abs_sum;
            if (fabs((double)got - ref) > tol)
                fail_msg("float sum of %zu: got %.9g, expected %.9g (bound %.3g)", n, (double)got, ref, tol);
        } else if (bits != first) {
            fail_msg("call %d%s: bits %08x, first call %08x: not deterministic", r, r == 9 ? " (second plan)" : "",
                     bits, first);
        }
    }
    wt_device_plan_free(other);
    wt_device_plan_free(plan);
}

/* 50 calls on one plan, no reset in between, every one checked: sizes, types and operations
   change from call to call. */
static void test_many_calls_no_reset(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t cap = ((size_t)1 << 20) + 16;
    int *x = (int *)wt_host_alloc(cap * sizeof(int)), *d_x = (int *)wt_dev_alloc(cap * sizeof(int));
    long long *d_ll = (long long *)wt_dev_alloc(sizeof(long long));
    int *d_i = (int *)wt_dev_alloc(sizeof(int));
    for (size_t i = 0; i < cap; i++) x[i] = (int)wt_rand32() >> 4;
    wt_to_dev(d_x, x, cap * sizeof(int));
    for (int call = 0; call < 50; call++) {
        const size_t n = (size_t)1 + wt_rand32() % ((size_t)1 << (call % 3 == 0 ? 20 : 12)), start = wt_rand32() % 16;
        long long want = 0;
        int top = x[start];
        for (size_t i = start; i < start + n; i++) {
            want += x[i];
            top = x[i] > top ? x[i] : top;
        }
        if (call % 2 == 0) {
            const long long got = reduce_once(plan, d_x + start, n, d_ll, warpred_op_sum(), warpred_xf_to<long long>());
            if (got != want)
                fail_msg("call %d (sum, n = %zu, start %zu): got %lld, expected %lld", call, n, start, got, want);
        } else {
            const int got = reduce_once(plan, d_x + start, n, d_i, warpred_op_max(), warpred_xf_identity());
            if (got != top)
                fail_msg("call %d (max, n = %zu, start %zu): got %d, expected %d", call, n, start, got, top);
        }
    }
    const char *why = NULL;
    if (warpred_grid_scratch_status(&plan->scratch, &why) != cudaSuccess)
        fail_msg("scratch status after 50 calls: %s", why);
    wt_device_plan_free(plan);
}

/* A call captured in a CUDA graph and replayed three times, with new data before each replay:
   every replay reads the data of its time and writes a fresh, exact result. */
static void test_graph_capture(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t n = 100003, start = 1;
    int *x = (int *)wt_host_alloc((n + start) * sizeof(int)), *d_x = (int *)wt_dev_alloc((n + start) * sizeof(int));
    long long *d_ll = (long long *)wt_dev_alloc(sizeof(long long));
    cudaStream_t stream;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    const char *why = NULL;
    WT_CUDA(cudaStreamCreate(&stream));
    WT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const cudaError_t err = warpred_device_transform_reduce(plan, d_x + start, n, d_ll, warpred_op_sum(),
                                                            warpred_xf_to<long long>(), stream, &why);
    WT_CUDA(cudaStreamEndCapture(stream, &graph));
    if (err != cudaSuccess) fail_msg("captured call: %s (%s)", cudaGetErrorString(err), why);
    WT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; replay++) {
        long long want = 0;
        for (size_t i = 0; i < n + start; i++) x[i] = (int)wt_rand32();
        for (size_t i = start; i < n + start; i++) want += x[i];
        wt_to_dev(d_x, x, (n + start) * sizeof(int));
        wt_poison(d_ll, sizeof(long long));
        WT_CUDA(cudaGraphLaunch(exec, stream));
        WT_CUDA(cudaStreamSynchronize(stream));
        WT_LAUNCHED();
        long long got;
        wt_to_host(&got, d_ll, sizeof got);
        if (got != want) fail_msg("replay %d: got %lld, expected %lld", replay, got, want);
    }
    WT_CUDA(cudaGraphExecDestroy(exec));
    WT_CUDA(cudaGraphDestroy(graph));
    WT_CUDA(cudaStreamDestroy(stream));
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   one plan under grids and types that change from call to call (the tail: where the blocks'
   values meet, the ticket counter and the partials, shared by every call)
   ------------------------------------------------------------------------------------------ */

/* An n that gives exactly `blocks` blocks for elements of elem_bytes (the last one partly
   filled), below the kernel's wave. */
static size_t n_for_blocks(unsigned blocks, size_t elem_bytes)
{
    const size_t per_block = (size_t)WARPRED_DEVICE_THREADS * WARPRED_DEVICE_LOADS * (16 / elem_bytes);
    if (blocks <= 1) return 1 + wt_rand32() % per_block;
    return (blocks - 1) * per_block + 1 + wt_rand32() % per_block;
}

/* Shared inputs of these tests: floats that are small integers (every partial sum of up to
   2^22 of them is exact in float: |sum| <= 2 * 2^22 < 2^24) and doubles k * 2^-30 (every partial
   sum exact), with prefix sums of their integers for O(1) references. */
typedef struct {
    size_t cap;       /* elements of each array */
    float *f, *d_f;   /* f[i] in {-2, .., 2} */
    double *d, *d_d;  /* d[i] = k * 2^-30, |k| < 2^30 */
    long long *f_pre; /* f_pre[i] = f[0] + .. + f[i-1] */
    long long *d_pre; /* the same for the k of d */
} tail_data;

static void tail_data_init(tail_data *t, const warpred_device_plan *plan)
{
    /* room for a full wave of float blocks plus a start offset of up to 3 elements */
    t->cap = (size_t)plan->max_blocks * WARPRED_DEVICE_THREADS * WARPRED_DEVICE_LOADS * 4 + 4;
    t->f = (float *)wt_host_alloc(t->cap * sizeof(float));
    t->d = (double *)wt_host_alloc(t->cap * sizeof(double));
    t->f_pre = (long long *)wt_host_alloc((t->cap + 1) * sizeof(long long));
    t->d_pre = (long long *)wt_host_alloc((t->cap + 1) * sizeof(long long));
    t->d_f = (float *)wt_dev_alloc(t->cap * sizeof(float));
    t->d_d = (double *)wt_dev_alloc(t->cap * sizeof(double));
}

static void tail_data_fill(tail_data *t)
{
    t->f_pre[0] = t->d_pre[0] = 0;
    for (size_t i = 0; i < t->cap; i++) {
        const int a = (int)(wt_rand32() % 5) - 2;
        const long long k = (long long)(wt_rand32() >> 1) - (1ll << 30);
        t->f[i] = (float)a;
        t->d[i] = ldexp((double)k, -30);
        t->f_pre[i + 1] = t->f_pre[i] + a;
        t->d_pre[i + 1] = t->d_pre[i] + k;
    }
    wt_to_dev(t->d_f, t->f, t->cap * sizeof(float));
    wt_to_dev(t->d_d, t->d, t->cap * sizeof(double));
}

enum { TK_FLOAT, TK_DOUBLE, TK_RSUM, TK_ARGMAX, TK_WELFORD, TK_KINDS };
static const char *const tk_name[] = {"float sum", "double sum", "float rsum", "float argmax", "double welford"};
static int tk_available(int kind)
{
    switch (kind) {
#ifndef WT_HAVE_RSUM
    case TK_RSUM: return 0;
#endif
#ifndef WT_HAVE_ARGMINMAX
    case TK_ARGMAX: return 0;
#endif
#ifndef WT_HAVE_WELFORD
    case TK_WELFORD: return 0;
#endif
    default: return 1;
    }
}
enum { TK_SLOT = 64 }; /* bytes of output room per call: more than any result type here */

typedef struct {
    int kind;
    size_t start, n;
} tail_call;

/* One call of `kind` on elements start .. start + n - 1, result into out (TK_SLOT bytes), in
   `stream`; nothing waited for. */
static void tail_launch(const warpred_device_plan *plan, const tail_data *t, const tail_call *c, void *out,
                        cudaStream_t stream)
{
    const char *why = NULL;
    cudaError_t err = cudaSuccess;
    switch (c->kind) {
    case TK_FLOAT: err = warpred_device_sum(plan, t->d_f + c->start, c->n, (float *)out, stream, &why); break;
    case TK_DOUBLE: err = warpred_device_sum(plan, t->d_d + c->start, c->n, (double *)out, stream, &why); break;
#ifdef WT_HAVE_RSUM
    case TK_RSUM:
        err = warpred_device_reduce(plan, t->d_f + c->start, c->n, (float *)out, warpred_op_rsum(), stream, &why);
        break;
#endif
#ifdef WT_HAVE_ARGMINMAX
    case TK_ARGMAX:
        err = warpred_device_transform_reduce(plan, t->d_f + c->start, c->n, (warpred_arg<float, long long> *)out,
                                              warpred_op_argmax(), warpred_xf_arg(), stream, &why);
        break;
#endif
#ifdef WT_HAVE_WELFORD
    case TK_WELFORD:
        err = warpred_device_transform_reduce(plan, t->d_d + c->start, c->n, (warpred_welford<double> *)out,
                                              warpred_op_welford(), warpred_xf_welford<>(), stream, &why);
        break;
#endif
    default: fail_msg("kind %d not built", c->kind);
    }
    if (err != cudaSuccess) fail_msg("%s, n = %zu: %s (%s)", tk_name[c->kind], c->n, cudaGetErrorString(err), why);
}

/* The result of call c (bytes as the GPU wrote them) against the host reference. */
static void tail_check(const tail_data *t, const tail_call *c, const unsigned char *got, const char *where, int index)
{
    const size_t a = c->start, b = c->start + c->n;
    switch (c->kind) {
    case TK_FLOAT:
    case TK_RSUM: {
        float r;
        memcpy(&r, got, sizeof r);
        const float want = (float)(t->f_pre[b] - t->f_pre[a]); /* exact: an integer below 2^24 */
        if (r != want)
            fail_msg("%s %d: %s, n = %zu, start %zu: got %.9g, expected %.9g", where, index, tk_name[c->kind], c->n, a,
                     (double)r, (double)want);
        break;
    }
    case TK_DOUBLE: {
        double r;
        memcpy(&r, got, sizeof r);
        const double want = ldexp((double)(t->d_pre[b] - t->d_pre[a]), -30);
        if (r != want)
            fail_msg("%s %d: double sum, n = %zu, start %zu: got %.17g, expected exactly %.17g", where, index, c->n, a,
                     r, want);
        break;
    }
#ifdef WT_HAVE_ARGMINMAX
    case TK_ARGMAX: {
        warpred_arg<float, long long> r;
        memcpy(&r, got, sizeof r);
        size_t best = a; /* ties (the values are small integers: many) go to the lowest index */
        for (size_t i = a + 1; i < b; i++)
            if (t->f[i] > t->f[best]) best = i;
        if (r.value != t->f[best] || r.index != (long long)(best - a))
            fail_msg("%s %d: argmax, n = %zu, start %zu: got {%g, %lld}, expected {%g, %lld}", where, index, c->n, a,
                     (double)r.value, r.index, (double)t->f[best], (long long)(best - a));
        break;
    }
#endif
#ifdef WT_HAVE_WELFORD
    case TK_WELFORD: {
        warpred_welford<double> r;
        memcpy(&r, got, sizeof r);
        const long double mean = ldexpl((long double)(t->d_pre[b] - t->d_pre[a]), -30) / (long double)c->n;
        long double m2 = 0;
        for (size_t i = a; i < b; i++) m2 += ((long double)t->d[i] - mean) * ((long double)t->d[i] - mean);
        if (r.count != (long long)c->n || fabsl((long double)r.mean - mean) > 1e-12L ||
            fabsl((long double)r.m2 - m2) > 1e-9L * m2 + 1e-12L)
            fail_msg("%s %d: welford, n = %zu, start %zu: {mean %.17g, m2 %.17g, count %lld}, expected {%.17Lg, "
                     "%.17Lg, %zu}",
                     where, index, c->n, a, r.mean, r.m2, r.count, mean, m2, c->n);
        break;
    }
#endif
    default: fail_msg("kind %d not built", c->kind);
    }
}

static size_t tk_elem_bytes(int kind) { return kind == TK_DOUBLE || kind == TK_WELFORD ? 8 : 4; }

/* Back-to-back calls through one plan, BATCH queued at a time with no wait in between (each
   into its own poisoned output), then all checked: the grid goes from one block to a full wave
   and back, and the kind (partials of 4 bytes for the float sum, 8 for the double sum, 16 for
   argmax, 24 for welford, and rsum's accumulator) changes from call to call, so every call's
   partials lie over bytes of earlier, larger grids and of other types, and the ticket counter
   must be back at zero after every grid size. */
static void test_grids_and_types_alternate(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    tail_data t;
    tail_data_init(&t, plan);
    tail_data_fill(&t);
    const unsigned wave = plan->max_blocks;
    const unsigned schedule[] = {1,        wave, 2, wave / 2 + 1, 1, wave, 33, 7, wave, 1, 257 < wave ? 257 : wave, 2,
                                 wave - 1, 64,   1, wave};
    enum { SCHEDULE = sizeof schedule / sizeof schedule[0], BATCH = 8 };
    const int calls = wt_quick() ? 3 * BATCH : 10 * BATCH;
    unsigned char *d_out = (unsigned char *)wt_dev_alloc(BATCH * TK_SLOT), got[BATCH * TK_SLOT];
    tail_call batch[BATCH];
    int kind = 0;
    for (int call = 0; call < calls; call += BATCH) {
        wt_poison(d_out, BATCH * TK_SLOT);
        for (int j = 0; j < BATCH; j++) {
            do kind = (kind + 1) % TK_KINDS;
            while (!tk_available(kind));
            tail_call *c = &batch[j];
            c->kind = kind;
            c->start = wt_rand32() % 4;
            c->n = n_for_blocks(schedule[(call + j) % SCHEDULE], tk_elem_bytes(kind));
            if (c->start + c->n > t.cap) c->n = t.cap - c->start;
            tail_launch(plan, &t, c, d_out + j * TK_SLOT, 0);
        }
        WT_CUDA(cudaDeviceSynchronize());
        WT_LAUNCHED();
        wt_to_host(got, d_out, sizeof got);
        for (int j = 0; j < BATCH; j++) tail_check(&t, &batch[j], got + j * TK_SLOT, "call", call + j);
    }
    wt_grid_scratch_ok(&plan->scratch, "after the alternating calls");
    wt_device_plan_free(plan);
}

/* A graph of three captured calls (float sum over a full wave, double sum over three blocks,
   and rsum or a float sum over one block) replayed five times, the input changed before each
   replay and direct calls of other sizes and types through the same plan in between (they
   share its ticket counter and partials); two replays queued back to back, then checked. Every result of
   every replay is checked. */
static void test_graph_replays_between_direct_calls(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    tail_data t;
    tail_data_init(&t, plan);
    enum { CAPTURED = 3 };
    tail_call graph_calls[CAPTURED] = {
        {TK_FLOAT, 1, 0}, {TK_DOUBLE, 2, 0}, {tk_available(TK_RSUM) ? TK_RSUM : TK_FLOAT, 3, 0}};
    graph_calls[0].n = n_for_blocks(plan->max_blocks, 4);
    graph_calls[1].n = n_for_blocks(3, 8);
    graph_calls[2].n = n_for_blocks(1, 4);
    unsigned char *d_out = (unsigned char *)wt_dev_alloc((CAPTURED + 1) * TK_SLOT), got[(CAPTURED + 1) * TK_SLOT];
    cudaStream_t stream;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    WT_CUDA(cudaStreamCreate(&stream));
    WT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < CAPTURED; k++) tail_launch(plan, &t, &graph_calls[k], d_out + k * TK_SLOT, stream);
    WT_CUDA(cudaStreamEndCapture(stream, &graph));
    WT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 5; replay++) {
        tail_data_fill(&t); /* new input: a replay that reused a stale partial would be caught */
        wt_poison(d_out, sizeof got);
        WT_CUDA(cudaGraphLaunch(exec, stream));
        if (replay == 4) WT_CUDA(cudaGraphLaunch(exec, stream)); /* back to back: the same results */
        /* a direct call through the same plan, after the replay in the same stream */
        tail_call direct = {replay % 2 ? TK_DOUBLE : TK_FLOAT, 0, 0};
        direct.n = n_for_blocks(replay % 2 ? plan->max_blocks / 3 + 1 : 2, tk_elem_bytes(direct.kind));
        tail_launch(plan, &t, &direct, d_out + CAPTURED * TK_SLOT, stream);
        WT_CUDA(cudaStreamSynchronize(stream));
        WT_LAUNCHED();
        wt_to_host(got, d_out, sizeof got);
        for (int k = 0; k < CAPTURED; k++) tail_check(&t, &graph_calls[k], got + k * TK_SLOT, "replay", replay);
        tail_check(&t, &direct, got + CAPTURED * TK_SLOT, "direct call after replay", replay);
    }
    WT_CUDA(cudaGraphExecDestroy(exec));
    WT_CUDA(cudaGraphDestroy(graph));
    WT_CUDA(cudaStreamDestroy(stream));
    wt_device_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   compound values (once their headers are there)
   ------------------------------------------------------------------------------------------ */

#ifdef WT_HAVE_ARGMINMAX
/* argmax over floats with the maximum at two random positions: the lower index wins. */
static void test_argmax_through_transform(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t n = 65537, start = 3;
    float *x = (float *)wt_host_alloc((n + start) * sizeof(float)),
          *d_x = (float *)wt_dev_alloc((n + start) * sizeof(float));
    typedef warpred_arg<float, long long> A;
    A *d_a = (A *)wt_dev_alloc(sizeof(A));
    for (int r = 0; r < 5; r++) {
        for (size_t i = 0; i < n + start; i++) x[i] = (float)wt_rand_unit();
        const size_t p = wt_rand32() % n, q = wt_rand32() % n;
        x[start + p] = x[start + q] = 2.0f;
        wt_to_dev(d_x, x, (n + start) * sizeof(float));
        const A got = reduce_once(plan, d_x + start, n, d_a, warpred_op_argmax(), warpred_xf_arg());
        const long long want = (long long)(p < q ? p : q);
        if (got.value != 2.0f || got.index != want)
            fail_msg("argmax: got {%g, %lld}, expected {2, %lld}", (double)got.value, got.index, want);
    }
    wt_device_plan_free(plan);
}
#endif

#ifdef WT_HAVE_WELFORD
/* Welford mean and variance of doubles against a two-pass reference. */
static void test_welford_through_transform(void **state)
{
    WT_NEED_GPU(state);
    warpred_device_plan *plan = wt_device_plan(0);
    const size_t n = ((size_t)1 << 20) + 7, start = 1;
    double *x = (double *)wt_host_alloc((n + start) * sizeof(double)),
           *d_x = (double *)wt_dev_alloc((n + start) * sizeof(double));
    typedef warpred_welford<double> W;
    W *d_w = (W *)wt_dev_alloc(sizeof(W));
    for (size_t i = 0; i < n + start; i++) x[i] = 1e6 + wt_rand_unit() * 1e-2;
    wt_to_dev(d_x, x, (n + start) * sizeof(double));
    long double mean = 0, m2 = 0;
    for (size_t i = start; i < n + start; i++) mean += x[i];
    mean /= n;
    for (size_t i = start; i < n + start; i++) m2 += (x[i] - mean) * (x[i] - mean);
    const W got = reduce_once(plan, d_x + start, n, d_w, warpred_op_welford(), warpred_xf_welford<>());
    if (got.count != (long long)n) fail_msg("welford count %lld, expected %zu", got.count, n);
    if (fabsl(got.mean - mean) > 1e-12L * mean || fabsl(got.m2 - m2) > 1e-9L * m2)
        fail_msg("welford: mean %.17g m2 %.17g, expected %.17Lg %.17Lg", got.mean, got.m2, mean, m2);
    wt_device_plan_free(plan);
}
#endif

/* ------------------------------------------------------------------------------------------
   n above 2^31
   ------------------------------------------------------------------------------------------ */

__global__ void k_fill_pattern(int *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (int)(i % 2001) - 1000 + (int)((i >> 20) & 7);
}

static long long pattern_at(size_t i) { return (long long)(i % 2001) - 1000 + (long long)((i >> 20) & 7); }

/* 2^31 + 12345 ints (8.6 GB), exact long long sum, at two alignments. Skipped under `make
   sanitize` and when the GPU has too little free memory. */
static void test_above_2_31(void **state)
{
    WT_NEED_GPU(state);
    const size_t n = ((size_t)1 << 31) + 12345;
    if (wt_quick()) {
        printf("[ INFO     ] n > 2^31 case skipped under the sanitizer (8.6 GB; it runs in make test)\n");
        skip();
    }
    size_t free_b, total_b;
    WT_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < (n + 1) * sizeof(int) + ((size_t)1 << 28)) {
        printf("[ INFO     ] n > 2^31 case skipped: needs %zu bytes of GPU memory, %zu free\n", (n + 1) * sizeof(int),
               free_b);
        skip();
    }
    warpred_device_plan *plan = wt_device_plan(0);
    int *d_x = (int *)wt_dev_alloc((n + 1) * sizeof(int));
    long long *d_ll = (long long *)wt_dev_alloc(sizeof(long long));
    k_fill_pattern<<<4096, 256>>>(d_x, n + 1);
    WT_LAUNCHED();
    long long total = 0; /* x[0..n] */
    for (size_t i = 0; i <= n; i++) total += pattern_at(i);
    for (int offset = 0; offset < 2; offset++) {
        const long long want = offset ? total - pattern_at(0) : total - pattern_at(n);
        const long long got = reduce_once(plan, d_x + offset, n, d_ll, warpred_op_sum(), warpred_xf_to<long long>());
        if (got != want) fail_msg("n = %zu, offset %d: got %lld, expected %lld", n, offset, got, want);
    }
    wt_device_plan_free(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_rejects_bad_arguments),
        WT_TEST(test_doc_snippet),
        WT_TEST(test_errors_launch_nothing),
        WT_TEST(test_identity_for_empty_input),
        WT_TEST(test_int_sums_exact),
        WT_TEST(test_float_sums),
        WT_TEST(test_sum_of_negative_zeros),
        WT_TEST(test_minmax_nan_and_zeros),
        WT_TEST(test_16bit_inputs),
        WT_TEST(test_8bit_inputs),
        WT_TEST(test_8byte_inputs),
        WT_TEST(test_transforms),
        WT_TEST(test_bitwise_deterministic),
        WT_TEST(test_many_calls_no_reset),
        WT_TEST(test_graph_capture),
        WT_TEST(test_grids_and_types_alternate),
        WT_TEST(test_graph_replays_between_direct_calls),
#ifdef WT_HAVE_ARGMINMAX
        WT_TEST(test_argmax_through_transform),
#endif
#ifdef WT_HAVE_WELFORD
        WT_TEST(test_welford_through_transform),
#endif
        WT_TEST(test_above_2_31),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
