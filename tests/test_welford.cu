/* Welford mean / variance (op_welford.cuh) through the warp, block and grid reductions, float
   and double, against a two-pass reference (long double, wt_compound.h): counts exact; lanes
   holding an empty partial (count 0) and the _valid / _partial forms; a segment of only empty
   partials gives exactly {0, 0, 0}, one value exactly {x, 0, 1}; every block size 1..1024; the
   cancellation case (a large offset plus small noise), where E[x^2] - E[x]^2 is printed for
   contrast; the finishing helpers (mean, var_pop, var_sample) on host and device including
   count 0 and 1. */
#include <warpred/op_welford.cuh>
#include <warpred/warp_reduce.cuh>
#include <warpred/block_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include "wt_compound.h"
#include "wt_kernels.h"

/* ------------------------------------------------------------------------------------------
   inputs and the check
   ------------------------------------------------------------------------------------------ */

enum {
    D_SCALED,   /* U(-1, 1) times 10^k, k in -3..3 per run */
    D_OFFSET,   /* the cancellation case: 1e6 + U(-1e-2, 1e-2) in double; 1e3 + U(-1e-2, 1e-2) in float */
    D_CONSTANT, /* one value everywhere: m2 must come out (close to) 0, never negative */
    D_COUNT
};
static const char *const d_name[] = {"scaled uniform", "large offset + small noise", "constant"};

/* In float, 1e6 + 1e-2 noise is not representable (the spacing at 1e6 is 0.0625): every input
   would round to 1e6. 1e3 keeps the noise resolvable (~160 float steps) with the same character:
   offset/noise = 1e5, beyond what E[x^2] - E[x]^2 survives in float. */
template <typename F> static double offset_of(void) { return sizeof(F) == 4 ? 1e3 : 1e6; }

template <typename F> static void fill_values(F *x, size_t n, int data)
{
    const double scale = pow(10.0, wt_rand_below(7) - 3);
    const F c = (F)((wt_rand_unit() * 2 - 1) * 1000);
    for (size_t i = 0; i < n; i++) {
        if (data == D_SCALED) x[i] = (F)((wt_rand_unit() * 2 - 1) * scale);
        else if (data == D_OFFSET)
            x[i] = (F)(offset_of<F>() + (wt_rand_unit() * 2 - 1) * 1e-2);
        else
            x[i] = c;
    }
}

template <typename F> static double unit_roundoff(void) { return sizeof(F) == 4 ? 0x1p-24 : 0x1p-53; }

/* Checks a Welford result against the present values among x[pos[0..k-1]]. */
template <typename F>
static int check_welford(const F *x, const unsigned char *present, const int *pos, int k, warpred_welford<F> got,
                         char *why, size_t len)
{
    F *vals = (F *)calloc(k ? k : 1, sizeof(F));
    long long m = 0;
    for (int j = 0; j < k; j++)
        if (!present || present[pos[j]]) vals[m++] = x[pos[j]];
    const wt_moments ref = wt_two_pass(vals, m);
    int ok = 1;
    if (got.count != m) {
        snprintf(why, len, "count %lld, expected %lld", got.count, m);
        ok = 0;
    } else if (m == 0) { /* only empty partials: the empty value itself */
        if (wt_type<F>::bits(got.mean) != 0 || wt_type<F>::bits(got.m2) != 0) {
            snprintf(why, len, "no values: got mean %g m2 %g (bits %llx, %llx), expected exactly {0, 0, 0}",
                     (double)got.mean, (double)got.m2, (unsigned long long)wt_type<F>::bits(got.mean),
                     (unsigned long long)wt_type<F>::bits(got.m2));
            ok = 0;
        }
    } else if (m == 1) { /* merging with empty partials returns the other side unchanged */
        if (wt_type<F>::bits(got.mean) != wt_type<F>::bits(vals[0]) || got.m2 != 0) {
            snprintf(why, len, "one value %.9g: got mean %.9g m2 %g, expected exactly {x, 0, 1}", (double)vals[0],
                     (double)got.mean, (double)got.m2);
            ok = 0;
        }
    } else {
        const double u = unit_roundoff<F>(), levels = log2((double)m) + 2;
        const double mu = (double)ref.mean, sd = sqrt((double)(ref.m2 / m));
        const double mean_tol = 4 * levels * u * (fabs(mu) + sd);
        const double m2_tol = wt_welford_var_tol(u, mu, sd, m) * (double)ref.m2 + (double)m * mean_tol * mean_tol;
        if (!(fabs((double)got.mean - mu) <= mean_tol)) {
            snprintf(why, len, "%lld values: mean %.17g, expected %.17g (tolerance %.3g)", m, (double)got.mean, mu,
                     mean_tol);
            ok = 0;
        } else if (!(fabs((double)got.m2 - (double)ref.m2) <= m2_tol) || got.m2 < 0) {
            snprintf(why, len, "%lld values: m2 %.17g, expected %.17g (tolerance %.3g, relative %.3g)", m,
                     (double)got.m2, (double)ref.m2, m2_tol, m2_tol / (double)ref.m2);
            ok = 0;
        }
    }
    free(vals);
    return ok;
}

