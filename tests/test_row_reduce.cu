/* row_reduce.cuh: rows held by a segment of a warp, a warp, a block and a cluster (sm_90), float,
   double and bfloat16, against exact host references: integer-valued data (sums exact in float),
   for every layout of warpred_row_policy's table that a test below names, row lengths 1, 3, not a
   multiple of 4 or 32, half the capacity plus one, the capacity minus one and the capacity; rows that
   start on a 16-byte boundary and rows that do not (an odd offset, or an odd length). Each thread's
   copy of the allreduce results is checked (the broadcast), the loaded registers are stored back
   (a copy of the input, nothing written past the rows), plus the policy table itself and the
   manual's USAGE snippet.
   Rows held packed (warpred_row_load_packed, warpred_row_unpack, warpred_row_policy::packed) for
   float, double, bfloat16 and half: every register unpacked bit-equals what warpred_row_load puts
   there (fills 0 and -inf; rows with NaN, +-0, +-inf, subnormals and the largest values of T;
   rows 16-byte aligned and rows that are not: a pitch that is not a multiple of 16 bytes), sums of
   the packed row bit-equal the same sums of the loaded floats and are within a stated bound of a
   double host reference; the packed layouts' constants are checked at compile time. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <limits>
#include <cmath>
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
    expect_policy<float, 1, 2, 8, 1>();
    expect_policy<float, 16, 2, 8, 1>();
    expect_policy<float, 17, 4, 8, 1>();
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

/* The packed layouts (warpred_row_policy::packed), at compile time: the manual's examples, and the
   rule for every length below: for T of 2 bytes the float table at MaxLen * sizeof(T) / 4 with
   PER_THREAD times 4 / sizeof(T) (capacity at least MaxLen), for float and double ::layout itself. */
template <class A, class B> struct same_layout {
    enum { value = 0 };
};
template <class A> struct same_layout<A, A> {
    enum { value = 1 };
};
typedef warpred_row_policy<__nv_bfloat16, 2048>::packed packed_bf16_2048;
typedef warpred_row_policy<__nv_bfloat16, 262144>::packed packed_bf16_262144;
typedef warpred_row_policy<__nv_bfloat16, 32>::packed packed_bf16_32;
typedef warpred_row_policy<__nv_bfloat16, 64>::packed packed_bf16_64;
static_assert((int)packed_bf16_2048::THREADS == 32 && (int)packed_bf16_2048::PER_THREAD == 64 &&
                  (int)packed_bf16_2048::CLUSTER == 1 && (int)packed_bf16_2048::VEC == 8 &&
                  (int)packed_bf16_2048::VECS == 8 && (int)packed_bf16_2048::CAPACITY == 2048,
              "packed bfloat16 2048: a warp x 64 values");
static_assert((int)packed_bf16_262144::THREADS == 512 && (int)packed_bf16_262144::PER_THREAD == 64 &&
                  (int)packed_bf16_262144::CLUSTER == 8 && (int)packed_bf16_262144::CAPACITY == 262144,
              "packed bfloat16 262144: a cluster of 8 blocks of 512 x 64");
static_assert((int)packed_bf16_32::THREADS == 2 && (int)packed_bf16_32::PER_THREAD == 16 &&
                  (int)packed_bf16_32::CLUSTER == 1 && (int)packed_bf16_32::ROWS_PER_BLOCK == 128,
              "packed bfloat16 32: the float row of 16, 2 threads x 16");
static_assert((int)packed_bf16_64::THREADS == 4 && (int)packed_bf16_64::PER_THREAD == 16 &&
                  (int)packed_bf16_64::CLUSTER == 1 && (int)packed_bf16_64::ROWS_PER_BLOCK == 64,
              "packed bfloat16 64: the float row of 32, 4 threads x 16");
static_assert(same_layout<warpred_row_policy<__half, 2048>::packed, warpred_row_layout<__half, 32, 64, 1>>::value,
              "packed half 2048: a warp x 64 values");

