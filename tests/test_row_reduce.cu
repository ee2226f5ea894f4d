/* row_reduce.cuh: rows held by a segment of a warp, a warp, a block and a cluster (sm_90), float,
   double and bfloat16, against exact host references: integer-valued data (sums exact in float),
   for every layout of warpred_row_policy's table that a test below names, row lengths 1, 3, not a
   multiple of 4 or 32, half the capacity plus one, the capacity minus one and the capacity; rows that
   start on a 16-byte boundary and rows that do not (an odd offset, or an odd length). Each thread's
   copy of the allreduce results is checked (the broadcast), the loaded registers are stored back
   (a copy of the input, nothing written past the rows), plus the policy table itself and the
   manual's USAGE snippet. */
#include <cuda_bf16.h>
#include <warpred/row_reduce.cuh>
#include <warpred/op_argminmax.cuh>
#include "wt.h"

/* ---------------------------------------------------------------- the policy table */

template <typename T, long long N, int Threads, int PerThread, int Cluster> static void expect_policy(void)
{
    typedef typename warpred_row_policy<T, N>::layout L;
    if (L::THREADS != Threads || L::PER_THREAD != PerThread || L::CLUSTER != Cluster)
        fail_msg("policy<%d bytes, %lld>: %d threads x %d values x %d blocks, expected %d x %d x %d", (int)sizeof(T), N,
                 (int)L::THREADS, (int)L::PER_THREAD, (int)L::CLUSTER, Threads, PerThread, Cluster);
    if (L::CAPACITY < N) fail_msg("policy<%lld>: capacity %d", N, (int)L::CAPACITY);
}

static void test_policy(void **state)
{
    (void)state;
    expect_policy<float, 1, 4, 8, 1>();
    expect_policy<float, 32, 4, 8, 1>();
    expect_policy<float, 33, 8, 8, 1>();
    expect_policy<__nv_bfloat16, 128, 16, 8, 1>();
    expect_policy<float, 256, 32, 8, 1>();
    expect_policy<float, 512, 32, 16, 1>();
    expect_policy<float, 1024, 32, 32, 1>();
    expect_policy<float, 2048, 128, 16, 1>();
    expect_policy<__nv_bfloat16, 4096, 256, 16, 1>();
    expect_policy<float, 8192, 512, 16, 1>();
    expect_policy<float, 16384, 512, 32, 1>();
    expect_policy<float, 16385, 512, 32, 2>();
    expect_policy<float, 65536, 512, 32, 4>();
    expect_policy<float, 100000, 512, 32, 8>();
    expect_policy<double, 262144, 512, 32, 16>();
    typedef warpred_row_layout<float, 4, 8> small;
    typedef warpred_row_layout<__nv_bfloat16, 256, 16> block;
    assert_int_equal(small::VEC, 4);
    assert_int_equal(small::VECS, 2);
    assert_int_equal(small::BLOCK, 256);
    assert_int_equal(small::ROWS_PER_BLOCK, 64);
    assert_int_equal(block::VEC, 8);
    assert_int_equal(block::VECS, 2);
    assert_int_equal(block::BLOCK, 256);
    assert_int_equal(block::ROWS_PER_BLOCK, 1);
}

/* ---------------------------------------------------------------- the probe kernel */

/* Per row: the sum (fill 0), the max (fill -inf) and the argmax pair (fill -inf, index past the
   end), each thread's copy at [row * threads + rank]; the registers loaded with fill 0 stored to y. */
typedef struct probe_out {
    float *sum, *max;
    int *arg;
} probe_out;