/* check_welford over x and present as the check of the wt_run_ drivers. */
template <typename F> static auto welford_check(const F *x, const unsigned char *present)
{
    return [x, present](const int *pos, int k, warpred_welford<F> got, char *why, size_t len) {
        return check_welford(x, present, pos, k, got, why, len);
    };
}

template <typename F> static int same_welford(warpred_welford<F> a, warpred_welford<F> b)
{
    return wt_type<F>::bits(a.mean) == wt_type<F>::bits(b.mean) && wt_type<F>::bits(a.m2) == wt_type<F>::bits(b.m2) &&
           a.count == b.count;
}

template <typename F> static const char *fname(void) { return sizeof(F) == 4 ? "float" : "double"; }

/* One value per lane: present ? warpred_make_welford(x) : the empty partial. */
template <typename F> __device__ warpred_welford<F> lane_value(const F *x, const unsigned char *present, int i)
{
    return present[i] ? warpred_make_welford(x[i]) : warpred_op_welford::identity<warpred_welford<F>>();
}

/* ------------------------------------------------------------------------------------------
   host: the finishing helpers are __host__ __device__
   ------------------------------------------------------------------------------------------ */

static void test_finishing_helpers_host(void **state)
{
    (void)state;
    warpred_welford<double> w = {5.0, 32.0, 8}; /* {2, 4, 4, 4, 5, 5, 7, 9} */
    assert_true(warpred_welford_mean(w) == 5.0 && warpred_welford_var_pop(w) == 4.0);
    assert_true(warpred_welford_var_sample(w) == 32.0 / 7);
    warpred_welford<float> one = {3.5f, 0.0f, 1}, none = {0.0f, 0.0f, 0};
    assert_true(warpred_welford_mean(one) == 3.5f && warpred_welford_var_pop(one) == 0.0f);
    assert_true(isnan(warpred_welford_var_sample(one)));
    assert_true(isnan(warpred_welford_mean(none)) && isnan(warpred_welford_var_pop(none)) &&
                isnan(warpred_welford_var_sample(none)));
    warpred_welford<double> dnone = {0.0, 0.0, 0}, two = {1.0, 2.0, 2};
    assert_true(isnan(warpred_welford_mean(dnone)) && isnan(warpred_welford_var_sample(dnone)));
    assert_true(warpred_welford_var_pop(two) == 1.0 && warpred_welford_var_sample(two) == 2.0);
}

/* ------------------------------------------------------------------------------------------
   warp level
   ------------------------------------------------------------------------------------------ */

template <int W, typename F>
__global__ void k_warp(const F *x, const unsigned char *present, const int *modes, warpred_welford<F> *red,
                       warpred_welford<F> *all)
{
    const int i = blockIdx.x * 32 + threadIdx.x;
    wt_warp_calls<W>(lane_value(x, present, i), warpred_op_welford(), modes[blockIdx.x], red + i, all + i);
}

