/* The online softmax pair (op_softmax.cuh): (max, sum of exp(x - max)) through the warp, block
   and grid reductions, float and double, against a long double reference (wt_compound.h):
   random rows, rows containing -inf, rows of only -inf (must give exactly (-inf, 0), never NaN),
   rows with +inf (max +inf, sum = the number of +inf inputs), rows with NaN (max the canonical
   NaN, sum NaN), partial warps and _valid blocks. */
#include <warpred/op_softmax.cuh>
#include <warpred/warp_reduce.cuh>
#include <warpred/block_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include "wt_compound.h"
#include "wt_kernels.h"

enum {
    R_RANDOM,    /* U(-20, 20) */
    R_SOME_NINF, /* random with a third of the entries -inf */
    R_ALL_NINF,  /* -inf everywhere */
    R_PINF,      /* random with one or a few +inf */
    R_NAN,       /* random with a NaN (and sometimes +-inf too) */
    R_WIDE,      /* values spread over [-80, 80] (float exp underflows for many terms) */
    R_COUNT
};
static const char *const r_name[] = {"random", "some -inf", "all -inf", "+inf", "NaN", "wide"};

static const double RANGE = 20, WIDE = 80;

template <typename F> static void fill_row(F *x, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = (F)((wt_rand_unit() * 2 - 1) * (kind == R_WIDE ? WIDE : RANGE));
        if (kind == R_ALL_NINF || (kind == R_SOME_NINF && wt_rand_below(3) == 0)) x[i] = (F)-INFINITY;
        if (kind == R_PINF && wt_rand_below(16) == 0) x[i] = (F)INFINITY;
        if (kind == R_NAN && wt_rand_below(16) == 0)
            x[i] = wt_rand_below(4) ? (F)NAN : (F)(wt_rand_below(2) ? INFINITY : -INFINITY);
        if (kind == R_NAN && wt_rand_below(32) == 0) x[i] = wt_nan_with<F>(wt_rand64(), wt_rand_below(2));
    }
}

template <typename F> static double unit_roundoff(void) { return sizeof(F) == 4 ? 0x1p-24 : 0x1p-53; }
template <typename F> static const char *fname(void) { return sizeof(F) == 4 ? "float" : "double"; }

/* Checks (max, sum) against the inputs x[pos[0..k-1]]. */
template <typename F>
static int check_softmax(const F *x, const int *pos, int k, warpred_softmax<F> got, char *why, size_t len)
{
    F *row = (F *)calloc(k, sizeof(F)); /* calloc: gcc cannot see that k >= 1 */
    double lo = INFINITY;
    for (int j = 0; j < k; j++) {
        row[j] = x[pos[j]];
        if (isfinite((double)row[j]) && (double)row[j] < lo) lo = (double)row[j];
    }
    const wt_softmax_ref ref = wt_softmax_model(row, k);
    const double gm = (double)got.max, gs = (double)got.sum;
    int ok = 1;
    if (ref.has_nan) {
        if (k == 1) { /* a single value comes back as softmax_of made it: NaN max, its own sum */
            ok = isnan(gm);
        } else {
            ok = wt_type<F>::bits(got.max) == wt_type<F>::nan_bits() && isnan(gs);
        }
        if (!ok)
            snprintf(why, len, "NaN input: got (%g [bits %llx], %g), expected (canonical NaN, NaN)", gm,
                     (unsigned long long)wt_type<F>::bits(got.max), gs);
    } else if (ref.pinf) {
        ok = gm == INFINITY && gs == (double)ref.pinf;
        if (!ok) snprintf(why, len, "%d +inf inputs: got (%g, %.17g), expected (+inf, %d)", ref.pinf, gm, gs, ref.pinf);
    } else if (ref.max == -INFINITY) {
        ok = gm == -INFINITY && gs == 0;
        if (!ok) snprintf(why, len, "only -inf inputs: got (%g, %g), expected (-inf, 0)", gm, gs);
    } else {
        const double range = ref.max - lo;
        const double tol = wt_softmax_sum_tol(unit_roundoff<F>(), range < 200 ? range : 200, k);
        ok = gm == ref.max && fabs(gs - ref.sum) <= tol * ref.sum;
        if (!ok)
            snprintf(why, len, "%d values: got (%.9g, %.17g), expected (%.9g, %.17g) (sum tolerance %.3g relative)", k,
                     gm, gs, ref.max, ref.sum, tol);
    }
    free(row);
    return ok;
}