template <class L, typename T, typename F>
__device__ void probe_row(const T *x, T *y, long long rows, int len, probe_out out)
{
    const long long row = warpred_row_id<L>();
    if (row >= rows) return;
    F v[L::PER_THREAD], w[L::PER_THREAD];
    warpred_row_load<L>(x + row * len, len, v, (F)0);
    warpred_row_load<L>(x + row * len, len, w, (F)-INFINITY);
    F s = 0, m = -INFINITY;
    warpred_arg<F, int> a = warpred_op_argmax::identity<warpred_arg<F, int>>();
    for (int i = 0; i < L::PER_THREAD; i++) {
        s += v[i];
        m = m > w[i] ? m : w[i];
        a = warpred_op_argmax()(a, warpred_make_arg(w[i], (int)warpred_row_elem<L>(i)));
    }
    s = warpred_row_allreduce<L>(s, warpred_op_sum());
    m = warpred_row_allreduce<L>(m, warpred_op_max());
    a = warpred_row_allreduce<L>(a, warpred_op_argmax());
    const long long slot = row * warpred_row_threads<L>() + warpred_row_rank<L>();
    out.sum[slot] = (float)s;
    out.max[slot] = (float)m;
    out.arg[slot] = a.index;
    warpred_row_store<L>(y + row * len, len, v);
}

template <class L, typename T, typename F>
__global__ void __launch_bounds__(L::BLOCK) probe(const T *x, T *y, long long rows, int len, probe_out out)
{
    if constexpr (L::CLUSTER > 1 && !WARPRED_HAS_CLUSTERS) return;
    else
        probe_row<L, T, F>(x, y, rows, len, out);
}

/* ---------------------------------------------------------------- host side */

template <typename T> static T from_int(int v);
template <> float from_int<float>(int v) { return (float)v; }
template <> double from_int<double>(int v) { return (double)v; }
template <> __nv_bfloat16 from_int<__nv_bfloat16>(int v) { return __float2bfloat16((float)v); }
template <typename T> static int bits_equal(T a, T b)
{
    return memcmp((const void *)&a, (const void *)&b, sizeof(T)) == 0;
}
template <typename T> static const char *tname(void)
{
    return sizeof(T) == 2 ? "bfloat16" : sizeof(T) == 4 ? "float" : "double";
}

/* The largest cluster of blocks of `block` threads the GPU runs for this kernel (1 before sm_90). */
template <typename K> static int max_cluster(K kernel, int block)
{
    int device = 0, major = 0;
    WT_CUDA(cudaGetDevice(&device));
    WT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (major < 9) return 1;
    WT_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (int c = 16; c >= 2; c /= 2) {
        cudaLaunchAttribute attr = {};
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = c;
        attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(c);
        config.blockDim = dim3(block);
        config.attrs = &attr;
        config.numAttrs = 1;
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, kernel, &config) == cudaSuccess && n > 0) return c;
        cudaGetLastError();
    }
    return 1;
}

/* rows rows of len at x + offset (offset 0 or 1 element: aligned or not), cluster blocks per row
   (CLUSTER > 1 layouts), checked against exact references. */