/* empties: 0 none, 1 a quarter of the lanes, 2 most lanes (many segments with 0 or 1 value) */
template <int W, typename F> static void run_warp(int data, int empties)
{
    typedef warpred_welford<F> Wf;
    const size_t n = WT_MODE_WARPS * 32;
    F *x = (F *)wt_host_alloc(n * sizeof(F)), *d_x = (F *)wt_dev_alloc(n * sizeof(F));
    unsigned char *present = (unsigned char *)wt_host_alloc(n), *d_present = (unsigned char *)wt_dev_alloc(n);
    fill_values(x, n, data);
    for (size_t i = 0; i < n; i++)
        present[i] = empties == 0 ? 1 : empties == 1 ? wt_rand_below(4) != 0 : wt_rand_below(8) == 0;
    wt_to_dev(d_x, x, n * sizeof(F));
    wt_to_dev(d_present, present, n);
    char what[120];
    snprintf(what, sizeof what, "welford %s, %s, empties %d", fname<F>(), d_name[data], empties);
    wt_run_warps<Wf>(
        what, W,
        [&](const int *d_modes, Wf *d_red, Wf *d_all) {
            k_warp<W, F><<<WT_MODE_WARPS, 32>>>(d_x, d_present, d_modes, d_red, d_all);
        },
        welford_check(x, present), same_welford<F>);
    wt_dev_free(d_x);
    wt_dev_free(d_present);
    wt_host_free(x);
    wt_host_free(present);
}

template <int W, typename F> static void run_warp_all(void)
{
    for (int data = 0; data < D_COUNT; data++)
        for (int empties = 0; empties < 3; empties++) run_warp<W, F>(data, empties);
}

static void test_warp_float(void **state)
{
    WT_NEED_GPU(state);
    run_warp_all<1, float>();
    run_warp_all<2, float>();
    run_warp_all<8, float>();
    run_warp_all<32, float>();
}

static void test_warp_double(void **state)
{
    WT_NEED_GPU(state);
    run_warp_all<4, double>();
    run_warp_all<32, double>();
}

/* ------------------------------------------------------------------------------------------
   block level
   ------------------------------------------------------------------------------------------ */

template <typename F>
__global__ void k_block(const F *x, const unsigned char *present, int valid, warpred_welford<F> *red,
                        warpred_welford<F> *all)
{
    const int tid = wt_block_tid(), i = blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + tid;
    wt_block_calls(lane_value(x, present, i), warpred_op_welford(), valid, tid, red + blockIdx.x, all + i);
}

template <int BT, typename F>
__global__ void k_block_static(const F *x, const unsigned char *present, int valid, warpred_welford<F> *red,
                               warpred_welford<F> *all)
{
    const int tid = wt_block_tid(), i = blockIdx.x * BT + tid;
    wt_block_calls_static<BT>(lane_value(x, present, i), warpred_op_welford(), valid, tid, red + blockIdx.x, all + i);
}

/* valid > 0: values past the first `valid` are huge and present, so counting one shows. */
template <typename F>
static void run_block(dim3 shape, int blocks, int data, int empties, int valid,
                      void (*kernel)(const F *, const unsigned char *, int, warpred_welford<F> *,
                                     warpred_welford<F> *) = 0)
{
    typedef warpred_welford<F> Wf;
    const int nthreads = shape.x * shape.y * shape.z, counted = valid > 0 ? valid : nthreads;
    const size_t n = (size_t)blocks * nthreads;
    F *x = (F *)wt_host_alloc(n * sizeof(F)), *d_x = (F *)wt_dev_alloc(n * sizeof(F));
    unsigned char *present = (unsigned char *)wt_host_alloc(n), *d_present = (unsigned char *)wt_dev_alloc(n);
    fill_values(x, n, data);
    for (size_t i = 0; i < n; i++) {
        present[i] = empties == 0 ? 1 : empties == 1 ? wt_rand_below(4) != 0 : wt_rand_below(64) == 0;
        if ((int)(i % nthreads) >= counted) {
            x[i] = (F)1e30;
            present[i] = 1;
        }
    }
    wt_to_dev(d_x, x, n * sizeof(F));
    wt_to_dev(d_present, present, n);
    char what[120];
    snprintf(what, sizeof what, "welford %s, %s, empties %d", fname<F>(), d_name[data], empties);
    wt_run_blocks<Wf>(
        what, shape, blocks, counted,
        [&](Wf *d_red, Wf *d_all) {
            if (kernel) kernel<<<blocks, shape>>>(d_x, d_present, valid, d_red, d_all);
            else
                k_block<F><<<blocks, shape>>>(d_x, d_present, valid, d_red, d_all);
        },
        welford_check(x, present), same_welford<F>);
    wt_dev_free(d_x);
    wt_dev_free(d_present);
    wt_host_free(x);
    wt_host_free(present);
}