template <typename F> static int same_softmax(warpred_softmax<F> a, warpred_softmax<F> b)
{
    return wt_type<F>::bits(a.max) == wt_type<F>::bits(b.max) && wt_type<F>::bits(a.sum) == wt_type<F>::bits(b.sum);
}

/* ------------------------------------------------------------------------------------------
   softmax_of and the merge rules on single pairs
   ------------------------------------------------------------------------------------------ */

/* out[0..5]: softmax_of(3), of(-inf), of(+inf); op on (-inf,0)x(-inf,0); op on (1,1)x(-inf,0);
   op on (+inf,1)x(+inf,1); the identity */
template <typename F> __global__ void k_rules(warpred_softmax<F> *out)
{
    const F inf = (F)INFINITY;
    const warpred_softmax<F> e = warpred_make_softmax(-inf);
    out[0] = warpred_make_softmax((F)3);
    out[1] = e;
    out[2] = warpred_make_softmax(inf);
    out[3] = warpred_op_softmax()(e, e);
    out[4] = warpred_op_softmax()(warpred_make_softmax((F)1), e);
    out[5] = warpred_op_softmax()(warpred_make_softmax(inf), warpred_make_softmax(inf));
    out[6] = warpred_op_softmax::identity<warpred_softmax<F>>();
    out[7] = warpred_op_softmax()(warpred_make_softmax((F)2), warpred_make_softmax((F)NAN));
}

template <typename F> static void run_rules(void)
{
    warpred_softmax<F> out[8], *d = (warpred_softmax<F> *)wt_dev_alloc(sizeof out);
    k_rules<F><<<1, 1>>>(d);
    WT_LAUNCHED();
    wt_to_host(out, d, sizeof out);
    wt_dev_free(d);
    assert_true(out[0].max == (F)3 && out[0].sum == (F)1);
    assert_true(out[1].max == (F)-INFINITY && out[1].sum == 0 && !isnan((double)out[1].sum));
    assert_true(out[2].max == (F)INFINITY && out[2].sum == (F)1);
    assert_true(out[3].max == (F)-INFINITY && out[3].sum == 0 && !isnan((double)out[3].sum));
    assert_true(out[4].max == (F)1 && out[4].sum == (F)1);
    assert_true(out[5].max == (F)INFINITY && out[5].sum == (F)2);
    assert_true(out[6].max == (F)-INFINITY && out[6].sum == 0);
    assert_true(wt_type<F>::bits(out[7].max) == wt_type<F>::nan_bits() && isnan((double)out[7].sum));
}

static void test_rules(void **state)
{
    WT_NEED_GPU(state);
    run_rules<float>();
    run_rules<double>();
}

/* ------------------------------------------------------------------------------------------
   warp level
   ------------------------------------------------------------------------------------------ */

template <int W, typename F>
__global__ void k_warp(const F *x, const int *modes, warpred_softmax<F> *red, warpred_softmax<F> *all)
{
    const int i = blockIdx.x * 32 + threadIdx.x;
    wt_warp_calls<W>(warpred_make_softmax(x[i]), warpred_op_softmax(), modes[blockIdx.x], red + i, all + i);
}