/* the float row of the same bytes (T of 1 or 2 bytes) */
template <typename T> constexpr long long float_len(long long n)
{
    return sizeof(T) < 4 ? (n * (long long)sizeof(T) + 3) / 4 : n;
}
template <typename T, long long N> struct packed_rule {
    typedef typename warpred_row_policy<T, N>::packed P;
    typedef typename warpred_row_policy<float, float_len<T>(N)>::layout Fl;
    static constexpr bool ok = sizeof(T) >= 4
                                   ? (bool)same_layout<P, typename warpred_row_policy<T, N>::layout>::value
                                   : (int)P::THREADS == (int)Fl::THREADS &&
                                         (int)P::PER_THREAD == (int)Fl::PER_THREAD * (4 / (int)sizeof(T)) &&
                                         (int)P::CLUSTER == (int)Fl::CLUSTER && (long long)P::CAPACITY >= N &&
                                         same_layout<typename P::type, T>::value;
};
template <long long... N> struct lengths {};
template <typename T, long long... N> constexpr bool packed_rules(lengths<N...>)
{
    return (packed_rule<T, N>::ok && ...);
}
typedef lengths<1, 2, 3, 31, 32, 33, 63, 64, 65, 128, 129, 256, 257, 512, 513, 1024, 1025, 2048, 2049, 4096, 4097, 8192,
                8193, 16384, 16385, 32768, 32769, 65536, 65537, 131072, 131073, 262143, 262144>
    packed_lengths;
static_assert(packed_rules<__nv_bfloat16>(packed_lengths()), "packed bfloat16: the float table in bytes");
static_assert(packed_rules<__half>(packed_lengths()), "packed half: the float table in bytes");
static_assert(packed_rules<float>(packed_lengths()), "packed float: the layout itself");
static_assert(packed_rules<double>(packed_lengths()), "packed double: the layout itself");

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
template <typename T> static const char *tname(void);
template <> const char *tname<float>(void) { return "float"; }
template <> const char *tname<double>(void) { return "double"; }
template <> const char *tname<__nv_bfloat16>(void) { return "bfloat16"; }
template <> const char *tname<__half>(void) { return "half"; }

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

/* run(c) for every cluster size c of 2, 3, 4, 8, 16 that the GPU allows (most: max_cluster's
   answer for the layout's kernel) and the layout holds. */
template <class L, typename Run> static void each_cluster_size(int most, const char *what, Run run)
{
    if (most < 2) {
        printf("[ INFO     ] %s: no clusters on this GPU (before sm_90), not run\n", what);
        return;
    }
    printf("[ INFO     ] %s: clusters of up to %d blocks\n", what, most);
    const int sizes[] = {2, 3, 4, 8, 16};
    for (int i = 0; i < 5; i++)
        if (sizes[i] <= most && sizes[i] <= L::CLUSTER) run(sizes[i]);
}

template <class L, typename T> static void run_clusters(const char *what)
{
    each_cluster_size<L>(max_cluster(probe<L, T, float>, L::BLOCK), what, [](int c) { run_layout<L, T>(c); });
}

static void test_clusters(void **state)
{
    WT_NEED_GPU(state);
    run_clusters<policy<float, 262144>, float>("float, 512 threads x 32");
    run_clusters<warpred_row_layout<__nv_bfloat16, 64, 8, 4>, __nv_bfloat16>("bfloat16, 64 threads x 8");
}

/* ---------------------------------------------------------------- rows held packed */

/* Per row and thread: the registers of warpred_row_load (loaded) and the values warpred_row_unpack
   gives for the same registers of warpred_row_load_packed (unpacked), at
   [((fill * rows + row) * threads + rank) * PER_THREAD + i], fill 0 then -inf; the row's sum (fill 0)
   of either, the same loop, at [row * threads + rank]. */
template <typename F> struct packed_out {
    F *unpacked, *loaded;
    F *sum_packed, *sum_loaded;
};

template <class L, typename T, typename F>
__device__ void packed_registers(const T *row, int len, F fill, F *unpacked, F *loaded)
{
    F v[L::PER_THREAD];
    uint4 p[L::VECS];
    warpred_row_load<L>(row, len, v, fill);
    warpred_row_load_packed<L>(row, len, p, fill);
#pragma unroll
    for (int i = 0; i < L::PER_THREAD; i++) {
        unpacked[i] = warpred_row_unpack<L, F>(p, i);
        loaded[i] = v[i];
    }
}

