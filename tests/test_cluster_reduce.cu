/* Cluster-level reductions (warpred/cluster_reduce.cuh), sm_90 and newer: every cluster size the
   GPU accepts for the kernel and block (1..8 portable, up to 16 non-portable), blocks of 32, 96,
   256, 1000 and 1024 threads with the size at compile time and at run time, 3D blocks, 2D and 3D
   clusters, and launches without clusters. Int sums exact; float sums to the bit against the
   documented ORDER and within an argued bound of a double reference; IEEE max/min with NaN and
   signed zeros; argmax ties and NaN; Welford and a tuple against host references; every thread's
   allreduce result; 100 mixed calls back to back; many clusters in one grid. The one call of a
   kernel (warpred/cluster_allreduce_once.cuh): every thread's result bitwise equal to
   warpred_cluster_allreduce's, also with the call last before the kernel's store and end; float
   sums, argmax, __half and 6-byte values against host references; its manual's snippet; many
   clusters reaching the call in changing orders; a launch without clusters. Fresh random inputs
   each run (seed printed). Without a GPU of compute capability 9.0 or newer, or in a build
   without sm_90 code, the GPU tests report SKIPPED.

   Every kernel keeps its calls under #if WARPRED_HAS_CLUSTERS: the default build also makes
   sm_75 and sm_80 code, where the calls do not compile (tests/compile_fail/cluster_on_old_arch.cu
   checks that error). Blocks find their cluster and rank with cooperative groups, not with the
   header's own PTX. */
#include <warpred/cluster_reduce.cuh>
#include <warpred/cluster_allreduce_once.cuh>
#include <warpred/op_argminmax.cuh>
#include <warpred/op_welford.cuh>
#include <warpred/op_tuple.cuh>
#include <cooperative_groups.h>
#include "wt_types.h"
#include "wt_compound.h"
#include "wt_order.h" /* wt_down_tree_model, wt_block_sum_model */
#include "wt_cluster.h"

namespace cg = cooperative_groups;

/* ------------------------------------------------------------------------------------------
   device side
   ------------------------------------------------------------------------------------------ */