static void test_block_every_size(void **state)
{
    WT_NEED_GPU(state);
    for (int n = 1; n <= 1024; n++) {
        const int edge = n <= 66 || n % 32 <= 1 || n % 32 == 31 || n >= 1000;
        if (wt_quick() && !edge && n % 37 != 0) continue;
        run_block<float>(dim3(n), 3, n % D_COUNT, n % 3, 0);
        if (n % 3 == 0 || edge) run_block<double>(dim3(n), 2, (n / 3) % D_COUNT, (n / 2) % 3, 0);
    }
}

static const dim3 wt_shapes[] = {dim3(1),       dim3(17),     dim3(33),     dim3(96),         dim3(1000),    dim3(1024),
                                 dim3(7, 5, 3), dim3(32, 32), dim3(33, 31), dim3(10, 10, 10), dim3(3, 3, 64)};
enum { NSHAPES = sizeof wt_shapes / sizeof wt_shapes[0] };

template <typename F> static void run_block_shapes(void)
{
    for (int s = 0; s < NSHAPES; s++) {
        const int nthreads = wt_shapes[s].x * wt_shapes[s].y * wt_shapes[s].z;
        for (int data = 0; data < D_COUNT; data++) run_block<F>(wt_shapes[s], 3, data, s % 3, 0);
        const int valid[] = {1, 2, nthreads / 2 + 1, nthreads > 1 ? nthreads - 1 : 1};
        for (int k = 0; k < 4; k++)
            run_block<F>(wt_shapes[s], 3, D_SCALED, k % 3, valid[k] <= nthreads ? valid[k] : nthreads);
    }
}

static void test_block_shapes(void **state)
{
    WT_NEED_GPU(state);
    run_block_shapes<float>();
    run_block_shapes<double>();
}

static void test_block_static(void **state)
{
    WT_NEED_GPU(state);
    for (int data = 0; data < D_COUNT; data++) {
        run_block<float>(dim3(256), 4, data, 1, 0, k_block_static<256, float>);
        run_block<float>(dim3(7, 5, 3), 4, data, 2, 0, k_block_static<105, float>);
        run_block<double>(dim3(1024), 3, data, 0, 0, k_block_static<1024, double>);
    }
    run_block<float>(dim3(256), 3, D_SCALED, 1, 129, k_block_static<256, float>);
    run_block<double>(dim3(1024), 3, D_OFFSET, 0, 1000, k_block_static<1024, double>);
}

/* Welford float, then a double one, then a float sum, then Welford float again, with no
   barrier of the caller's in between. */
__global__ void k_back_to_back(const float *x, const double *y, warpred_welford<float> *o1, warpred_welford<double> *o2,
                               float *o3, warpred_welford<float> *o4)
{
    const int n = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = blockIdx.x * n + tid;
    warpred_welford<float> a = warpred_block_allreduce(warpred_make_welford(x[i]), warpred_op_welford());
    warpred_welford<double> b = warpred_block_reduce(warpred_make_welford(y[i]), warpred_op_welford());
    float c = warpred_block_reduce(x[i], warpred_op_sum());
    warpred_welford<float> d = warpred_block_allreduce(tid % 2 ? warpred_make_welford(x[i])
                                                               : warpred_op_welford::identity<warpred_welford<float>>(),
                                                       warpred_op_welford());
    if (tid == 0) {
        o2[blockIdx.x] = b;
        o3[blockIdx.x] = c;
    }
    if (tid == n - 1) {
        o1[blockIdx.x] = a;
        o4[blockIdx.x] = d;
    }
}