template <class L, typename T, typename F>
__device__ void packed_probe_row(const T *x, long long pitch, long long rows, int len, packed_out<F> out)
{
    const long long row = warpred_row_id<L>();
    if (row >= rows) return;
    const T *r = x + row * pitch;
    const long long threads = warpred_row_threads<L>(), slot = row * threads + warpred_row_rank<L>();
    packed_registers<L, T, F>(r, len, (F)0, out.unpacked + slot * L::PER_THREAD, out.loaded + slot * L::PER_THREAD);
    const long long second = (rows * threads + slot) * L::PER_THREAD;
    packed_registers<L, T, F>(r, len, (F)-INFINITY, out.unpacked + second, out.loaded + second);
    F v[L::PER_THREAD];
    uint4 p[L::VECS];
    warpred_row_load<L>(r, len, v, (F)0);
    warpred_row_load_packed<L>(r, len, p, (F)0);
    F s = 0, t = 0;
#pragma unroll
    for (int i = 0; i < L::PER_THREAD; i++) s += v[i];
#pragma unroll
    for (int i = 0; i < L::PER_THREAD; i++) t += warpred_row_unpack<L, F>(p, i);
    s = warpred_row_allreduce<L>(s, warpred_op_sum());
    t = warpred_row_allreduce<L>(t, warpred_op_sum());
    out.sum_loaded[slot] = s;
    out.sum_packed[slot] = t;
}

template <class L, typename T, typename F>
__global__ void __launch_bounds__(L::BLOCK)
    packed_probe(const T *x, long long pitch, long long rows, int len, packed_out<F> out)
{
    if constexpr (L::CLUSTER > 1 && !WARPRED_HAS_CLUSTERS) return;
    else
        packed_probe_row<L, T, F>(x, pitch, rows, len, out);
}

/* warpred_row_load_packed_vector for vectors j = 0 .. VECS + 1 (the last two past the thread's
   registers, as a streamed row reads them), fill -inf, each value as F: at
   [((row * threads + rank) * (VECS + 2) + j) * VEC + k]. */
template <class L, typename T, typename F>
__global__ void __launch_bounds__(L::BLOCK)
    packed_vector_probe(const T *x, long long pitch, long long rows, int len, F *out)
{
    if constexpr (L::CLUSTER > 1 && !WARPRED_HAS_CLUSTERS) return;
    else {
        const long long row = warpred_row_id<L>();
        if (row >= rows) return;
        const long long slot = row * warpred_row_threads<L>() + warpred_row_rank<L>();
        for (int j = 0; j < L::VECS + 2; j++) {
            const uint4 v = warpred_row_load_packed_vector<L>(x + row * pitch, len, j, -INFINITY);
            T t[L::VEC];
            memcpy(t, &v, sizeof v);
#pragma unroll
            for (int k = 0; k < L::VEC; k++) out[(slot * (L::VECS + 2) + j) * L::VEC + k] = (F)t[k];
        }
    }
}

/* Special values of T as bits: the first PACKED_FINITE finite (+-0, +-the smallest and largest
   subnormals, the smallest normal), then the largest finite values, +-inf and NaNs (quiet, negative,
   with a payload, signaling). */
enum { PACKED_FINITE = 7, PACKED_SPECIALS = 15 };
template <typename T> static uint64_t special_bits(int k);
template <> uint64_t special_bits<float>(int k)
{
    static const uint64_t b[PACKED_SPECIALS] = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff,
                                                0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x7f800000,
                                                0xff800000, 0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001};
    return b[k];
}
template <> uint64_t special_bits<double>(int k)
{
    static const uint64_t b[PACKED_SPECIALS] = {0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
                                                0x8000000000000001ull, 0x000fffffffffffffull, 0x800fffffffffffffull,
                                                0x0010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
                                                0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                                0xfff8000000000000ull, 0x7ff8000000012345ull, 0x7ff0000000000001ull};
    return b[k];
}
template <> uint64_t special_bits<__nv_bfloat16>(int k)
{
    static const uint64_t b[PACKED_SPECIALS] = {0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x7f7f,
                                                0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fc5, 0x7f81};
    return b[k];
}
template <> uint64_t special_bits<__half>(int k)
{
    static const uint64_t b[PACKED_SPECIALS] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x7bff,
                                                0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e05, 0x7c01};
    return b[k];
}