__device__ __forceinline__ int wt_tid(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/* Where this thread's value sits: clusters are numbered x fastest over the grid, blocks by
   their rank in the cluster, threads by their linear index: ((cluster * C + rank) * n + tid).
   *cluster and *rank for the thread's block. */
__device__ __forceinline__ size_t wt_place(unsigned *cluster, unsigned *rank)
{
#if WARPRED_HAS_CLUSTERS
    const cg::cluster_group c = cg::this_cluster();
    const dim3 cd = c.dim_blocks();
    *cluster = (blockIdx.z / cd.z * (gridDim.y / cd.y) + blockIdx.y / cd.y) * (gridDim.x / cd.x) + blockIdx.x / cd.x;
    *rank = c.block_rank();
    const size_t n = (size_t)blockDim.x * blockDim.y * blockDim.z;
    return ((size_t)*cluster * c.num_blocks() + *rank) * n + (size_t)wt_tid();
#else
    *cluster = *rank = 0;
    return 0;
#endif
}

/* Reduce, then allreduce with no barrier in between: thread 0 of rank 0 writes the reduce result
   to red[cluster], every thread its allreduce result to all[its place]. (The test kernels run
   blocks of up to 1024 threads: __launch_bounds__ keeps them within 64 registers.) */
template <int BT, typename T, typename Op>
__global__ void __launch_bounds__(1024) k_cluster(const T *in, T *red, T *all)
{
#if WARPRED_HAS_CLUSTERS
    unsigned cluster, rank;
    const size_t p = wt_place(&cluster, &rank);
    const T r = warpred_cluster_reduce<BT>(in[p], Op());
    const T a = warpred_cluster_allreduce<BT>(in[p], Op());
    if (rank == 0 && wt_tid() == 0) red[cluster] = r;
    all[p] = a;
#else
    (void)in, (void)red, (void)all;
#endif
}

/* ------------------------------------------------------------------------------------------
   host side: launching
   ------------------------------------------------------------------------------------------ */

/* The group setup (tests/wt_cluster.h), k_cluster's code the probe of sm_90 code. */
static int wt_cluster_setup(void **state) { return wt_cluster_setup_with(state, k_cluster<0, int, warpred_op_sum>); }

/* One launch of k_cluster<BT, T, Op> (given as kernel): fill(in, per, clusters) writes the inputs,
   per = C * n of them per cluster; then for every cluster check(x, C, n, got, why, len) judges the
   reduce result (x: the cluster's inputs, rank by rank), and every thread of the cluster's
   allreduce result must have the reduce result's bits (ORDER: reduce and allreduce alike). */
template <typename T, typename Fill, typename Check>
static void wt_run(const char *what, void (*kernel)(const T *, T *, T *), dim3 block, dim3 cdim, unsigned clusters,
                   Fill fill, Check check)
{
    const int n = (int)(block.x * block.y * block.z);
    const int C = cdim.x == 0 ? 1 : (int)(cdim.x * cdim.y * cdim.z);
    const size_t per = (size_t)C * n, count = per * clusters;
    T *in = (T *)wt_host_alloc(count * sizeof(T)), *red = (T *)wt_host_alloc(clusters * sizeof(T)),
      *all = (T *)wt_host_alloc(count * sizeof(T));
    fill(in, per, clusters);
    T *d_in = (T *)wt_dev_copy(in, count * sizeof(T));
    T *d_red = (T *)wt_dev_alloc(clusters * sizeof(T)), *d_all = (T *)wt_dev_alloc(count * sizeof(T)); /* poisoned */
    wt_launch(kernel, block, cdim, clusters, (const T *)d_in, d_red, d_all);
    WT_LAUNCHED();
    wt_to_host(red, d_red, clusters * sizeof(T));
    wt_to_host(all, d_all, count * sizeof(T));
    for (unsigned k = 0; k < clusters; k++) {
        char why[600];
        if (!check(in + k * per, C, n, red[k], why, sizeof why))
            fail_msg("%s, blocks of %u x %u x %u, clusters of %u x %u x %u, cluster %u of %u, reduce: %s", what,
                     block.x, block.y, block.z, cdim.x, cdim.y, cdim.z, k, clusters, why);
        for (size_t j = 0; j < per; j++)
            if (!wt_same(all[k * per + j], red[k]))
                fail_msg("%s, blocks of %u x %u x %u, clusters of %u x %u x %u, cluster %u of %u, allreduce: block "
                         "rank %d thread %d does not hold the reduce result's bits",
                         what, block.x, block.y, block.z, cdim.x, cdim.y, cdim.z, k, clusters, (int)(j / n),
                         (int)(j % n));
    }
    wt_dev_free(d_in);
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_host_free(in);
    wt_host_free(red);
    wt_host_free(all);
}

/* The block shapes of the size sweeps: the compile-time sizes, the same sizes read at run time,
   and run-time shapes of 1, 5 and 105 (7 x 5 x 3) threads. */
template <typename T, typename Op> struct wt_shape {
    const char *name;
    dim3 block;
    void (*kernel)(const T *, T *, T *);
};

template <typename T, typename Op> static void wt_shapes(wt_shape<T, Op> s[14])
{
    const wt_shape<T, Op> list[14] = {
        {"<32>", dim3(32), k_cluster<32, T, Op>},
        {"<96>", dim3(96), k_cluster<96, T, Op>},
        {"<256>", dim3(256), k_cluster<256, T, Op>},
        {"<1000>", dim3(1000), k_cluster<1000, T, Op>},
        {"<1024>", dim3(1024), k_cluster<1024, T, Op>},
        {"run-time 32", dim3(32), k_cluster<0, T, Op>},
        {"run-time 96", dim3(96), k_cluster<0, T, Op>},
        {"run-time 256", dim3(256), k_cluster<0, T, Op>},
        {"run-time 1000", dim3(1000), k_cluster<0, T, Op>},
        {"run-time 1024", dim3(1024), k_cluster<0, T, Op>},
        {"run-time 1", dim3(1), k_cluster<0, T, Op>},
        {"run-time 5", dim3(5), k_cluster<0, T, Op>},
        {"run-time 7x5x3", dim3(7, 5, 3), k_cluster<0, T, Op>},
        {"run-time 33x31", dim3(33, 31), k_cluster<0, T, Op>},
    };
    for (int i = 0; i < 14; i++) s[i] = list[i];
}

/* For every shape, every cluster size 1..the largest the GPU accepts for it (all: 1; else, and
   under `make sanitize`, 1..5, 8 and the largest). */
template <typename T, typename Op, typename Run> static void wt_each_shape_and_size(int all, Run run)
{
    wt_shape<T, Op> shapes[14];
    wt_shapes<T, Op>(shapes);
    for (int s = 0; s < 14; s++) {
        const int largest = wt_max_cluster(shapes[s].kernel, shapes[s].block);
        for (int c = 1; c <= largest; c++)
            if ((all && !wt_quick()) || c <= 5 || c == 8 || c == largest) run(shapes[s], c);
    }
}

/* ------------------------------------------------------------------------------------------
   host side: references
   ------------------------------------------------------------------------------------------ */

/* ORDER, as the manuals state it, in T arithmetic: the shuffle-down tree and a block's sum
   (wt_order.h), and the cluster's fold of the block
   totals t_0..t_(C-1) (cluster_reduce.cuh): with P = min(n, 32), lane L < P holds t_L op
   t_(L+P) op ... left to right, then the tree over the min(C, P) lanes. */
template <typename T> static T wt_cluster_sum_model(const T *x, int C, int n)
{
    const int P = n < 32 ? n : 32, holders = C < P ? C : P;
    T lane[32] = {};
    for (int L = 0; L < holders; L++) {
        lane[L] = wt_block_sum_model(x + (size_t)L * n, n);
        for (int r = L + P; r < C; r += P) lane[L] = lane[L] + wt_block_sum_model(x + (size_t)r * n, n);
    }
    return wt_down_tree_model(lane, holders);
}

/* The longest chain of roundings from a value to the cluster's sum: 10 in the block (the column
   tree over at most 32 slots, 5 levels; the warp tree over at most 32 lanes, 5), then the
   cluster's fold: ceil(C / P) - 1 steps left to right in a lane, ceil(log2(min(C, P))) levels
   of the tree. */
static int wt_sum_depth(int C, int n)
{
    const int P = n < 32 ? n : 32, holders = C < P ? C : P;
    int levels = 0;
    while ((1 << levels) < holders) levels++;
    return 10 + (C + P - 1) / P - 1 + levels;
}

/* Float sums: the documented order to the bit, and within the bound of a double reference.
   Every value reaches the result through at most d = wt_sum_depth(C, n) roundings (at most 25
   for clusters of up to 16 blocks).
   A rounding errs by at most u times the |partial sum| it rounds, which is at most the sum of
   |x| under it, so |got - exact| <= d * u * sum|x| to first order (the second-order term,
   d^2 u^2, is below 1e-5 of it for d <= 25). The double reference errs by at most
   count * 2^-53 * sum|x|; 1% on top covers both second-order terms. */
template <typename T> static int wt_check_float_sum(const T *x, int C, int n, T got, char *why, size_t len)
{
    const T want = wt_cluster_sum_model(x, C, n);
    double ref = 0, abs_sum = 0;
    for (size_t i = 0; i < (size_t)C * n; i++) ref += (double)x[i], abs_sum += fabs((double)x[i]);
    const double u = wt_type<T>::unit_roundoff(), d = wt_sum_depth(C, n);
    const double tol = (d * u + (double)C * n * 0x1p-53) * abs_sum * 1.01;
    if (wt_type<T>::bits(got) != wt_type<T>::bits(want)) {
        snprintf(why, len, "got %.17g, the documented order gives %.17g", (double)got, (double)want);
        return 0;
    }
    if (!(fabs((double)got - ref) <= tol)) {
        snprintf(why, len, "got %.17g, the double reference is %.17g (bound %.3g)", (double)got, ref, tol);
        return 0;
    }
    return 1;
}

/* Scalars through wt_types.h's reference (integers exact; min/max: the chosen input's bits or
   the canonical NaN). */
template <typename T> static auto wt_ref_checker(int op)
{
    return [op](const T *x, int C, int n, T got, char *why, size_t len) {
        wt_ref<T> ref;
        ref.fold(op, x, C * n);
        char sub[400];
        if (ref.matches(op, got, C * n, sub, sizeof sub)) return 1;
        snprintf(why, len, "%s over %d values: %s", wt_op_name[op], C * n, sub);
        return 0;
    };
}

template <typename T> static auto wt_random_fill(int special)
{
    return [special](T *in, size_t per, unsigned clusters) {
        for (size_t i = 0; i < per * clusters; i++) in[i] = wt_type<T>::random(special);
    };
}

/* Values whose sums depend on the order: both signs, magnitudes 2^-20 .. 2^20. */
template <typename T> static auto wt_order_sensitive_fill(void)
{
    return [](T *in, size_t per, unsigned clusters) {
        for (size_t i = 0; i < per * clusters; i++) {
            const double m = 1.0 + wt_rand_unit();
            in[i] = (T)ldexp(wt_rand_below(2) ? m : -m, wt_rand_below(41) - 20);
        }
    };
}

/* ------------------------------------------------------------------------------------------
   tests
   ------------------------------------------------------------------------------------------ */

/* The order model itself, on totals where the order shows: 2^24, 1, 1, 1. Blocks of one thread
   (P = 1) fold left to right, and each + 1 rounds back to 2^24; blocks of four threads holding
   (t, 0, 0, 0) go through the tree, ((2^24 + 1) + (1 + 1)) = 2^24 + 2. Small integers, whose float
   sums are exact in any order, give their exact sum. No GPU needed. */
static void test_order_model(void **state)
{
    (void)state;
    const float t[4] = {16777216.0f, 1.0f, 1.0f, 1.0f};
    assert_true(wt_cluster_sum_model(t, 4, 1) == 16777216.0f);
    float blocks[16] = {0};
    for (int r = 0; r < 4; r++) blocks[4 * r] = t[r];
    assert_true(wt_cluster_sum_model(blocks, 4, 4) == 16777218.0f);
    assert_int_equal(wt_sum_depth(4, 4), 12);
    assert_int_equal(wt_sum_depth(16, 1), 25);
    assert_int_equal(wt_sum_depth(1, 1024), 10);
    float y[4 * 100];
    double exact = 0;
    for (int i = 0; i < 400; i++) y[i] = (float)(i % 13) - 6.0f, exact += y[i];
    assert_true(wt_cluster_sum_model(y, 4, 100) == (float)exact);
}

/* int sums, exact (wrapping), every shape and every cluster size. */
static void test_int_sum(void **state)
{
    WT_NEED_GPU(state);
    wt_each_shape_and_size<int, warpred_op_sum>(1, [](wt_shape<int, warpred_op_sum> s, int c) {
        wt_run<int>(s.name, s.kernel, s.block, dim3(c, 1, 1), 3, wt_random_fill<int>(0), wt_ref_checker<int>(WT_SUM));
    });
}

/* float sums, to the bit in the documented order, every shape and every cluster size. */
static void test_float_sum(void **state)
{
    WT_NEED_GPU(state);
    wt_each_shape_and_size<float, warpred_op_sum>(1, [](wt_shape<float, warpred_op_sum> s, int c) {
        wt_run<float>(s.name, s.kernel, s.block, dim3(c, 1, 1), 3, wt_order_sensitive_fill<float>(),
                      wt_check_float_sum<float>);
    });
}

/* double sums in the documented order and IEEE min_num on doubles with special values; run-time
   sizes. */
static void test_double(void **state)
{
    WT_NEED_GPU(state);
    const dim3 blocks[3] = {dim3(1000), dim3(64), dim3(7, 5, 3)};
    for (int b = 0; b < 3; b++) {
        const int largest = wt_max_cluster(k_cluster<0, double, warpred_op_sum>, blocks[b]);
        for (int c = 1; c <= largest; c += c < 4 ? 1 : c) {
            wt_run<double>("double sum", k_cluster<0, double, warpred_op_sum>, blocks[b], dim3(c, 1, 1), 3,
                           wt_order_sensitive_fill<double>(), wt_check_float_sum<double>);
            wt_run<double>("double min_num (special values)", k_cluster<0, double, warpred_op_min_num>, blocks[b],
                           dim3(c, 1, 1), 3, wt_random_fill<double>(1), wt_ref_checker<double>(WT_MIN_NUM));
        }
    }
}

/* The IEEE maximum (and minimum) of floats: NaN wins (the canonical 0x7fffffff), -0 < +0. Random
   values with specials (NaN, infinities, signed zeros, subnormals) nearly always hold a NaN, so
   also: one NaN (any payload, either sign) at a random place among numbers; only negative
   numbers and -0 with a single +0 somewhere (the max is +0); the same without the +0 (-0). */
template <typename Op> static void run_float_minmax(wt_shape<float, Op> s, int c)
{
    const int op = wt_op_of<Op>::code;
    wt_run<float>(s.name, s.kernel, s.block, dim3(c, 1, 1), 3, wt_random_fill<float>(1), wt_ref_checker<float>(op));
    if (op != WT_MAX) return;
    wt_run<float>(
        s.name, s.kernel, s.block, dim3(c, 1, 1), 3,
        [](float *in, size_t per, unsigned clusters) {
            for (size_t i = 0; i < per * clusters; i++) in[i] = (float)(wt_rand_unit() * 200 - 100);
            for (unsigned k = 0; k < clusters; k++) { /* one NaN per cluster; cluster 0's in its last value */
                const size_t at = k == 0 ? per - 1 : (size_t)wt_rand_below((int)per);
                in[k * per + at] = wt_nan_with<float>(wt_rand64(), wt_rand_below(2));
            }
        },
        wt_ref_checker<float>(op));
    for (int with_plus_zero = 0; with_plus_zero < 2; with_plus_zero++)
        wt_run<float>(
            s.name, s.kernel, s.block, dim3(c, 1, 1), 3,
            [with_plus_zero](float *in, size_t per, unsigned clusters) {
                for (size_t i = 0; i < per * clusters; i++)
                    in[i] = wt_rand_below(3) == 0 ? -0.0f : -(float)(wt_rand_unit() * 100 + 1e-30);
                if (with_plus_zero)
                    for (unsigned k = 0; k < clusters; k++) in[k * per + (size_t)wt_rand_below((int)per)] = 0.0f;
            },
            wt_ref_checker<float>(op));
}

static void test_float_max(void **state)
{
    WT_NEED_GPU(state);
    wt_each_shape_and_size<float, warpred_op_max>(0, run_float_minmax<warpred_op_max>);
}

static void test_float_min(void **state)
{
    WT_NEED_GPU(state);
    wt_each_shape_and_size<float, warpred_op_min>(0, run_float_minmax<warpred_op_min>);
}

/* argmax of (float, int) pairs, the index the value's place in its cluster: values from {0..7}
   so that ties are everywhere (the lowest index wins), then the same with NaNs (the first NaN
   wins); against wt_compound.h's reference. */
typedef warpred_arg<float, int> wt_argf;

static int wt_check_argmax(const wt_argf *x, int C, int n, wt_argf got, char *why, size_t len)
{
    const int k = C * n;
    float *v = (float *)malloc(k * sizeof(float));
    int *idx = (int *)malloc(k * sizeof(int));
    for (int i = 0; i < k; i++) v[i] = x[i].value, idx[i] = x[i].index;
    const int want = wt_arg_pick(WT_ARGMAX, v, idx, k);
    const int ok = wt_arg_matches(v, idx, want, got.value, got.index, why, len);
    free(v);
    free(idx);
    return ok;
}

/* Values from {0, .., values - 1} (nans: one in 64 a NaN), each indexed by its place in its cluster. */
static auto wt_arg_fill(int values, int nans)
{
    return [values, nans](wt_argf *in, size_t per, unsigned clusters) {
        for (size_t i = 0; i < per * clusters; i++) {
            float v = (float)wt_rand_below(values);
            if (nans && wt_rand_below(64) == 0) v = wt_nan_with<float>(wt_rand64(), wt_rand_below(2));
            in[i] = warpred_make_arg(v, (int)(i % per));
        }
    };
}

static void run_argmax(wt_shape<wt_argf, warpred_op_argmax> s, int c)
{
    for (int nans = 0; nans < 2; nans++)
        wt_run<wt_argf>(s.name, s.kernel, s.block, dim3(c, 1, 1), 3, wt_arg_fill(8, nans), wt_check_argmax);
}

static void test_argmax(void **state)
{
    WT_NEED_GPU(state);
    wt_each_shape_and_size<wt_argf, warpred_op_argmax>(0, run_argmax);
}

/* Welford summaries of doubles around 1000 (one value per thread; one thread in ten has none and
   passes the empty summary): the count exact, mean and m2 against a two-pass long double
   reference. Tolerances as tests/test_welford.cu's, with levels = log2(m) + 2 + C: the blocks
   merge as a tree (at most 10 levels), the cluster fold adds at most C - 1 more. */
typedef warpred_welford<double> wt_wel;

static int wt_check_welford(const wt_wel *x, int C, int n, wt_wel got, char *why, size_t len)
{
    const int k = C * n;
    double *vals = (double *)malloc(k * sizeof(double));
    long long m = 0;
    for (int i = 0; i < k; i++)
        if (x[i].count) vals[m++] = x[i].mean;
    const wt_moments ref = wt_two_pass(vals, m);
    free(vals);
    if (got.count != m) {
        snprintf(why, len, "count %lld, expected %lld", got.count, m);
        return 0;
    }
    if (m == 1) { /* merging with empty summaries returns the other side unchanged */
        for (int i = 0; i < k; i++)
            if (x[i].count && (wt_type<double>::bits(got.mean) != wt_type<double>::bits(x[i].mean) || got.m2 != 0)) {
                snprintf(why, len, "one value %.17g: got mean %.17g m2 %g, expected exactly {x, 0, 1}", x[i].mean,
                         got.mean, got.m2);
                return 0;
            }
        return 1;
    }
    const double u = 0x1p-53, levels = log2((double)m) + 2 + C;
    const double mu = (double)ref.mean, sd = sqrt((double)(ref.m2 / m));
    const double mean_tol = 4 * levels * u * (fabs(mu) + sd);
    const double drift = sd > 0 ? u * fabs(mu) / (sd * sqrt((double)m)) : 0;
    const double m2_tol = 4 * levels * (u + drift) * (double)ref.m2 + (double)m * mean_tol * mean_tol;
    if (!(fabs(got.mean - mu) <= mean_tol)) {
        snprintf(why, len, "%lld values: mean %.17g, expected %.17g (tolerance %.3g)", m, got.mean, mu, mean_tol);
        return 0;
    }
    if (!(fabs(got.m2 - (double)ref.m2) <= m2_tol)) {
        snprintf(why, len, "%lld values: m2 %.17g, expected %.17g (tolerance %.3g)", m, got.m2, (double)ref.m2, m2_tol);
        return 0;
    }
    return 1;
}

static void run_welford(wt_shape<wt_wel, warpred_op_welford> s, int c)
{
    wt_run<wt_wel>(
        s.name, s.kernel, s.block, dim3(c, 1, 1), 3,
        [](wt_wel *in, size_t per, unsigned clusters) {
            const wt_wel none = {0.0, 0.0, 0};
            for (size_t i = 0; i < per * clusters; i++) {
                const double x = 1000.0 + (wt_rand_unit() * 2 - 1);
                in[i] = (i % per) % 10 == 3 ? none : warpred_make_welford(x);
            }
        },
        wt_check_welford);
}

static void test_welford(void **state)
{
    WT_NEED_GPU(state);
    wt_each_shape_and_size<wt_wel, warpred_op_welford>(0, run_welford);
}

/* A tuple (float max with special values, int sum): member by member, each against the
   scalar reference. A member-wise operation: its blocks fold warp partials left to right. */
typedef warpred_tuple2<float, int> wt_tup;
typedef warpred_op_tuple2<warpred_op_max, warpred_op_sum> wt_tup_op;

static void run_tuple(wt_shape<wt_tup, wt_tup_op> s, int c)
{
    wt_run<wt_tup>(
        s.name, s.kernel, s.block, dim3(c, 1, 1), 3,
        [](wt_tup *in, size_t per, unsigned clusters) {
            for (size_t i = 0; i < per * clusters; i++)
                in[i] = warpred_make_tuple(wt_type<float>::random(wt_rand_below(2)), (int)wt_rand32());
        },
        [](const wt_tup *x, int C, int n, wt_tup got, char *why, size_t len) {
            const int k = C * n;
            float *f = (float *)malloc(k * sizeof(float));
            int *i = (int *)malloc(k * sizeof(int));
            for (int j = 0; j < k; j++) f[j] = x[j].v0, i[j] = x[j].v1;
            char sub[500];
            int ok = wt_ref_checker<float>(WT_MAX)(f, C, n, got.v0, sub, sizeof sub);
            if (!ok) snprintf(why, len, "member 0: %s", sub);
            else if (!(ok = wt_ref_checker<int>(WT_SUM)(i, C, n, got.v1, sub, sizeof sub)))
                snprintf(why, len, "member 1: %s", sub);
            free(f);
            free(i);
            return ok;
        });
}

static void test_tuple(void **state)
{
    WT_NEED_GPU(state);
    wt_each_shape_and_size<wt_tup, wt_tup_op>(0, run_tuple);
}

/* Many clusters in one grid, each with its own result (more clusters than fit on the GPU at
   once: they run in waves). */
static void test_many_clusters(void **state)
{
    WT_NEED_GPU(state);
    const dim3 blocks[3] = {dim3(256), dim3(1024), dim3(96)};
    for (int b = 0; b < 3; b++) {
        const int largest = wt_max_cluster(k_cluster<0, int, warpred_op_sum>, blocks[b]);
        const int sizes[3] = {2, 4, largest};
        for (int s = 0; s < 3; s++) {
            const unsigned clusters = 2048 / sizes[s] + 7;
            wt_run<int>("many clusters, int sum", k_cluster<0, int, warpred_op_sum>, blocks[b], dim3(sizes[s], 1, 1),
                        clusters, wt_random_fill<int>(0), wt_ref_checker<int>(WT_SUM));
            wt_run<float>("many clusters, float sum", k_cluster<0, float, warpred_op_sum>, blocks[b],
                          dim3(sizes[s], 1, 1), clusters, wt_order_sensitive_fill<float>(), wt_check_float_sum<float>);
        }
    }
}

/* 2D and 3D clusters (rank x + y * Cx + z * Cx * Cy: the order follows it), and a launch without
   clusters (each block its own cluster of one). */
static void test_cluster_shapes(void **state)
{
    WT_NEED_GPU(state);
    const dim3 cdims[6] = {dim3(2, 2, 1), dim3(1, 2, 2), dim3(2, 1, 4), dim3(1, 1, 8), dim3(3, 2, 1), dim3(4, 4, 1)};
    const dim3 blocks[2] = {dim3(256), dim3(7, 5, 3)};
    for (int b = 0; b < 2; b++) {
        const int largest = wt_max_cluster(k_cluster<0, float, warpred_op_sum>, blocks[b]);
        for (int s = 0; s < 6; s++) {
            if ((int)(cdims[s].x * cdims[s].y * cdims[s].z) > largest) continue;
            wt_run<float>("float sum", k_cluster<0, float, warpred_op_sum>, blocks[b], cdims[s], 5,
                          wt_order_sensitive_fill<float>(), wt_check_float_sum<float>);
            wt_run<wt_argf>("argmax", k_cluster<0, wt_argf, warpred_op_argmax>, blocks[b], cdims[s], 5,
                            wt_arg_fill(4, 0), wt_check_argmax);
        }
        wt_run<float>("float sum, launched without clusters", k_cluster<0, float, warpred_op_sum>, blocks[b],
                      dim3(0, 0, 0), 9, wt_order_sensitive_fill<float>(), wt_check_float_sum<float>);
    }
}

/* ---- back to back: 100 calls in a loop, with no barrier of the caller's ----
   Round k's inputs are wt_mix(seed, p, k) for the value at place p, its operation and form by
   k % 6:
     0: int sum, reduce                 1: int max, allreduce          2: float sum (exact), allreduce
     3: unsigned xor, reduce            4: argmin (int, int), allreduce (values 0..15, ties)
     5: double max, reduce
   Reduce results go to red[cluster * 100 + k], allreduce results of every thread to
   all[k * count + p], as 64-bit patterns (float and double bits, argmin value << 32 | index).
   Before round k, the block of rank k % C sleeps a little, so that the blocks reach the calls
   in changing orders. */
enum { WT_ROUNDS = 100 };

static __host__ __device__ __forceinline__ unsigned wt_mix(unsigned long long seed, unsigned long long p, unsigned k)
{
    unsigned long long h = seed ^ (p * 0x9E3779B97F4A7C15ull) ^ ((unsigned long long)k << 40);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 32;
    return (unsigned)h;
}

static __host__ __device__ __forceinline__ int wt_round_is_all(unsigned k)
{
    return k % 6 == 1 || k % 6 == 2 || k % 6 == 4;
}

template <int BT>
__global__ void __launch_bounds__(1024)
    k_back_to_back(unsigned long long seed, long long *red, long long *all, unsigned long long count)
{
#if WARPRED_HAS_CLUSTERS
    unsigned cluster, rank;
    const size_t p = wt_place(&cluster, &rank);
    const size_t first = p - (p % ((size_t)cg::this_cluster().num_blocks() * blockDim.x * blockDim.y * blockDim.z));
    const bool writer = rank == 0 && wt_tid() == 0;
    const unsigned C = cg::this_cluster().num_blocks();
    for (unsigned k = 0; k < WT_ROUNDS; k++) {
        if (rank == k % C) __nanosleep(64 * (k % 5));
        const unsigned h = wt_mix(seed, p, k);
        long long r = 0;
        switch (k % 6) {
        case 0: r = warpred_cluster_reduce<BT>((int)h, warpred_op_sum()); break;
        case 1: r = warpred_cluster_allreduce<BT>((int)h, warpred_op_max()); break;
        case 2: {
            const float f = warpred_cluster_allreduce<BT>((float)((int)(h % 1001) - 500), warpred_op_sum());
            r = (long long)__float_as_uint(f);
            break;
        }
        case 3: r = warpred_cluster_reduce<BT>(h, warpred_op_xor()); break;
        case 4: {
            const warpred_arg<int, int> a =
                warpred_cluster_allreduce<BT>(warpred_make_arg((int)(h % 16), (int)(p - first)), warpred_op_argmin());
            r = (long long)(((unsigned long long)(unsigned)a.value << 32) | (unsigned)a.index);
            break;
        }
        default: r = __double_as_longlong(warpred_cluster_reduce<BT>((double)(int)h * 0.5, warpred_op_max())); break;
        }
        if (wt_round_is_all(k)) all[k * count + p] = r;
        else if (writer)
            red[(size_t)cluster * WT_ROUNDS + k] = r;
    }
#else
    (void)seed, (void)red, (void)all, (void)count;
#endif
}

/* What round k of the cluster whose places start at `first` (per of them) gives. */
static long long wt_round_want(unsigned long long seed, size_t first, size_t per, unsigned k)
{
    long long want = 0;
    switch (k % 6) {
    case 0: {
        uint32_t s = 0;
        for (size_t j = 0; j < per; j++) s += wt_mix(seed, first + j, k);
        return (long long)(int)s;
    }
    case 1: {
        int m = INT32_MIN;
        for (size_t j = 0; j < per; j++) {
            const int v = (int)wt_mix(seed, first + j, k);
            if (v > m) m = v;
        }
        return m;
    }
    case 2: {
        long long s = 0;
        for (size_t j = 0; j < per; j++) s += (int)(wt_mix(seed, first + j, k) % 1001) - 500;
        const float f = (float)s; /* |s| <= 500 * 16384 < 2^24: every partial sum is exact */
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        return (long long)b;
    }
    case 3: {
        uint32_t x = 0;
        for (size_t j = 0; j < per; j++) x ^= wt_mix(seed, first + j, k);
        return (long long)(unsigned long long)x; /* the unsigned result, widened */
    }
    case 4: {
        unsigned best = 16, at = 0;
        for (size_t j = 0; j < per; j++) {
            const unsigned v = wt_mix(seed, first + j, k) % 16;
            if (v < best) best = v, at = (unsigned)j; /* strictly smaller: the lowest index keeps a tie */
        }
        return (long long)(((unsigned long long)best << 32) | at);
    }
    default: {
        double m = -INFINITY;
        for (size_t j = 0; j < per; j++) {
            const double v = (double)(int)wt_mix(seed, first + j, k) * 0.5;
            if (v > m) m = v;
        }
        memcpy(&want, &m, sizeof want);
        return want;
    }
    }
}

template <int BT> static void run_back_to_back(dim3 block, int c, unsigned clusters)
{
    const int n = (int)(block.x * block.y * block.z);
    const size_t per = (size_t)c * n, count = per * clusters;
    const unsigned long long seed = wt_rand64();
    long long *d_red = (long long *)wt_dev_alloc(clusters * WT_ROUNDS * sizeof(long long));
    long long *d_all = (long long *)wt_dev_alloc(WT_ROUNDS * count * sizeof(long long));
    long long *red = (long long *)wt_host_alloc(clusters * WT_ROUNDS * sizeof(long long));
    long long *all = (long long *)wt_host_alloc(WT_ROUNDS * count * sizeof(long long));
    wt_launch(k_back_to_back<BT>, block, dim3(c, 1, 1), clusters, seed, d_red, d_all, (unsigned long long)count);
    WT_LAUNCHED();
    wt_to_host(red, d_red, clusters * WT_ROUNDS * sizeof(long long));
    wt_to_host(all, d_all, WT_ROUNDS * count * sizeof(long long));
    for (unsigned q = 0; q < clusters; q++)
        for (unsigned k = 0; k < WT_ROUNDS; k++) {
            const long long want = wt_round_want(seed, q * per, per, k);
            if (!wt_round_is_all(k)) {
                if (red[q * WT_ROUNDS + k] != want)
                    fail_msg(
                        "back to back, blocks of %d (BlockThreads %d), clusters of %d, cluster %u, round %u (reduce, "
                        "kind %u): got %llx, expected %llx",
                        n, BT, c, q, k, k % 6, (unsigned long long)red[q * WT_ROUNDS + k], (unsigned long long)want);
                continue;
            }
            for (size_t j = 0; j < per; j++)
                if (all[k * count + q * per + j] != want)
                    fail_msg("back to back, blocks of %d (BlockThreads %d), clusters of %d, cluster %u, round %u "
                             "(allreduce, kind %u), block rank %d thread %d: got %llx, expected %llx",
                             n, BT, c, q, k, k % 6, (int)(j / n), (int)(j % n),
                             (unsigned long long)all[k * count + q * per + j], (unsigned long long)want);
        }
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_host_free(red);
    wt_host_free(all);
}

/* Under racecheck (WARPRED_TEST_QUICK=2) the shapes where hazards are likeliest only: a full block
   and a 3D one, in clusters of 2 and of the largest size (every shape took more than five minutes). */
static void test_back_to_back(void **state)
{
    WT_NEED_GPU(state);
    const int race = wt_quick_level() == 2;
    const dim3 blocks[4] = {dim3(256), dim3(7, 5, 3), dim3(1000), dim3(32)};
    for (int b = 0; b < (race ? 2 : 4); b++) {
        const int largest = wt_max_cluster(k_back_to_back<0>, blocks[b]);
        const int all[5] = {1, 2, 3, 8, largest}, few[2] = {2, largest};
        const int *sizes = race ? few : all, n = race ? 2 : 5;
        for (int s = 0; s < n; s++)
            if (sizes[s] <= largest && (s < n - 1 || largest > sizes[n - 2]))
                run_back_to_back<0>(blocks[b], sizes[s], 3);
    }
    const int largest = wt_max_cluster(k_back_to_back<96>, dim3(96));
    if (!race) run_back_to_back<96>(dim3(96), 4, 5);
    run_back_to_back<96>(dim3(96), largest, 3);
}

/* The usage snippets of cluster_reduce.cuh (row_sums, normalize_rows, launch_per_row), as the
   build copies them from the manual (scripts/snippets.py). */
#include "snippets/cluster_reduce.inc"

static void test_doc_snippets(void **state)
{
    WT_NEED_GPU(state);
    enum { ROWS = 3, COLS = 3000 };
    float *x = (float *)wt_host_alloc(ROWS * COLS * sizeof(float)), out[ROWS];
    for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)(i % COLS + 1);
    float *d_x = (float *)wt_dev_copy(x, ROWS * COLS * sizeof(float)), *d_out = (float *)wt_dev_alloc(sizeof out);
    WT_CUDA(launch_per_row(row_sums, ROWS, (const float *)d_x, (int)COLS, d_out));
    WT_LAUNCHED();
    wt_to_host(out, d_out, sizeof out);
    for (int r = 0; r < ROWS; r++) assert_true(out[r] == 4501500.0f);

    for (int i = 0; i < ROWS * COLS; i++) x[i] = i % COLS == 0 ? 3.0f : i % COLS == 1 ? 4.0f : 0.0f;
    wt_to_dev(d_x, x, ROWS * COLS * sizeof(float));
    WT_CUDA(launch_per_row(normalize_rows, ROWS, d_x, (int)COLS));
    WT_LAUNCHED();
    wt_to_host(x, d_x, ROWS * COLS * sizeof(float));
    for (int i = 0; i < ROWS * COLS; i++) {
        const float want = i % COLS == 0 ? 3.0f / 5.0f : i % COLS == 1 ? 4.0f / 5.0f : 0.0f;
        if (x[i] != want)
            fail_msg("normalize_rows: element %d of row %d is %.9g, expected %.9g", i % COLS, i / COLS, (double)x[i],
                     (double)want);
    }
    wt_dev_free(d_x);
    wt_dev_free(d_out);
    wt_host_free(x);
}