static void test_block_back_to_back(void **state)
{
    WT_NEED_GPU(state);
    enum { BLOCKS = 4 };
    wt_each_back_to_back_shape(2, [&](dim3 shape, int n) {
        const size_t count = (size_t)BLOCKS * n;
        float *x = (float *)wt_host_alloc(count * sizeof(float));
        double *y = (double *)wt_host_alloc(count * sizeof(double));
        fill_values(x, count, D_SCALED);
        fill_values(y, count, D_OFFSET);
        unsigned char *odd = (unsigned char *)wt_host_alloc(count);
        for (size_t i = 0; i < count; i++) odd[i] = (i % n) % 2;
        float *d_x = (float *)wt_dev_copy(x, count * sizeof(float)),
              *d_o3 = (float *)wt_dev_alloc(BLOCKS * sizeof(float));
        double *d_y = (double *)wt_dev_copy(y, count * sizeof(double));
        warpred_welford<float> *d_o1 = (warpred_welford<float> *)wt_dev_alloc(BLOCKS * sizeof(warpred_welford<float>));
        warpred_welford<float> *d_o4 = (warpred_welford<float> *)wt_dev_alloc(BLOCKS * sizeof(warpred_welford<float>));
        warpred_welford<double> *d_o2 =
            (warpred_welford<double> *)wt_dev_alloc(BLOCKS * sizeof(warpred_welford<double>));
        k_back_to_back<<<BLOCKS, shape>>>(d_x, d_y, d_o1, d_o2, d_o3, d_o4);
        WT_LAUNCHED();
        warpred_welford<float> o1[BLOCKS], o4[BLOCKS];
        warpred_welford<double> o2[BLOCKS];
        float o3[BLOCKS];
        wt_to_host(o1, d_o1, sizeof o1);
        wt_to_host(o2, d_o2, sizeof o2);
        wt_to_host(o3, d_o3, sizeof o3);
        wt_to_host(o4, d_o4, sizeof o4);
        wt_each_block(BLOCKS, n, [&](int b, const int *pos) {
            char why[400];
            if (!check_welford(x, (const unsigned char *)0, pos, n, o1[b], why, sizeof why))
                fail_msg("back to back #1, block size %d: %s", n, why);
            if (!check_welford(y, (const unsigned char *)0, pos, n, o2[b], why, sizeof why))
                fail_msg("back to back #2, block size %d: %s", n, why);
            if (!check_welford(x, odd, pos, n, o4[b], why, sizeof why))
                fail_msg("back to back #4, block size %d: %s", n, why);
            if (!wt_ref_check(WT_SUM, x, pos, n, o3[b], why, sizeof why))
                fail_msg("back to back #3 (float sum), block size %d: %s", n, why);
        });
        wt_host_free(odd);
        wt_host_free(x);
        wt_host_free(y);
        wt_dev_free(d_x);
        wt_dev_free(d_y);
        wt_dev_free(d_o1);
        wt_dev_free(d_o2);
        wt_dev_free(d_o3);
        wt_dev_free(d_o4);
    });
}

/* ------------------------------------------------------------------------------------------
   grid level and the cancellation case
   ------------------------------------------------------------------------------------------ */

template <typename F>
__global__ void k_grid(const F *x, const unsigned char *present, warpred_grid_scratch scratch, warpred_welford<F> *out)
{
    const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = (int)(blockIdx.x * nthreads + tid);
    warpred_grid_reduce(lane_value(x, present, i), warpred_op_welford(), scratch, out);
}

/* Returns the result of the last launch; every launch must have the same bits and, given the
   positions pos of all n inputs, pass check_welford (without: the caller checks). */
template <typename F>
static warpred_welford<F> run_grid(const char *what, int blocks, dim3 shape, const F *x, const unsigned char *present,
                                   int repeats, const int *pos)
{
    typedef warpred_welford<F> Wf;
    const int nthreads = shape.x * shape.y * shape.z;
    const size_t n = (size_t)blocks * nthreads;
    F *d_x = (F *)wt_dev_alloc(n * sizeof(F));
    unsigned char *d_present = (unsigned char *)wt_dev_alloc(n);
    wt_to_dev(d_x, x, n * sizeof(F));
    wt_to_dev(d_present, present, n);
    const Wf got = wt_run_grid<Wf>(
        what, blocks, repeats, NULL,
        [&](warpred_grid_scratch scratch, Wf *d_out) { k_grid<F><<<blocks, shape>>>(d_x, d_present, scratch, d_out); },
        [&](Wf got, char *why, size_t len) {
            return pos == NULL || check_welford(x, present, pos, (int)n, got, why, len);
        },
        same_welford<F>);
    wt_dev_free(d_x);
    wt_dev_free(d_present);
    return got;
}