template <class L, typename T, typename F> static void run_case(long long rows, int len, int offset, int cluster)
{
    const long long n = rows * len;
    const int pad = 64; /* poisoned elements after the rows: nothing may be written there */
    const int threads = L::CLUSTER > 1 ? L::THREADS * cluster : L::THREADS;
    T *x = (T *)wt_host_alloc((size_t)(n + offset) * sizeof(T));
    T *y = (T *)wt_host_alloc((size_t)(n + offset + pad) * sizeof(T));
    float *sum = (float *)wt_host_alloc((size_t)rows * threads * sizeof(float));
    float *mx = (float *)wt_host_alloc((size_t)rows * threads * sizeof(float));
    int *arg = (int *)wt_host_alloc((size_t)rows * threads * sizeof(int));
    for (long long i = 0; i < n + offset; i++) x[i] = from_int<T>(wt_rand_below(65) - 32);
    for (long long r = 0; r < rows; r++) /* some rows: all equal (ties), the max at the end */
        if (r % 5 == 3)
            for (int c = 0; c < len; c++) x[offset + r * len + c] = from_int<T>(c == len - 1 ? 40 : -7);
    T *d_x = (T *)wt_dev_copy(x, (size_t)(n + offset) * sizeof(T));
    T *d_y = (T *)wt_dev_alloc((size_t)(n + offset + pad) * sizeof(T));
    probe_out d = {(float *)wt_dev_alloc((size_t)rows * threads * sizeof(float)),
                   (float *)wt_dev_alloc((size_t)rows * threads * sizeof(float)),
                   (int *)wt_dev_alloc((size_t)rows * threads * sizeof(int))};
    void (*kernel)(const T *, T *, long long, int, probe_out) = probe<L, T, F>;
    cudaLaunchAttribute attr = {};
    cudaLaunchConfig_t config = {};
    config.blockDim = dim3(L::BLOCK);
    if (L::CLUSTER > 1) {
        config.gridDim = dim3((unsigned)(rows * cluster));
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = (unsigned)cluster;
        attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
        config.attrs = &attr;
        config.numAttrs = 1;
    } else {
        config.gridDim = dim3((unsigned)((rows + L::ROWS_PER_BLOCK - 1) / L::ROWS_PER_BLOCK));
    }
    WT_CUDA(cudaLaunchKernelEx(&config, kernel, (const T *)(d_x + offset), d_y + offset, rows, len, d));
    WT_LAUNCHED();
    wt_to_host(y, d_y, (size_t)(n + offset + pad) * sizeof(T));
    wt_to_host(sum, d.sum, (size_t)rows * threads * sizeof(float));
    wt_to_host(mx, d.max, (size_t)rows * threads * sizeof(float));
    wt_to_host(arg, d.arg, (size_t)rows * threads * sizeof(int));
    unsigned char poison_bytes[sizeof(T)];
    memset(poison_bytes, WT_POISON, sizeof poison_bytes);
    T poison;
    memcpy((void *)&poison, poison_bytes, sizeof(T));
    for (int i = 0; i < offset; i++)
        if (!bits_equal(y[i], poison)) fail_msg("%s len %d: written before the first row", tname<T>(), len);
    for (int i = 0; i < pad; i++)
        if (!bits_equal(y[offset + n + i], poison)) fail_msg("%s len %d: written past the last row", tname<T>(), len);
    for (long long r = 0; r < rows; r++) {
        const T *xr = x + offset + r * len;
        long long s = 0;
        double m = -INFINITY;
        int a = -1;
        for (int c = 0; c < len; c++) {
            const double v = (double)(F)xr[c];
            s += (long long)v;
            if (v > m) m = v, a = c;
            if (!bits_equal(y[offset + r * len + c], xr[c]))
                fail_msg("%s %d threads x %d, len %d, offset %d: row %lld element %d not copied", tname<T>(),
                         (int)L::THREADS, (int)L::PER_THREAD, len, offset, r, c);
        }
        for (int t = 0; t < threads; t++) {
            const long long k = r * threads + t;
            if (sum[k] != (float)s || mx[k] != (float)m || arg[k] != a)
                fail_msg("%s %d threads x %d x %d blocks, len %d, offset %d, row %lld, thread %d: sum %.1f max %.1f "
                         "argmax %d, expected %lld %.1f %d",
                         tname<T>(), (int)L::THREADS, (int)L::PER_THREAD, cluster, len, offset, r, t, sum[k], mx[k],
                         arg[k], s, m, a);
        }
    }
    wt_dev_free(d.arg);
    wt_dev_free(d.max);
    wt_dev_free(d.sum);
    wt_dev_free(d_y);
    wt_dev_free(d_x);
    wt_host_free(arg);
    wt_host_free(mx);
    wt_host_free(sum);
    wt_host_free(y);
    wt_host_free(x);
}

/* Lengths 1, 3, 5, 31, 33, cap/2 + 1, cap - 1, cap (those that fit), aligned and not, a row count
   that leaves the last block partly empty. */
template <class L, typename T, typename F = float> static void run_layout(int cluster = 1)
{
    const int cap = L::THREADS * L::PER_THREAD * (L::CLUSTER > 1 ? cluster : 1);
    const int lens[] = {1, 3, 5, 31, 33, cap / 2 + 1, cap - 1, cap};
    const long long budget = wt_quick() ? (1 << 17) : (1 << 21); /* elements per case */
    for (int i = 0; i < 8; i++) {
        const int len = lens[i];
        if (len > cap || len < 1) continue;
        if (L::CLUSTER > 1 && cluster > 2 && len <= (cap / cluster) * (cluster - 1)) continue; /* a smaller one's */
        /* the per-thread outputs (rows x threads) count against the budget too: short rows of a
           cluster layout would otherwise ask for millions of clusters and gigabytes of outputs */
        const int threads = L::CLUSTER > 1 ? L::THREADS * cluster : L::THREADS;
        long long rows = budget / (len > threads ? len : threads);
        if (rows < 2) rows = 2;
        if (L::ROWS_PER_BLOCK > 1 && rows % L::ROWS_PER_BLOCK == 0) rows--; /* the last block partly empty */
        for (int offset = 0; offset < 2; offset++) run_case<L, T, F>(rows, len, offset, cluster);
    }
}