/* ------------------------------------------------------------------------------------------
   warpred_cluster_allreduce_once (cluster_allreduce_once.cuh): begin at the kernel's start, one
   call, no cluster barrier after it; the same bits as warpred_cluster_allreduce
   ------------------------------------------------------------------------------------------ */

/* begin at the start, then the once form and warpred_cluster_allreduce on the same value; every
   thread writes both results (once[p], all[p], p its place as in k_cluster). */
template <int BT, typename T, typename Op>
__global__ void __launch_bounds__(1024) k_once_both(const T *in, T *once, T *all)
{
#if WARPRED_HAS_CLUSTERS
    warpred_cluster_allreduce_once_begin();
    unsigned cluster, rank;
    const size_t p = wt_place(&cluster, &rank);
    const T x = in[p];
    const T o = warpred_cluster_allreduce_once<BT>(x, Op());
    const T a = warpred_cluster_allreduce<BT>(x, Op());
    once[p] = o;
    all[p] = a;
#else
    (void)in, (void)once, (void)all;
#endif
}

/* The once call is the last thing before the store and the kernel's end: no cluster barrier
   follows it, so a block may exit while the others still fold (the point of the design). */
template <int BT, typename T, typename Op> __global__ void __launch_bounds__(1024) k_once_last(const T *in, T *once)
{
#if WARPRED_HAS_CLUSTERS
    warpred_cluster_allreduce_once_begin();
    unsigned cluster, rank;
    const size_t p = wt_place(&cluster, &rank);
    once[p] = warpred_cluster_allreduce_once<BT>(in[p], Op());
#else
    (void)in, (void)once;
#endif
}