template <typename T> static T from_bits(uint64_t b)
{
    T t;
    memcpy((void *)&t, &b, sizeof(T)); /* little-endian: the low sizeof(T) bytes */
    return t;
}
template <typename T> static uint64_t bits_of(T t)
{
    uint64_t b = 0;
    memcpy(&b, (const void *)&t, sizeof(T));
    return b;
}
template <typename T> static T from_double(double d);
template <> float from_double<float>(double d) { return (float)d; }
template <> double from_double<double>(double d) { return d; }
template <> __nv_bfloat16 from_double<__nv_bfloat16>(double d) { return __float2bfloat16((float)d); }
template <> __half from_double<__half>(double d) { return __float2half((float)d); }
/* an element as F on the host (exact; the host's conversions of 16-bit NaNs may differ in payload) */
template <typename F> static F host_value(float t) { return (F)t; }
template <typename F> static F host_value(double t) { return (F)t; }
template <typename F> static F host_value(__nv_bfloat16 t) { return (F)__bfloat162float(t); }
template <typename F> static F host_value(__half t) { return (F)__half2float(t); }

/* rows rows of len at x + offset + row * pitch (offset 1 and a pitch of a multiple of VEC plus one:
   rows that start off a 16-byte boundary, each row at a different misalignment), cluster blocks per row
   (CLUSTER > 1 layouts). Rows r % 3 == 0: random finite values; 1: some replaced by special values of T,
   every one of them in turn (NaN, +-inf, the largest finite, subnormals, +-0); 2: some replaced by
   subnormals and +-0 only. Elements between and after the rows hold -77, which is neither fill. */