template <typename F> static void run_grid_checked(int blocks, dim3 shape, int data, int empties)
{
    const int nthreads = shape.x * shape.y * shape.z;
    const size_t n = (size_t)blocks * nthreads;
    F *x = (F *)wt_host_alloc(n * sizeof(F));
    unsigned char *present = (unsigned char *)wt_host_alloc(n);
    int *pos = (int *)wt_host_alloc(n * sizeof(int));
    fill_values(x, n, data);
    for (size_t i = 0; i < n; i++) {
        present[i] = empties == 0 ? 1 : empties == 1 ? wt_rand_below(4) != 0 : wt_rand_below(1000) == 0;
        pos[i] = (int)i;
    }
    char what[160];
    snprintf(what, sizeof what, "welford %s grid of %d x (%u,%u,%u), %s, empties %d", fname<F>(), blocks, shape.x,
             shape.y, shape.z, d_name[data], empties);
    run_grid<F>(what, blocks, shape, x, present, 3, pos);
    wt_host_free(x);
    wt_host_free(present);
    wt_host_free(pos);
}

static void test_grid(void **state)
{
    WT_NEED_GPU(state);
    const int blocks[] = {1, 2, 3, 31, 132, 300, 2999};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (int data = 0; data < D_COUNT; data++) {
            run_grid_checked<float>(blocks[b], dim3(96), data, (int)(b + data) % 3);
            run_grid_checked<double>(blocks[b], dim3(5, 5, 3), data, (int)(b + data + 1) % 3);
        }
}

/* The cancellation case at block (1024 values) and grid (~300k values) size: Welford against
   the two-pass reference with the contract's tolerances (float: a few percent; double: 1e-9
   relative, or the error bound of wt_welford_var_tol where that is larger - at small counts the
   rounding of the partial means alone exceeds 1e-9, see wt_compound.h), and the naive
   E[x^2] - E[x]^2 printed, not asserted, for contrast. */
template <typename F> static void run_cancellation(int blocks, dim3 shape)
{
    const int nthreads = shape.x * shape.y * shape.z;
    const size_t n = (size_t)blocks * nthreads;
    F *x = (F *)wt_host_alloc(n * sizeof(F));
    unsigned char *present = (unsigned char *)wt_host_alloc(n);
    fill_values(x, n, D_OFFSET);
    memset(present, 1, n);
    char what[120];
    snprintf(what, sizeof what, "welford %s cancellation case, grid of %d x %u", fname<F>(), blocks, shape.x);
    const warpred_welford<F> got = run_grid<F>(what, blocks, shape, x, present, 2, NULL);
    const wt_moments ref = wt_two_pass(x, (long long)n);
    const double want = (double)(ref.m2 / (long double)n), var = (double)got.m2 / (double)got.count;
    const double rel = fabs(var - want) / want, u = unit_roundoff<F>();
    const double bound = wt_welford_var_tol(u, (double)ref.mean, sqrt(want), (long long)n);
    const double tol = sizeof(F) == 4 ? 0.03 : (bound > 1e-9 ? bound : 1e-9);
    F s = 0, q = 0; /* the naive formula, in the same precision */
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        q += x[i] * x[i];
    }
    const double naive = (double)(q / (F)n - (s / (F)n) * (s / (F)n));
    printf("[ INFO     ] %s, %zu values of %g + U(-1e-2, 1e-2): two-pass variance %.6g; Welford %.6g (relative error "
           "%.2g, "
           "allowed %.2g); naive E[x^2]-E[x]^2 %.6g (relative error %.2g)\n",
           fname<F>(), n, offset_of<F>(), want, var, rel, tol, naive, fabs(naive - want) / want);
    if (got.count != (long long)n) fail_msg("count %lld, expected %zu", got.count, n);
    if (!(rel <= tol))
        fail_msg("%s cancellation case, %zu values: variance %.9g, expected %.9g: relative error %.3g > %.3g",
                 fname<F>(), n, var, want, rel, tol);
    wt_host_free(x);
    wt_host_free(present);
}

static void test_cancellation(void **state)
{
    WT_NEED_GPU(state);
    run_cancellation<double>(1, dim3(32));
    run_cancellation<double>(1, dim3(1024));
    run_cancellation<double>(300, dim3(1024));
    run_cancellation<float>(1, dim3(32));
    run_cancellation<float>(1, dim3(1024));
    run_cancellation<float>(300, dim3(1024));
}

/* ------------------------------------------------------------------------------------------
   the finishing helpers on the device
   ------------------------------------------------------------------------------------------ */