/* As k_once_last, with the blocks reaching begin and the call in changing orders: in cluster q the
   block of rank q % C sleeps 0.5 to 3.5 us, before begin in even clusters (the others wait for it
   at the call's cluster wait), between begin and the call in odd ones (the others have sent their
   totals to it, and wait for its own, before it reaches the call). */
template <typename T, typename Op> __global__ void __launch_bounds__(1024) k_once_skewed(const T *in, T *once)
{
#if WARPRED_HAS_CLUSTERS
    unsigned cluster, rank;
    const size_t p = wt_place(&cluster, &rank);
    const bool sleeper = rank == cluster % cg::this_cluster().num_blocks();
    if (sleeper && cluster % 2 == 0) __nanosleep(500 * (1 + cluster % 7));
    warpred_cluster_allreduce_once_begin();
    const T x = in[p];
    if (sleeper && cluster % 2 == 1) __nanosleep(500 * (1 + cluster % 7));
    once[p] = warpred_cluster_allreduce_once(x, Op());
#else
    (void)in, (void)once;
#endif
}

/* One configuration of the once form: both (k_once_both) and last (k_once_last or k_once_skewed)
   on the same inputs, fill and cdim as in wt_run. For every cluster check(x, C, n, got, why, len)
   judges the once result of thread 0 of block rank 0; then, thread by thread, the once result must
   have the bits of warpred_cluster_allreduce's in the same thread, of thread 0 of rank 0, and of
   the once result of the second kernel. The outputs start poisoned (wt_dev_alloc). */