template <class L, typename T, typename F>
static void run_packed_case(long long rows, int len, int offset, long long pitch, int cluster)
{
    const int threads = L::CLUSTER > 1 ? L::THREADS * cluster : L::THREADS, per = L::PER_THREAD, vec = L::VEC;
    const long long span = offset + rows * pitch + 2 * vec, slots = rows * threads, vals = 2 * slots * per;
    T *x = (T *)wt_host_alloc((size_t)span * sizeof(T));
    for (long long i = 0; i < span; i++) x[i] = from_double<T>(-77.0);
    for (long long r = 0; r < rows; r++) {
        T *xr = x + offset + r * pitch;
        for (int c = 0; c < len; c++)
            xr[c] = from_double<T>((wt_rand_unit() * 2.0 - 1.0) * ldexp(1.0, wt_rand_below(9) - 4));
        const int kind = (int)(r % 3), kinds = kind == 1 ? PACKED_SPECIALS : PACKED_FINITE;
        if (kind == 0) continue;
        for (int j = 0; j < 1 + len / 8; j++) {
            const int c = j == 0 ? 0 : j == 1 ? len - 1 : wt_rand_below(len);
            xr[c] = from_bits<T>(special_bits<T>((int)((r / 3 + j) % kinds)));
        }
    }
    F *unpacked = (F *)wt_host_alloc((size_t)vals * sizeof(F)), *loaded = (F *)wt_host_alloc((size_t)vals * sizeof(F));
    F *sum_packed = (F *)wt_host_alloc((size_t)slots * sizeof(F));
    F *sum_loaded = (F *)wt_host_alloc((size_t)slots * sizeof(F));
    T *d_x = (T *)wt_dev_copy(x, (size_t)span * sizeof(T));
    packed_out<F> d = {(F *)wt_dev_alloc((size_t)vals * sizeof(F)), (F *)wt_dev_alloc((size_t)vals * sizeof(F)),
                       (F *)wt_dev_alloc((size_t)slots * sizeof(F)), (F *)wt_dev_alloc((size_t)slots * sizeof(F))};
    void (*kernel)(const T *, long long, long long, int, packed_out<F>) = packed_probe<L, T, F>;
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
    WT_CUDA(cudaLaunchKernelEx(&config, kernel, (const T *)(d_x + offset), pitch, rows, len, d));
    WT_LAUNCHED();
    wt_to_host(unpacked, d.unpacked, (size_t)vals * sizeof(F));
    wt_to_host(loaded, d.loaded, (size_t)vals * sizeof(F));
    wt_to_host(sum_packed, d.sum_packed, (size_t)slots * sizeof(F));
    wt_to_host(sum_loaded, d.sum_loaded, (size_t)slots * sizeof(F));
    const char *fills[2] = {"0", "-inf"};
    /* (a) every register: unpacked bits == loaded bits, and loaded == row[warpred_row_elem(i)] or the fill
       (the element computed here from the layout; NaN for NaN: the host's 16-bit conversions) */
    for (int f = 0; f < 2; f++) {
        const F fill = f ? (F)-INFINITY : (F)0;
        for (long long r = 0; r < rows; r++) {
            const T *xr = x + offset + r * pitch;
            for (int t = 0; t < threads; t++) {
                const long long base = ((f * rows + r) * threads + t) * per;
                for (int i = 0; i < per; i++) {
                    const long long e = ((long long)(i / vec) * threads + t) * vec + i % vec;
                    const F u = unpacked[base + i], l = loaded[base + i], want = e < len ? host_value<F>(xr[e]) : fill;
                    if (!bits_equal(u, l))
                        fail_msg("%s packed %d threads x %d x %d blocks, len %d, offset %d, pitch %lld, fill %s, row "
                                 "%lld thread %d register %d (element %lld, bits 0x%llx): unpacked %.9g (0x%llx), "
                                 "loaded %.9g (0x%llx)",
                                 tname<T>(), (int)L::THREADS, per, cluster, len, offset, pitch, fills[f], r, t, i, e,
                                 e < len ? (unsigned long long)bits_of(xr[e]) : 0ull, (double)u,
                                 (unsigned long long)bits_of(u), (double)l, (unsigned long long)bits_of(l));
                    if (!bits_equal(l, want) && !(std::isnan(l) && std::isnan(want)))
                        fail_msg("%s load %d threads x %d x %d blocks, len %d, offset %d, pitch %lld, fill %s, row "
                                 "%lld thread %d register %d (element %lld): %.9g (0x%llx), expected %.9g (0x%llx)",
                                 tname<T>(), (int)L::THREADS, per, cluster, len, offset, pitch, fills[f], r, t, i, e,
                                 (double)l, (unsigned long long)bits_of(l), (double)want,
                                 (unsigned long long)bits_of(want));
                }
            }
        }
    }
    /* (b) the sums: packed == loaded bit for bit in every thread, the same bits in all the row's threads,
       and |sum - reference| <= 2 (len + 1) u sum|x| + (len + 1) * the smallest subnormal of F (u: half
       F's epsilon; the factor 2 covers the double reference's own rounding where F is double). Rows with
       infinities, NaNs or the largest values (r % 3 == 1) may overflow F: there, a NaN reference (a NaN
       element, or both infinities) must give NaN. */
    const double u = (double)std::numeric_limits<F>::epsilon() / 2, tiny = (double)std::numeric_limits<F>::denorm_min();
    for (long long r = 0; r < rows; r++) {
        const T *xr = x + offset + r * pitch;
        double ref = 0, mag = 0;
        for (int c = 0; c < len; c++) {
            const double v = (double)host_value<F>(xr[c]);
            ref += v;
            mag += fabs(v);
        }
        const F s0 = sum_loaded[r * threads];
        for (int t = 0; t < threads; t++) {
            const F sp = sum_packed[r * threads + t], sl = sum_loaded[r * threads + t];
            /* a NaN sum is NaN in every thread; its sign and payload may differ (double NaNs keep
               an input's, and the butterfly adds in a different order in each lane) */
            const bool same = (sl != sl && s0 != s0) || bits_equal(sl, s0);
            if (!bits_equal(sp, sl) || !same)
                fail_msg("%s sum %d threads x %d x %d blocks, len %d, offset %d, pitch %lld, row %lld thread %d: "
                         "packed %.17g (0x%llx), loaded %.17g (0x%llx), thread 0 loaded %.17g (0x%llx)",
                         tname<T>(), (int)L::THREADS, per, cluster, len, offset, pitch, r, t, (double)sp,
                         (unsigned long long)bits_of(sp), (double)sl, (unsigned long long)bits_of(sl), (double)s0,
                         (unsigned long long)bits_of(s0));
        }
        const double bound = 2.0 * (len + 1) * u * mag + (len + 1) * tiny;
        if (r % 3 != 1 ? !(fabs((double)s0 - ref) <= bound) : std::isnan(ref) && !std::isnan(s0))
            fail_msg("%s sum %d threads x %d x %d blocks, len %d, offset %d, pitch %lld, row %lld: %.17g, reference "
                     "%.17g (bound %.3g)",
                     tname<T>(), (int)L::THREADS, per, cluster, len, offset, pitch, r, (double)s0, ref, bound);
    }
    /* (c) single vectors, also past the registers: row[(j * threads + t) * VEC + k] or -inf */
    const int nv = L::VECS + 2;
    F *vecs = (F *)wt_host_alloc((size_t)(slots * nv * vec) * sizeof(F)),
      *d_vecs = (F *)wt_dev_alloc((size_t)(slots * nv * vec) * sizeof(F));
    void (*vkernel)(const T *, long long, long long, int, F *) = packed_vector_probe<L, T, F>;
    WT_CUDA(cudaLaunchKernelEx(&config, vkernel, (const T *)(d_x + offset), pitch, rows, len, d_vecs));
    WT_LAUNCHED();
    wt_to_host(vecs, d_vecs, (size_t)(slots * nv * vec) * sizeof(F));
    for (long long r = 0; r < rows; r++) {
        const T *xr = x + offset + r * pitch;
        for (int t = 0; t < threads; t++)
            for (int j = 0; j < nv; j++)
                for (int k = 0; k < vec; k++) {
                    const long long e = ((long long)j * threads + t) * vec + k;
                    const F got = vecs[((r * threads + t) * nv + j) * vec + k];
                    const F want = e < len ? host_value<F>(xr[e]) : (F)-INFINITY;
                    if (!bits_equal(got, want) && !(std::isnan(got) && std::isnan(want)))
                        fail_msg("%s packed vector %d threads x %d x %d blocks, len %d, offset %d, pitch %lld, row "
                                 "%lld thread %d vector %d value %d (element %lld): %.9g (0x%llx), expected %.9g "
                                 "(0x%llx)",
                                 tname<T>(), (int)L::THREADS, per, cluster, len, offset, pitch, r, t, j, k, e,
                                 (double)got, (unsigned long long)bits_of(got), (double)want,
                                 (unsigned long long)bits_of(want));
                }
    }
    wt_dev_free(d_vecs);
    wt_host_free(vecs);
    wt_dev_free(d.sum_loaded);
    wt_dev_free(d.sum_packed);
    wt_dev_free(d.loaded);
    wt_dev_free(d.unpacked);
    wt_dev_free(d_x);
    wt_host_free(sum_loaded);
    wt_host_free(sum_packed);
    wt_host_free(loaded);
    wt_host_free(unpacked);
    wt_host_free(x);
}