template <int W, typename F> static void run_warp(int kind)
{
    typedef warpred_softmax<F> S;
    const size_t n = WT_MODE_WARPS * 32;
    F *x = (F *)wt_host_alloc(n * sizeof(F)), *d_x = (F *)wt_dev_alloc(n * sizeof(F));
    fill_row(x, n, kind);
    wt_to_dev(d_x, x, n * sizeof(F));
    char what[120];
    snprintf(what, sizeof what, "softmax %s, %s rows", fname<F>(), r_name[kind]);
    wt_run_warps<S>(
        what, W,
        [&](const int *d_modes, S *d_red, S *d_all) {
            k_warp<W, F><<<WT_MODE_WARPS, 32>>>(d_x, d_modes, d_red, d_all);
        },
        [&](const int *pos, int k, S got, char *why, size_t len) { return check_softmax(x, pos, k, got, why, len); },
        same_softmax<F>);
    wt_dev_free(d_x);
    wt_host_free(x);
}

static void test_warp(void **state)
{
    WT_NEED_GPU(state);
    for (int kind = 0; kind < R_COUNT; kind++) {
        for (int rep = 0; rep < 2; rep++) {
            run_warp<1, float>(kind);
            run_warp<2, float>(kind);
            run_warp<8, float>(kind);
            run_warp<32, float>(kind);
        }
        run_warp<4, double>(kind);
        run_warp<32, double>(kind);
    }
}

/* ------------------------------------------------------------------------------------------
   block level
   ------------------------------------------------------------------------------------------ */

template <typename F> __global__ void k_block(const F *x, int valid, warpred_softmax<F> *red, warpred_softmax<F> *all)
{
    const int tid = wt_block_tid(), i = blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + tid;
    wt_block_calls(warpred_make_softmax(x[i]), warpred_op_softmax(), valid, tid, red + blockIdx.x, all + i);
}

template <int BT, typename F>
__global__ void k_block_static(const F *x, int valid, warpred_softmax<F> *red, warpred_softmax<F> *all)
{
    const int tid = wt_block_tid(), i = blockIdx.x * BT + tid;
    wt_block_calls_static<BT>(warpred_make_softmax(x[i]), warpred_op_softmax(), valid, tid, red + blockIdx.x, all + i);
}

/* valid > 0: the inputs past the first `valid` are NaN: counting one shows. */
template <typename F>
static void run_block(dim3 shape, int blocks, int kind, int valid,
                      void (*kernel)(const F *, int, warpred_softmax<F> *, warpred_softmax<F> *) = 0)
{
    typedef warpred_softmax<F> S;
    const int nthreads = shape.x * shape.y * shape.z, counted = valid > 0 ? valid : nthreads;
    const size_t n = (size_t)blocks * nthreads;
    F *x = (F *)wt_host_alloc(n * sizeof(F)), *d_x = (F *)wt_dev_alloc(n * sizeof(F));
    fill_row(x, n, kind);
    for (size_t i = 0; i < n; i++)
        if ((int)(i % nthreads) >= counted) x[i] = (F)NAN;
    wt_to_dev(d_x, x, n * sizeof(F));
    char what[120];
    snprintf(what, sizeof what, "softmax %s, %s rows", fname<F>(), r_name[kind]);
    wt_run_blocks<S>(
        what, shape, blocks, counted,
        [&](S *d_red, S *d_all) {
            if (kernel) kernel<<<blocks, shape>>>(d_x, valid, d_red, d_all);
            else
                k_block<F><<<blocks, shape>>>(d_x, valid, d_red, d_all);
        },
        [&](const int *pos, int k, S got, char *why, size_t len) { return check_softmax(x, pos, k, got, why, len); },
        same_softmax<F>);
    wt_dev_free(d_x);
    wt_host_free(x);
}

static const dim3 wt_shapes[] = {dim3(1),      dim3(2),          dim3(17),      dim3(32),   dim3(33),
                                 dim3(96),     dim3(255),        dim3(1000),    dim3(1024), dim3(7, 5, 3),
                                 dim3(33, 31), dim3(10, 10, 10), dim3(1, 1, 64)};
enum { NSHAPES = sizeof wt_shapes / sizeof wt_shapes[0] };