template <typename T, typename Fill, typename Check>
static void wt_run_once(const char *what, void (*both)(const T *, T *, T *), void (*last)(const T *, T *), dim3 block,
                        dim3 cdim, unsigned clusters, Fill fill, Check check)
{
    const int n = (int)(block.x * block.y * block.z);
    const int C = cdim.x == 0 ? 1 : (int)(cdim.x * cdim.y * cdim.z);
    const size_t per = (size_t)C * n, count = per * clusters, bytes = count * sizeof(T);
    T *in = (T *)wt_host_alloc(bytes), *once = (T *)wt_host_alloc(bytes), *all = (T *)wt_host_alloc(bytes),
      *alone = (T *)wt_host_alloc(bytes);
    fill(in, per, clusters);
    T *d_in = (T *)wt_dev_copy(in, bytes);
    T *d_once = (T *)wt_dev_alloc(bytes), *d_all = (T *)wt_dev_alloc(bytes), *d_alone = (T *)wt_dev_alloc(bytes);
    wt_launch(both, block, cdim, clusters, (const T *)d_in, d_once, d_all);
    WT_LAUNCHED();
    wt_launch(last, block, cdim, clusters, (const T *)d_in, d_alone);
    WT_LAUNCHED();
    wt_to_host(once, d_once, bytes);
    wt_to_host(all, d_all, bytes);
    wt_to_host(alone, d_alone, bytes);
    for (unsigned k = 0; k < clusters; k++) {
        const T *x = in + k * per, *o = once + k * per, *a = all + k * per, *l = alone + k * per;
        char why[600];
        if (!check(x, C, n, o[0], why, sizeof why))
            fail_msg("%s, blocks of %u x %u x %u, clusters of %u x %u x %u, cluster %u of %u, once form, block rank "
                     "0 thread 0: %s",
                     what, block.x, block.y, block.z, cdim.x, cdim.y, cdim.z, k, clusters, why);
        for (size_t j = 0; j < per; j++) {
            const char *wrong = !wt_same(o[j], a[j])   ? "its once result differs from its warpred_cluster_allreduce "
                                                         "result (same inputs, same kernel)"
                                : !wt_same(o[j], o[0]) ? "its once result differs from block rank 0 thread 0's"
                                : !wt_same(l[j], o[0]) ? "its once result in the second kernel (the call last before "
                                                         "the store) differs from the first kernel's"
                                                       : NULL;
            if (wrong)
                fail_msg("%s, blocks of %u x %u x %u, clusters of %u x %u x %u, cluster %u of %u, block rank %d "
                         "thread %d: %s",
                         what, block.x, block.y, block.z, cdim.x, cdim.y, cdim.z, k, clusters, (int)(j / n),
                         (int)(j % n), wrong);
        }
    }
    wt_dev_free(d_in);
    wt_dev_free(d_once);
    wt_dev_free(d_all);
    wt_dev_free(d_alone);
    wt_host_free(in);
    wt_host_free(once);
    wt_host_free(all);
    wt_host_free(alone);
}