/* Lengths 1, 3, VEC + 1, 31, 33, cap/2 + 1, cap - 1, cap (those that fit; for a cluster of more than
   2 blocks those a smaller cluster does not hold), rows aligned (offset 0, pitch a multiple of VEC) and
   not (offset 1, pitch a multiple of VEC plus 1); a row count that leaves the last block partly empty.
   The outputs are rows x capacity values: the budget counts those. */
template <class L, typename T, typename F = float> static void run_packed(int cluster = 1)
{
    const int cap = L::THREADS * L::PER_THREAD * (L::CLUSTER > 1 ? cluster : 1);
    const int lens[] = {1, 3, L::VEC + 1, 31, 33, cap / 2 + 1, cap - 1, cap};
    const long long budget = wt_quick() ? (1 << 16) : (1 << 19);
    long long rows = budget / cap;
    if (rows < 3) rows = 3; /* a row of each kind */
    if (L::ROWS_PER_BLOCK > 1 && rows % L::ROWS_PER_BLOCK == 0) rows--;
    for (int i = 0; i < 8; i++) {
        const int len = lens[i];
        if (len > cap || len < 1) continue;
        if (L::CLUSTER > 1 && cluster > 2 && len <= (cap / cluster) * (cluster - 1)) continue;
        const long long pitch = (len + L::VEC - 1) / L::VEC * L::VEC;
        for (int offset = 0; offset < 2; offset++) run_packed_case<L, T, F>(rows, len, offset, pitch + offset, cluster);
    }
}