template <typename F> static void run_block_shapes(void)
{
    for (int s = 0; s < NSHAPES; s++) {
        const int nthreads = wt_shapes[s].x * wt_shapes[s].y * wt_shapes[s].z;
        for (int kind = 0; kind < R_COUNT; kind++) run_block<F>(wt_shapes[s], 3, kind, 0);
        const int valid[] = {1, nthreads / 2 + 1, nthreads > 1 ? nthreads - 1 : 1};
        for (int k = 0; k < 3; k++) run_block<F>(wt_shapes[s], 3, k == 1 ? R_SOME_NINF : R_RANDOM, valid[k]);
    }
}

static void test_block(void **state)
{
    WT_NEED_GPU(state);
    run_block_shapes<float>();
    run_block_shapes<double>();
    for (int n = 1; n <= 1024; n += wt_quick() ? 97 : 13) run_block<float>(dim3(n), 2, n % R_COUNT, 0);
}

static void test_block_static(void **state)
{
    WT_NEED_GPU(state);
    for (int kind = 0; kind < R_COUNT; kind++) {
        run_block<float>(dim3(256), 3, kind, 0, k_block_static<256, float>);
        run_block<float>(dim3(7, 5, 3), 3, kind, 0, k_block_static<105, float>);
        run_block<double>(dim3(1024), 2, kind, 0, k_block_static<1024, double>);
    }
    run_block<float>(dim3(256), 3, R_SOME_NINF, 200, k_block_static<256, float>);
}

/* Two softmax reductions and a max back to back with no caller barrier. */
__global__ void k_back_to_back(const float *x, const double *y, warpred_softmax<float> *o1, warpred_softmax<double> *o2,
                               float *o3)
{
    const int n = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = blockIdx.x * n + tid;
    warpred_softmax<float> a = warpred_block_allreduce(warpred_make_softmax(x[i]), warpred_op_softmax());
    warpred_softmax<double> b = warpred_block_reduce(warpred_make_softmax(y[i]), warpred_op_softmax());
    float c = warpred_block_reduce(x[i], warpred_op_max());
    if (tid == 0) {
        o2[blockIdx.x] = b;
        o3[blockIdx.x] = c;
    }
    if (tid == n - 1) o1[blockIdx.x] = a;
}

static void test_block_back_to_back(void **state)
{
    WT_NEED_GPU(state);
    enum { BLOCKS = 4 };
    wt_each_back_to_back_shape(5, [&](dim3 shape, int n) {
        const size_t count = (size_t)BLOCKS * n;
        float *x = (float *)wt_host_alloc(count * sizeof(float));
        double *y = (double *)wt_host_alloc(count * sizeof(double));
        fill_row(x, count, R_SOME_NINF);
        fill_row(y, count, R_RANDOM);
        float *d_x = (float *)wt_dev_copy(x, count * sizeof(float)),
              *d_o3 = (float *)wt_dev_alloc(BLOCKS * sizeof(float));
        double *d_y = (double *)wt_dev_copy(y, count * sizeof(double));
        warpred_softmax<float> *d_o1 = (warpred_softmax<float> *)wt_dev_alloc(BLOCKS * sizeof(warpred_softmax<float>));
        warpred_softmax<double> *d_o2 =
            (warpred_softmax<double> *)wt_dev_alloc(BLOCKS * sizeof(warpred_softmax<double>));
        k_back_to_back<<<BLOCKS, shape>>>(d_x, d_y, d_o1, d_o2, d_o3);
        WT_LAUNCHED();
        warpred_softmax<float> o1[BLOCKS];
        warpred_softmax<double> o2[BLOCKS];
        float o3[BLOCKS];
        wt_to_host(o1, d_o1, sizeof o1);
        wt_to_host(o2, d_o2, sizeof o2);
        wt_to_host(o3, d_o3, sizeof o3);
        wt_each_block(BLOCKS, n, [&](int b, const int *pos) {
            char why[400];
            if (!check_softmax(x, pos, n, o1[b], why, sizeof why))
                fail_msg("back to back #1, block size %d: %s", n, why);
            if (!check_softmax(y, pos, n, o2[b], why, sizeof why))
                fail_msg("back to back #2, block size %d: %s", n, why);
            if (!wt_ref_check(WT_MAX, x, pos, n, o3[b], why, sizeof why))
                fail_msg("back to back #3 (float max), block size %d: %s", n, why);
        });
        wt_host_free(x);
        wt_host_free(y);
        wt_dev_free(d_x);
        wt_dev_free(d_y);
        wt_dev_free(d_o1);
        wt_dev_free(d_o2);
        wt_dev_free(d_o3);
    });
}