/* The block shapes of the once tests, each with both kernels: blocks of 32, 96, 256, 1000 (a
   partial last warp: the first warp folds for the block) and 8 threads (fewer threads than a
   cluster of 16 has blocks: lane L folds t_L with t_(L+8)), and a 2D block of 16 x 6, with the
   size at compile time and read at run time. */
template <typename T, typename Op> struct wt_once_shape {
    const char *name;
    dim3 block;
    void (*both)(const T *, T *, T *);
    void (*last)(const T *, T *);
};

template <int BT, typename T, typename Op> static wt_once_shape<T, Op> wt_once_shape_of(const char *name, dim3 block)
{
    const wt_once_shape<T, Op> s = {name, block, k_once_both<BT, T, Op>, k_once_last<BT, T, Op>};
    return s;
}

enum { WT_ONCE_SHAPES = 12, WT_ONCE_FEW_SHAPES = 5 };

template <typename T, typename Op> static void wt_once_shapes(wt_once_shape<T, Op> s[WT_ONCE_SHAPES])
{
    const wt_once_shape<T, Op> list[WT_ONCE_SHAPES] = {
        wt_once_shape_of<32, T, Op>("<32>", dim3(32)),
        wt_once_shape_of<96, T, Op>("<96>", dim3(96)),
        wt_once_shape_of<256, T, Op>("<256>", dim3(256)),
        wt_once_shape_of<1000, T, Op>("<1000>", dim3(1000)),
        wt_once_shape_of<8, T, Op>("<8>", dim3(8)),
        wt_once_shape_of<96, T, Op>("<96> as 16x6", dim3(16, 6)),
        wt_once_shape_of<0, T, Op>("run-time 32", dim3(32)),
        wt_once_shape_of<0, T, Op>("run-time 96", dim3(96)),
        wt_once_shape_of<0, T, Op>("run-time 256", dim3(256)),
        wt_once_shape_of<0, T, Op>("run-time 1000", dim3(1000)),
        wt_once_shape_of<0, T, Op>("run-time 8", dim3(8)),
        wt_once_shape_of<0, T, Op>("run-time 16x6", dim3(16, 6)),
    };
    for (int i = 0; i < WT_ONCE_SHAPES; i++) s[i] = list[i];
}

/* Five of them, for the value types: a full warp, whole warps at compile time, a partial last
   warp, fewer threads than blocks, 2D. */
template <typename T, typename Op> static void wt_once_few_shapes(wt_once_shape<T, Op> s[WT_ONCE_FEW_SHAPES])
{
    const wt_once_shape<T, Op> list[WT_ONCE_FEW_SHAPES] = {
        wt_once_shape_of<32, T, Op>("<32>", dim3(32)),
        wt_once_shape_of<96, T, Op>("<96>", dim3(96)),
        wt_once_shape_of<0, T, Op>("run-time 1000", dim3(1000)),
        wt_once_shape_of<0, T, Op>("run-time 8", dim3(8)),
        wt_once_shape_of<0, T, Op>("run-time 16x6", dim3(16, 6)),
    };
    for (int i = 0; i < WT_ONCE_FEW_SHAPES; i++) s[i] = list[i];
}