template <typename T, long long N> using packed = typename warpred_row_policy<T, N>::packed;

static void test_packed_segments(void **state)
{
    WT_NEED_GPU(state);
    run_packed<packed<float, 16>, float>(); /* 2 threads x 8 */
    run_packed<packed<float, 32>, float>();
    run_packed<packed<__nv_bfloat16, 32>, __nv_bfloat16>(); /* 2 threads x 16 */
    run_packed<packed<__nv_bfloat16, 64>, __nv_bfloat16>(); /* 4 threads x 16 */
    run_packed<packed<__half, 32>, __half>();
    run_packed<packed<__nv_bfloat16, 256>, __nv_bfloat16>(); /* 16 threads x 16 */
    run_packed<packed<__half, 256>, __half>();
    run_packed<packed<double, 32>, double, double>();
}

static void test_packed_warps(void **state)
{
    WT_NEED_GPU(state);
    run_packed<packed<float, 256>, float>();
    run_packed<packed<float, 1024>, float>();
    run_packed<packed<__nv_bfloat16, 1024>, __nv_bfloat16>(); /* 32 x 32 */
    run_packed<packed<__nv_bfloat16, 2048>, __nv_bfloat16>(); /* 32 x 64 */
    run_packed<packed<__half, 2048>, __half>();
    run_packed<packed<__nv_bfloat16, 2048>, __nv_bfloat16, double>(); /* warpred_row_unpack<L, double> */
    run_packed<packed<double, 1024>, double, double>();
}

static void test_packed_blocks(void **state)
{
    WT_NEED_GPU(state);
    run_packed<packed<float, 2048>, float>();
    run_packed<packed<float, 16384>, float>();
    run_packed<packed<__nv_bfloat16, 4096>, __nv_bfloat16>();  /* 128 x 32 */
    run_packed<packed<__nv_bfloat16, 16384>, __nv_bfloat16>(); /* 512 x 32 */
    run_packed<packed<__half, 16384>, __half>();
    run_packed<packed<double, 2048>, double, double>();
}

template <class L, typename T> static void run_packed_clusters(const char *what)
{
    each_cluster_size<L>(max_cluster(packed_probe<L, T, float>, L::BLOCK), what, [](int c) { run_packed<L, T>(c); });
}

static void test_packed_clusters(void **state)
{
    WT_NEED_GPU(state);
    run_packed_clusters<packed<__nv_bfloat16, 262144>, __nv_bfloat16>("packed bfloat16, 512 threads x 64 x 8");
    run_packed_clusters<packed<__half, 65536>, __half>("packed half, 512 threads x 64 x 2");
    run_packed_clusters<packed<float, 32768>, float>("packed float, 512 threads x 32 x 2");
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
        WT_TEST(test_policy),          WT_TEST(test_doc_snippet),  WT_TEST(test_segments),
        WT_TEST(test_warps),           WT_TEST(test_blocks),       WT_TEST(test_clusters),
        WT_TEST(test_packed_segments), WT_TEST(test_packed_warps), WT_TEST(test_packed_blocks),
        WT_TEST(test_packed_clusters),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