/* Lane l holds a value when l < count; the warp's result goes through the three helpers. */
template <typename F> __global__ void k_finish(const F *x, int count, F *out)
{
    const int lane = threadIdx.x;
    const warpred_welford<F> w = warpred_warp_allreduce(
        lane < count ? warpred_make_welford(x[lane]) : warpred_op_welford::identity<warpred_welford<F>>(),
        warpred_op_welford());
    if (lane == 0) {
        out[0] = warpred_welford_mean(w);
        out[1] = warpred_welford_var_pop(w);
        out[2] = warpred_welford_var_sample(w);
    }
}

template <typename F> static void run_finish(void)
{
    F x[32], out[3], *d_x = (F *)wt_dev_alloc(sizeof x), *d_out = (F *)wt_dev_alloc(sizeof out);
    for (int l = 0; l < 32; l++) x[l] = (F)(l % 7) * (F)0.5 - (F)1;
    wt_to_dev(d_x, x, sizeof x);
    const int counts[] = {0, 1, 2, 3, 31, 32};
    for (int c = 0; c < 6; c++) {
        wt_poison(d_out, sizeof out);
        k_finish<F><<<1, 32>>>(d_x, counts[c], d_out);
        WT_LAUNCHED();
        wt_to_host(out, d_out, sizeof out);
        const wt_moments m = wt_two_pass(x, counts[c]);
        const double want[3] = {wt_mean_of(m), wt_var_pop_of(m), wt_var_sample_of(m)};
        for (int k = 0; k < 3; k++) {
            const double got = (double)out[k];
            if (isnan(want[k]) ? !isnan(got) : !(fabs(got - want[k]) <= 64 * unit_roundoff<F>() * (fabs(want[k]) + 1)))
                fail_msg("%s helper %s over %d values: got %.9g, expected %.9g", fname<F>(),
                         k == 0   ? "mean"
                         : k == 1 ? "var_pop"
                                  : "var_sample",
                         counts[c], got, want[k]);
        }
    }
    wt_dev_free(d_x);
    wt_dev_free(d_out);
}

static void test_finishing_helpers_device(void **state)
{
    WT_NEED_GPU(state);
    run_finish<float>();
    run_finish<double>();
}

/* The usage snippet of op_welford.cuh (the kernel row_stats), as the build copies it from the
   manual (scripts/snippets.py). */
#include "snippets/op_welford.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float x[3] = {10000.25f, 10000.5f, 10000.75f};
    float *d_x = (float *)wt_dev_alloc(sizeof x), *d_mean = (float *)wt_dev_alloc(sizeof(float)),
          *d_var = (float *)wt_dev_alloc(sizeof(float));
    wt_to_dev(d_x, x, sizeof x);
    const int threads[] = {1, 2, 3, 32, 64};
    for (int t = 0; t < 5; t++) {
        float mean, var;
        wt_poison(d_mean, sizeof(float));
        wt_poison(d_var, sizeof(float));
        row_stats<<<1, threads[t]>>>(d_x, 3, d_mean, d_var);
        WT_LAUNCHED();
        wt_to_host(&mean, d_mean, sizeof mean);
        wt_to_host(&var, d_var, sizeof var);
        if (mean != 10000.5f || fabs(var - 0.125 / 3) > 1e-6)
            fail_msg("snippet with %d threads: mean %.9g var %.9g, expected 10000.5 and 0.0416667", threads[t], mean,
                     var);
        /* the naive formula in float, for contrast (printed once) */
        if (t == 0) {
            float s = 0, q = 0;
            for (int i = 0; i < 3; i++) s += x[i], q += x[i] * x[i];
            printf("[ INFO     ] snippet row: Welford var %.9g; naive float E[x^2]-E[x]^2 %.9g\n", var,
                   q / 3 - (s / 3) * (s / 3));
        }
    }
    wt_dev_free(d_x);
    wt_dev_free(d_mean);
    wt_dev_free(d_var);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check),
        WT_TEST(test_finishing_helpers_host),
        WT_TEST(test_finishing_helpers_device),
        WT_TEST(test_doc_snippet),
        WT_TEST(test_warp_float),
        WT_TEST(test_warp_double),
        WT_TEST(test_block_every_size),
        WT_TEST(test_block_shapes),
        WT_TEST(test_block_static),
        WT_TEST(test_block_back_to_back),
        WT_TEST(test_grid),
        WT_TEST(test_cancellation),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