/* The largest cluster both kernels of a shape accept. */
template <typename T, typename Op> static int wt_once_max_cluster(const wt_once_shape<T, Op> &s)
{
    const int a = wt_max_cluster(s.both, s.block), b = wt_max_cluster(s.last, s.block);
    return a < b ? a : b;
}

/* Which cluster sizes of 1..largest a once test takes: every one (all, outside the sanitizers),
   else 1..5, 8 and the largest (as wt_each_shape_and_size); under racecheck 1, 2, 3 and the
   largest. */
static int wt_once_size_taken(int all, int c, int largest)
{
    if (wt_quick_level() == 2) return c <= 3 || c == largest;
    if (all && !wt_quick()) return 1;
    return c <= 5 || c == 8 || c == largest;
}

/* Float sums of fresh random values (both signs, magnitudes 2^-20 .. 2^20), every cluster size
   from 1 to the largest the GPU accepts, every once shape: the once form to the bit against the
   documented ORDER (the same as warpred_cluster_allreduce's) and within the bound of a double
   reference (wt_check_float_sum), and every thread's once result bitwise equal to its
   warpred_cluster_allreduce result and to the once result of k_once_last. Then 2D and 3D
   clusters. */
static void test_once_float_sum(void **state)
{
    WT_NEED_GPU(state);
    typedef warpred_op_sum Op;
    wt_once_shape<float, Op> shapes[WT_ONCE_SHAPES];
    wt_once_shapes<float, Op>(shapes);
    for (int s = 0; s < WT_ONCE_SHAPES; s++) {
        const int largest = wt_once_max_cluster(shapes[s]);
        for (int c = 1; c <= largest; c++)
            if (wt_once_size_taken(1, c, largest))
                wt_run_once<float>(shapes[s].name, shapes[s].both, shapes[s].last, shapes[s].block, dim3(c, 1, 1), 3,
                                   wt_order_sensitive_fill<float>(), wt_check_float_sum<float>);
    }
    const dim3 cdims[5] = {dim3(2, 2, 1), dim3(1, 2, 2), dim3(2, 1, 4), dim3(3, 2, 1), dim3(4, 4, 1)};
    const int picks[2] = {8, 11}; /* run-time 256, run-time 16x6 */
    for (int i = 0; i < 2; i++) {
        const wt_once_shape<float, Op> &s = shapes[picks[i]];
        const int largest = wt_once_max_cluster(s);
        for (int d = 0; d < 5; d++)
            if ((int)(cdims[d].x * cdims[d].y * cdims[d].z) <= largest)
                wt_run_once<float>(s.name, s.both, s.last, s.block, cdims[d], 3, wt_order_sensitive_fill<float>(),
                                   wt_check_float_sum<float>);
    }
}

/* A launch without a cluster size, where each block is a cluster of one (as cluster_reduce.cuh's
   CLUSTER SHAPES has it, and as test_cluster_shapes checks for warpred_cluster_allreduce): float
   sums as in test_once_float_sum, blocks of 256 and 16 x 6 threads. */
static void test_once_without_clusters(void **state)
{
    WT_NEED_GPU(state);
    typedef warpred_op_sum Op;
    wt_once_shape<float, Op> shapes[WT_ONCE_SHAPES];
    wt_once_shapes<float, Op>(shapes);
    const int picks[2] = {8, 11}; /* run-time 256, run-time 16x6 */
    for (int i = 0; i < 2; i++) {
        const wt_once_shape<float, Op> &s = shapes[picks[i]];
        wt_run_once<float>("launched without clusters", s.both, s.last, s.block, dim3(0, 0, 0), 5,
                           wt_order_sensitive_fill<float>(), wt_check_float_sum<float>);
    }
}

/* argmax inputs, indexed by their place in the cluster. kind 0: values from {0, .., 7}, ties
   everywhere (the lowest index wins); kind 1: the same with two NaNs of random payloads and signs
   at two random places of each cluster (a NaN beats every number, the first NaN wins); kind 2: only
   -0 and +0 (-0 < +0: the first +0 wins, the first -0 where there is no +0). */
static auto wt_once_arg_fill(int kind)
{
    return [kind](wt_argf *in, size_t per, unsigned clusters) {
        for (size_t i = 0; i < per * clusters; i++) {
            const float v = kind == 2 ? (wt_rand_below(2) ? 0.0f : -0.0f) : (float)wt_rand_below(8);
            in[i] = warpred_make_arg(v, (int)(i % per));
        }
        if (kind == 1)
            for (unsigned k = 0; k < clusters; k++) {
                const size_t first = (size_t)wt_rand_below((int)per);
                const size_t second = per > 1 ? (first + 1 + (size_t)wt_rand_below((int)per - 1)) % per : first;
                in[k * per + first].value = wt_nan_with<float>(wt_rand64(), wt_rand_below(2));
                in[k * per + second].value = wt_nan_with<float>(wt_rand64(), wt_rand_below(2));
            }
    };
}

/* Values whose size is not a multiple of 4 bytes, so that the last 4-byte word a block sends
   is partly its value and partly the zero rest: __half (2 bytes, one word) and three __half
   (6 bytes, two words). Sums of small integers, exact in __half in any order: each cluster's
   |x| add up to at most 2048 (integers up to 2^11 are exact), so every partial sum is exact. */
struct wt_half3 {
    __half a, b, c;
};
template <> struct warpred_value<wt_half3> {
    template <typename F> static __device__ void members(wt_half3 &x, F &f)
    {
        f(x.a);
        f(x.b);
        f(x.c);
    }
};

/* The next value of a cluster of `per`: -3..3, about 700 of the cluster non-zero; 0 once the
   cluster's budget of |x| (2048 at its start) would run out. */
static __half wt_small_half(size_t per, int *budget)
{
    const int nonzero_per_mille = per <= 700 ? 1000 : (int)(700000 / per);
    int v = 0;
    if (wt_rand_below(1000) < nonzero_per_mille) v = (wt_rand_below(3) + 1) * (wt_rand_below(2) ? 1 : -1);
    if (abs(v) > *budget) v = 0;
    *budget -= abs(v);
    return wt_d2h(v);
}

static void wt_half_fill(__half *in, size_t per, unsigned clusters)
{
    for (unsigned k = 0; k < clusters; k++) {
        int budget = 2048;
        for (size_t j = 0; j < per; j++) in[k * per + j] = wt_small_half(per, &budget);
    }
}

static void wt_half3_fill(wt_half3 *in, size_t per, unsigned clusters)
{
    for (unsigned k = 0; k < clusters; k++) {
        int budget[3] = {2048, 2048, 2048};
        for (size_t j = 0; j < per; j++) {
            in[k * per + j].a = wt_small_half(per, &budget[0]);
            in[k * per + j].b = wt_small_half(per, &budget[1]);
            in[k * per + j].c = wt_small_half(per, &budget[2]);
        }
    }
}

/* got must be the exact sum want (a sum of small integers). */
static int wt_half_sum_is(const char *member, double got, double want, char *why, size_t len)
{
    if (got == want) return 1;
    snprintf(why, len, "%s: got %.17g, the exact sum is %.17g", member, got, want);
    return 0;
}

static int wt_check_half_sum(const __half *x, int C, int n, __half got, char *why, size_t len)
{
    double want = 0;
    for (size_t i = 0; i < (size_t)C * n; i++) want += wt_h2d(x[i]);
    return wt_half_sum_is("__half sum", wt_h2d(got), want, why, len);
}