/* ------------------------------------------------------------------------------------------
   grid level
   ------------------------------------------------------------------------------------------ */

template <typename F> __global__ void k_grid(const F *x, warpred_grid_scratch scratch, warpred_softmax<F> *out)
{
    const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    warpred_grid_reduce(warpred_make_softmax(x[(size_t)blockIdx.x * nthreads + tid]), warpred_op_softmax(), scratch,
                        out);
}

template <typename F> static void run_grid(int blocks, dim3 shape, int kind)
{
    typedef warpred_softmax<F> S;
    const int nthreads = shape.x * shape.y * shape.z;
    const size_t n = (size_t)blocks * nthreads;
    F *x = (F *)wt_host_alloc(n * sizeof(F)), *d_x = (F *)wt_dev_alloc(n * sizeof(F));
    int *pos = (int *)wt_host_alloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++) pos[i] = (int)i;
    fill_row(x, n, kind);
    wt_to_dev(d_x, x, n * sizeof(F));
    char what[160];
    snprintf(what, sizeof what, "softmax %s, %s rows, grid of %d x (%u,%u,%u)", fname<F>(), r_name[kind], blocks,
             shape.x, shape.y, shape.z);
    wt_run_grid<S>(
        what, blocks, 3, NULL,
        [&](warpred_grid_scratch scratch, S *d_out) { k_grid<F><<<blocks, shape>>>(d_x, scratch, d_out); },
        [&](S got, char *why, size_t len) { return check_softmax(x, pos, (int)n, got, why, len); }, same_softmax<F>);
    wt_dev_free(d_x);
    wt_host_free(x);
    wt_host_free(pos);
}

static void test_grid(void **state)
{
    WT_NEED_GPU(state);
    const int blocks[] = {1, 2, 7, 132, 300, 2000};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (int kind = 0; kind < R_COUNT; kind++) {
            run_grid<float>(blocks[b], dim3(128), kind);
            if (kind != R_NAN || b % 2) run_grid<double>(blocks[b], dim3(3, 11), kind);
        }
}

/* The usage snippet of op_softmax.cuh (the kernel softmax_rows), as the build copies it from the
   manual (scripts/snippets.py). */
#include "snippets/op_softmax.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float x[3] = {1, 2, 3};
    const double want[3] = {0.0900306, 0.244728, 0.665241};
    float *d_x = (float *)wt_dev_alloc(sizeof x), *d_y = (float *)wt_dev_alloc(sizeof x), y[3];
    wt_to_dev(d_x, x, sizeof x);
    const int threads[] = {1, 2, 3, 32, 96};
    for (int t = 0; t < 5; t++) {
        wt_launch_into(y, d_y, sizeof y, [&] { softmax_rows<<<1, threads[t]>>>(d_x, 3, d_y); });
        for (int c = 0; c < 3; c++)
            if (fabs(y[c] - want[c]) > 1e-6)
                fail_msg("snippet with %d threads: y[%d] = %.9g, expected %.9g", threads[t], c, y[c], want[c]);
    }
    wt_dev_free(d_x);
    wt_dev_free(d_y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check),
        WT_TEST(test_rules),
        WT_TEST(test_doc_snippet),
        WT_TEST(test_warp),
        WT_TEST(test_block),
        WT_TEST(test_block_static),
        WT_TEST(test_block_back_to_back),
        WT_TEST(test_grid),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