template <typename T, long long N> using policy = typename warpred_row_policy<T, N>::layout;

static void test_segments(void **state)
{
    WT_NEED_GPU(state);
    run_layout<policy<float, 32>, float>();
    run_layout<policy<float, 64>, float>();
    run_layout<policy<__nv_bfloat16, 128>, __nv_bfloat16>();
    run_layout<warpred_row_layout<float, 2, 4>, float>();
    run_layout<warpred_row_layout<double, 8, 4>, double, double>();
}

static void test_warps(void **state)
{
    WT_NEED_GPU(state);
    run_layout<policy<float, 256>, float>();
    run_layout<policy<__nv_bfloat16, 512>, __nv_bfloat16>();
    run_layout<policy<float, 1024>, float>();
    run_layout<policy<double, 1024>, double, double>();
}

static void test_blocks(void **state)
{
    WT_NEED_GPU(state);
    run_layout<policy<float, 2048>, float>();
    run_layout<policy<__nv_bfloat16, 4096>, __nv_bfloat16>();
    run_layout<policy<float, 16384>, float>();
    run_layout<warpred_row_layout<float, 96, 4>, float>(); /* a block that is not a power of two */
}

template <class L, typename T> static void run_clusters(const char *what)
{
    const int most = max_cluster(probe<L, T, float>, L::BLOCK);
    if (most < 2) {
        printf("[ INFO     ] %s: no clusters on this GPU (before sm_90), not run\n", what);
        return;
    }
    printf("[ INFO     ] %s: clusters of up to %d blocks\n", what, most);
    const int sizes[] = {2, 3, 4, 8, 16};
    for (int i = 0; i < 5; i++)
        if (sizes[i] <= most && sizes[i] <= L::CLUSTER) run_layout<L, T>(sizes[i]);
}

static void test_clusters(void **state)
{
    WT_NEED_GPU(state);
    run_clusters<policy<float, 262144>, float>("float, 512 threads x 32");
    run_clusters<warpred_row_layout<__nv_bfloat16, 64, 8, 4>, __nv_bfloat16>("bfloat16, 64 threads x 8");
}

/* ---------------------------------------------------------------- the manual's snippet */

#include "snippets/row_reduce.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const int rows = 13, len = 5; /* 13: the second block holds 5 rows of its 8 */
    const float base[5] = {1, 2, 3, 4, 10}, want[5] = {0.05f, 0.1f, 0.15f, 0.2f, 0.5f};
    float x[rows * len], y[rows * len];
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < len; c++) x[r * len + c] = base[c] * (float)(r + 1);
    float *d_x = (float *)wt_dev_copy(x, sizeof x), *d_y = (float *)wt_dev_alloc(sizeof y);
    wt_launch_into(y, d_y, sizeof y, [&] {
        normalize<<<(rows + rows256::ROWS_PER_BLOCK - 1) / rows256::ROWS_PER_BLOCK, rows256::BLOCK>>>(d_x, d_y, rows,
                                                                                                      len);
    });
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < len; c++)
            if (fabsf(y[r * len + c] - want[c]) > 1e-6f)
                fail_msg("snippet: row %d y[%d] = %.9g, expected %.9g", r, c, y[r * len + c], want[c]);
    wt_dev_free(d_y);
    wt_dev_free(d_x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_policy), WT_TEST(test_doc_snippet), WT_TEST(test_segments),
        WT_TEST(test_warps),  WT_TEST(test_blocks),      WT_TEST(test_clusters),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