static int wt_check_half3_sum(const wt_half3 *x, int C, int n, wt_half3 got, char *why, size_t len)
{
    double want[3] = {0, 0, 0};
    for (size_t i = 0; i < (size_t)C * n; i++)
        want[0] += wt_h2d(x[i].a), want[1] += wt_h2d(x[i].b), want[2] += wt_h2d(x[i].c);
    return wt_half_sum_is("member a", wt_h2d(got.a), want[0], why, len) &&
           wt_half_sum_is("member b", wt_h2d(got.b), want[1], why, len) &&
           wt_half_sum_is("member c", wt_h2d(got.c), want[2], why, len);
}

/* Compound and odd-sized values, against host references independent of the device's order:
   argmax of (float, int) pairs (ties, NaNs, signed zeros: wt_check_argmax, wt_compound.h's
   reference of op_argminmax.cuh's RULES), and __half and three-__half sums (exact). Five
   shapes, cluster sizes 1..5, 8 and the largest; every thread's once result also bitwise equal
   to its warpred_cluster_allreduce result and to k_once_last's. */
static void test_once_values(void **state)
{
    WT_NEED_GPU(state);
    {
        wt_once_shape<wt_argf, warpred_op_argmax> s[WT_ONCE_FEW_SHAPES];
        wt_once_few_shapes<wt_argf, warpred_op_argmax>(s);
        for (int i = 0; i < WT_ONCE_FEW_SHAPES; i++) {
            const int largest = wt_once_max_cluster(s[i]);
            for (int c = 1; c <= largest; c++)
                if (wt_once_size_taken(0, c, largest))
                    for (int kind = 0; kind < 3; kind++)
                        wt_run_once<wt_argf>(s[i].name, s[i].both, s[i].last, s[i].block, dim3(c, 1, 1), 3,
                                             wt_once_arg_fill(kind), wt_check_argmax);
        }
    }
    {
        wt_once_shape<__half, warpred_op_sum> s[WT_ONCE_FEW_SHAPES];
        wt_once_few_shapes<__half, warpred_op_sum>(s);
        for (int i = 0; i < WT_ONCE_FEW_SHAPES; i++) {
            const int largest = wt_once_max_cluster(s[i]);
            for (int c = 1; c <= largest; c++)
                if (wt_once_size_taken(0, c, largest))
                    wt_run_once<__half>(s[i].name, s[i].both, s[i].last, s[i].block, dim3(c, 1, 1), 3, wt_half_fill,
                                        wt_check_half_sum);
        }
    }
    {
        wt_once_shape<wt_half3, warpred_op_sum> s[WT_ONCE_FEW_SHAPES];
        wt_once_few_shapes<wt_half3, warpred_op_sum>(s);
        for (int i = 0; i < WT_ONCE_FEW_SHAPES; i++) {
            const int largest = wt_once_max_cluster(s[i]);
            for (int c = 1; c <= largest; c++)
                if (wt_once_size_taken(0, c, largest))
                    wt_run_once<wt_half3>(s[i].name, s[i].both, s[i].last, s[i].block, dim3(c, 1, 1), 3, wt_half3_fill,
                                          wt_check_half3_sum);
        }
    }
}

/* The usage snippet of cluster_allreduce_once.cuh (divide_by_row_sum), as the build copies it
   from the manual, launched with cluster_reduce.cuh's launch_per_row (4 blocks of 256 per row). */
#include "snippets/cluster_allreduce_once.inc"

/* Rows of {1, 2, ..., 3000}: the row's sum, 4501500, is exact in float (every partial sum is an
   integer below 2^24), and x / 4501500.0f rounds once, on the device as on the host, so every
   element must equal the host's (float)c / 4501500.0f exactly; that is within 2^-24 relative
   error of the exact quotient c / 4501500, checked too. */
static void test_once_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    enum { ROWS = 7, COLS = 3000 };
    float *x = (float *)wt_host_alloc(ROWS * COLS * sizeof(float));
    for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)(i % COLS + 1);
    float *d_x = (float *)wt_dev_copy(x, ROWS * COLS * sizeof(float));
    WT_CUDA(launch_per_row(divide_by_row_sum, ROWS, d_x, (int)COLS));
    WT_LAUNCHED();
    wt_to_host(x, d_x, ROWS * COLS * sizeof(float));
    for (int i = 0; i < ROWS * COLS; i++) {
        const int c = i % COLS + 1;
        const float want = (float)c / 4501500.0f;
        const double exact = (double)c / 4501500.0;
        if (x[i] != want || !(fabs((double)x[i] - exact) <= 0x1p-24 * exact))
            fail_msg("divide_by_row_sum: element %d of row %d is %.9g, expected %.9g (%d / 4501500 = %.17g)", c - 1,
                     i / COLS, (double)x[i], (double)want, c, exact);
    }
    wt_dev_free(d_x);
    wt_host_free(x);
}

/* Many clusters in one grid, each reducing its own inputs: clusters of 2, 4 and the largest number
   of blocks of 256, 1024 and 96 threads, about 2^19 threads a launch (39 to 2737 clusters, in two
   or more waves), int sums (exact) and float sums (the documented order), the second kernel
   k_once_skewed (blocks reaching begin and the call in changing orders); every thread of every
   cluster checked. Under the sanitizers 24 clusters (and under racecheck blocks of 256 only). */
static void test_once_many_clusters(void **state)
{
    WT_NEED_GPU(state);
    const dim3 blocks[3] = {dim3(256), dim3(1024), dim3(96)};
    for (int b = 0; b < (wt_quick_level() == 2 ? 1 : 3); b++) {
        const int found[4] = {wt_max_cluster(k_once_both<0, int, warpred_op_sum>, blocks[b]),
                              wt_max_cluster(k_once_skewed<int, warpred_op_sum>, blocks[b]),
                              wt_max_cluster(k_once_both<0, float, warpred_op_sum>, blocks[b]),
                              wt_max_cluster(k_once_skewed<float, warpred_op_sum>, blocks[b])};
        int largest = found[0];
        for (int i = 1; i < 4; i++)
            if (found[i] < largest) largest = found[i];
        const int sizes[3] = {2, 4, largest};
        for (int s = 0; s < 3; s++) {
            if (sizes[s] > largest || (s == 2 && (largest == 2 || largest == 4))) continue;
            /* about 2100 blocks of 256 threads (8 an SM at once), 5500 of 96 (21), 530 to 620 of 1024 (2) */
            const unsigned clusters = wt_quick() ? 24 : (1u << 19) / (blocks[b].x * sizes[s]) + 7;
            wt_run_once<int>("many clusters, int sum", k_once_both<0, int, warpred_op_sum>,
                             k_once_skewed<int, warpred_op_sum>, blocks[b], dim3(sizes[s], 1, 1), clusters,
                             wt_random_fill<int>(0), wt_ref_checker<int>(WT_SUM));
            wt_run_once<float>("many clusters, float sum", k_once_both<0, float, warpred_op_sum>,
                               k_once_skewed<float, warpred_op_sum>, blocks[b], dim3(sizes[s], 1, 1), clusters,
                               wt_order_sensitive_fill<float>(), wt_check_float_sum<float>);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check),
        WT_TEST(test_order_model),
        WT_TEST(test_doc_snippets),
        WT_TEST(test_int_sum),
        WT_TEST(test_float_sum),
        WT_TEST(test_double),
        WT_TEST(test_float_max),
        WT_TEST(test_float_min),
        WT_TEST(test_argmax),
        WT_TEST(test_welford),
        WT_TEST(test_tuple),
        WT_TEST(test_many_clusters),
        WT_TEST(test_cluster_shapes),
        WT_TEST(test_back_to_back),
        WT_TEST(test_once_float_sum),
        WT_TEST(test_once_values),
        WT_TEST(test_once_doc_snippet),
        WT_TEST(test_once_many_clusters),
        WT_TEST(test_once_without_clusters),
    };
    /* one test or a pattern of them, e.g. WARPRED_TEST_FILTER='test_once*' under a sanitizer */
    if (getenv("WARPRED_TEST_FILTER")) cmocka_set_test_filter(getenv("WARPRED_TEST_FILTER"));
    return cmocka_run_group_tests(tests, wt_cluster_setup, NULL);
}
