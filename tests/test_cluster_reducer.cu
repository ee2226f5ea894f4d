/* The cluster reducer (warpred/cluster_reducer.cuh), sm_90 and newer: loops of allreduce calls
   whose every result must have the bits that warpred_cluster_allreduce gives for the same values
   (tests/test_cluster_reduce.cu checks its ORDER against a model), and must also match a host
   reference, so that both being wrong the same way cannot pass: float sums to the bit against the
   ORDER model and within a bound of a double reference, float max and min, int sums, max and min
   exact, argmax / argmin / argmax_num of (float, int) pairs (two 4-byte words a value) with ties and
   NaNs. Cluster sizes 1, 2, 3, 4, 8 and the largest the GPU accepts, blocks of 256 (the size at
   compile time and at run time), 96 (three whole warps), 20 (fewer than a warp), 100 and 1000 (a
   partial last warp, at compile time and at run time) and 1024, and
   launches without clusters. Then many clusters, in waves, whose blocks reach each call at
   different times (what the two mailboxes are for), and the manual's snippet. Fresh random inputs
   each run (seed printed). Without a GPU of compute capability 9.0 or newer, or in a build without
   sm_90 code, the GPU tests report SKIPPED. Kernels keep their calls under #if
   WARPRED_HAS_CLUSTERS: the default build also makes sm_75 and sm_80 code. */
#include <type_traits>
#include <warpred/cluster_reducer.cuh>
#include <warpred/op_argminmax.cuh>
#include "wt_compound.h" /* wt_arg_pick, wt_arg_matches; wt_types.h, wt.h */
#include "wt_order.h"    /* wt_down_tree_model, wt_block_sum_model */
#include "wt_cluster.h"  /* wt_cluster_setup_with, wt_max_cluster, wt_launch, wt_same */

typedef warpred_arg<float, int> wt_argf;

/* ------------------------------------------------------------------------------------------
   inputs, the same on the device and the host
   ------------------------------------------------------------------------------------------ */

/* 32 bits of a hash of (seed, place, call): splitmix64's finalizer. */
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

/* Call k's value for the thread at place g of the grid (blocks numbered as in the grid, threads by
   threadIdx.x); per: the places of a cluster (g % per: the place in the cluster). */
template <typename T> struct wt_gen;

/* Both signs, magnitudes 2^-20 .. 2^20 with random mantissas: sums depend on the order. No zeros
   and no NaNs, so that max and min are one input's bits. */
template <> struct wt_gen<float> {
    static __host__ __device__ __forceinline__ float at(unsigned long long seed, unsigned k, size_t g, size_t per)
    {
        (void)per;
        const unsigned h = wt_mix(seed, g, k);
        const unsigned bits = (h & 0x807fffffu) | (107u + (h >> 23 & 0xffu) % 41u) << 23;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
};

/* -65536 .. 65535: a cluster's sum (at most 16 x 1024 values) never leaves int's range. */
template <> struct wt_gen<int> {
    static __host__ __device__ __forceinline__ int at(unsigned long long seed, unsigned k, size_t g, size_t per)
    {
        (void)per;
        return (int)(wt_mix(seed, g, k) & 0x1ffffu) - 65536;
    }
};

/* Values 0..7, ties everywhere (the lowest index wins); in odd calls one value in 512 a quiet NaN
   of either sign and any payload. The index: the place in the cluster. */
template <> struct wt_gen<wt_argf> {
    static __host__ __device__ __forceinline__ wt_argf at(unsigned long long seed, unsigned k, size_t g, size_t per)
    {
        const unsigned h = wt_mix(seed, g, k);
        float v = (float)(h & 7u);
        if (k % 2 == 1 && (h >> 20 & 511u) == 0) {
            const unsigned bits = (h & 0x80000000u) | 0x7fc00000u | (h >> 3 & 0x3ffffu);
            memcpy(&v, &bits, sizeof v);
        }
        return warpred_make_arg(v, (int)(g % per));
    }
};

/* ------------------------------------------------------------------------------------------
   device side
   ------------------------------------------------------------------------------------------ */

/* in[k * threads + g]: call k's value of the thread at place g. */
template <typename T> __global__ void k_fill(T *in, unsigned long long seed, int calls, size_t threads, size_t per)
{
    const size_t count = (size_t)calls * threads;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        in[i] = wt_gen<T>::at(seed, (unsigned)(i / threads), i % threads, per);
}

/* The operation of call k: sum, max and min in turn for numbers; argmax, argmin and argmax_num for
   pairs. f(v, op) is one allreduce. */
template <typename T, typename F> __device__ __forceinline__ T wt_call(F &f, T v, unsigned k)
{
    if constexpr (std::is_same<T, wt_argf>::value) {
        switch (k % 3) {
        case 0: return f(v, warpred_op_argmax());
        case 1: return f(v, warpred_op_argmin());
        default: return f(v, warpred_op_argmax_num());
        }
    } else {
        switch (k % 3) {
        case 0: return f(v, warpred_op_sum());
        case 1: return f(v, warpred_op_max());
        default: return f(v, warpred_op_min());
        }
    }
}

/* The threads whose results are kept, per block and call: the first (warp 0), the middle and the
   last (the last warp, partial where the block has one). */
enum { WT_KEPT = 3 };
static __host__ __device__ __forceinline__ int wt_kept_thread(int s, int n)
{
    return s == 0 ? 0 : s == 1 ? n / 2 : n - 1;
}

/* calls allreduces through f, of in's values (1D blocks); out[(k * blocks + block) * WT_KEPT + s]:
   call k's result in kept thread s. Call k + 1's value is loaded before call k, so that a load is
   in flight during each reduction, as in a user's loop. */
template <typename T, typename F> __device__ __forceinline__ void wt_loop(F &f, const T *in, T *out, int calls)
{
    const int n = (int)blockDim.x, tid = (int)threadIdx.x;
    const size_t threads = (size_t)gridDim.x * n, g = (size_t)blockIdx.x * n + tid;
    const int kept = tid == 0 ? 0 : tid == n / 2 ? 1 : tid == n - 1 ? 2 : -1;
    T next = in[g];
    for (int k = 0; k < calls; k++) {
        const T v = next;
        if (k + 1 < calls) next = in[(size_t)(k + 1) * threads + g];
        const T r = wt_call(f, v, (unsigned)k);
        if (kept >= 0) out[((size_t)k * gridDim.x + blockIdx.x) * WT_KEPT + kept] = r;
    }
}

/* The loop through a cluster reducer, and the same loop through warpred_cluster_allreduce. (Blocks
   of up to 1024 threads: __launch_bounds__ keeps them within 64 registers.) */
template <int BT, typename T> __global__ void __launch_bounds__(1024) k_reducer(const T *in, T *out, int calls)
{
#if WARPRED_HAS_CLUSTERS
    WARPRED_CLUSTER_REDUCER(red, T, BT);
    auto f = [&red](T v, auto op) { return red.allreduce(v, op); };
    wt_loop(f, in, out, calls);
#else
    (void)in, (void)out, (void)calls;
#endif
}

template <int BT, typename T> __global__ void __launch_bounds__(1024) k_plain(const T *in, T *out, int calls)
{
#if WARPRED_HAS_CLUSTERS
    auto f = [](T v, auto op) { return warpred_cluster_allreduce<BT>(v, op); };
    wt_loop(f, in, out, calls);
#else
    (void)in, (void)out, (void)calls;
#endif
}

/* Int sums of wt_gen<int> values through a reducer, clusters of C blocks along x. Before call k the
   block of rank r in cluster q sleeps 0.3 us times (r + k + q) % 5, so that the blocks reach the
   calls in changing orders: a block done with call k sends call k + 1's total while others still
   wait for call k's. out[(k * blocks + block) * 2 + s]: threads 0 (s 0) and n - 1 (s 1). */
template <int BT> __global__ void __launch_bounds__(1024) k_skewed(unsigned long long seed, int *out, int calls, int C)
{
#if WARPRED_HAS_CLUSTERS
    const int n = (int)blockDim.x, tid = (int)threadIdx.x;
    const unsigned rank = blockIdx.x % C, cluster = blockIdx.x / C;
    const size_t g = (size_t)blockIdx.x * n + tid;
    WARPRED_CLUSTER_REDUCER(sum, int, BT);
    for (int k = 0; k < calls; k++) {
        const int v = wt_gen<int>::at(seed, (unsigned)k, g, 0);
        const unsigned lag = (rank + (unsigned)k + cluster) % 5;
        if (lag != 0) __nanosleep(300 * lag);
        const int r = sum.allreduce(v, warpred_op_sum());
        if (tid == 0 || tid == n - 1) out[((size_t)k * gridDim.x + blockIdx.x) * 2 + (tid == 0 ? 0 : 1)] = r;
    }
#else
    (void)seed, (void)out, (void)calls, (void)C;
#endif
}

/* ------------------------------------------------------------------------------------------
   host side: launching
   ------------------------------------------------------------------------------------------ */

/* The group setup (tests/wt_cluster.h), k_reducer's code the probe of sm_90 code. */
static int wt_cluster_setup(void **state) { return wt_cluster_setup_with(state, k_reducer<0, int>); }

/* The largest cluster a reducer kernel launches with: at most the reducer's 16 blocks. */
template <typename Kernel> static int wt_reducer_cluster(Kernel kernel, dim3 block)
{
    return wt_max_cluster(kernel, block, WARPRED_CLUSTER_ONCE_MAX_BLOCKS);
}

/* ------------------------------------------------------------------------------------------
   host side: references
   ------------------------------------------------------------------------------------------ */

/* The float sum in cluster_reduce.cuh's ORDER (as test_cluster_reduce.cu's model states it):
   block totals t_r by wt_block_sum_model; with P = min(n, 32), lane L < P holds t_L op t_(L+P)
   ... left to right, then the shuffle-down tree over the min(C, P) lanes. */
static float wt_cluster_sum_model(const float *x, int C, int n)
{
    const int P = n < 32 ? n : 32, holders = C < P ? C : P;
    float lane[32] = {};
    for (int L = 0; L < holders; L++) {
        lane[L] = wt_block_sum_model(x + (size_t)L * n, n);
        for (int r = L + P; r < C; r += P) lane[L] = lane[L] + wt_block_sum_model(x + (size_t)r * n, n);
    }
    return wt_down_tree_model(lane, holders);
}

/* The longest chain of roundings from a value to the cluster's sum: 10 in the block (5 levels of
   the column tree, 5 of the warp tree), then ceil(C / P) - 1 steps in a lane and ceil(log2(min(C,
   P))) levels of the tree. */
static int wt_sum_depth(int C, int n)
{
    const int P = n < 32 ? n : 32, holders = C < P ? C : P;
    int levels = 0;
    while ((1 << levels) < holders) levels++;
    return 10 + (C + P - 1) / P - 1 + levels;
}

static const char *const wt_number_op[3] = {"sum", "max", "min"}; /* call k's: wt_call */

/* Call k's result for a cluster whose values are x[0 .. C * n), rank by rank.
   float: sums to the bit in the ORDER and within d u sum|x| of a double reference (each value
   passes at most d = wt_sum_depth roundings, each off by at most u times the |partial sum| it
   rounds; the double sum adds count 2^-53 sum|x|; 1% on top for second-order terms); max and min
   the bits of the largest / smallest input. */
static int wt_check_call(const float *x, int C, int n, unsigned k, float got, char *why, size_t len)
{
    const size_t count = (size_t)C * n;
    float want = x[0];
    if (k % 3 == 0) {
        want = wt_cluster_sum_model(x, C, n);
        double ref = 0, abs_sum = 0;
        for (size_t i = 0; i < count; i++) ref += (double)x[i], abs_sum += fabs((double)x[i]);
        const double tol = (wt_sum_depth(C, n) * 0x1p-24 + (double)count * 0x1p-53) * abs_sum * 1.01;
        if (!(fabs((double)got - ref) <= tol)) {
            snprintf(why, len, "sum %.9g, the double reference is %.17g (bound %.3g)", (double)got, ref, tol);
            return 0;
        }
    } else {
        for (size_t i = 1; i < count; i++)
            if (k % 3 == 1 ? x[i] > want : x[i] < want) want = x[i];
    }
    if (wt_same(got, want)) return 1;
    snprintf(why, len, "%s %.9g, expected %.9g%s", wt_number_op[k % 3], (double)got, (double)want,
             k % 3 == 0 ? " (the documented order)" : "");
    return 0;
}

/* int: exact, the sums in 64 bits (they cannot wrap: wt_gen<int>). */
static int wt_check_call(const int *x, int C, int n, unsigned k, int got, char *why, size_t len)
{
    const size_t count = (size_t)C * n;
    long long want = k % 3 == 0 ? 0 : x[0];
    for (size_t i = k % 3 == 0 ? 0 : 1; i < count; i++)
        want = k % 3 == 0 ? want + x[i] : k % 3 == 1 ? (x[i] > want ? x[i] : want) : (x[i] < want ? x[i] : want);
    if ((long long)got == want) return 1;
    snprintf(why, len, "%s %d, expected %lld", wt_number_op[k % 3], got, want);
    return 0;
}

/* pairs: the winner by wt_compound.h's reference of op_argminmax.cuh's rules, value bits and index. */
static int wt_check_call(const wt_argf *x, int C, int n, unsigned k, wt_argf got, char *why, size_t len)
{
    static const int ops[3] = {WT_ARGMAX, WT_ARGMIN, WT_ARGMAX_NUM};
    static float v[16 * 1024];
    static int idx[16 * 1024];
    const int count = C * n;
    for (int i = 0; i < count; i++) v[i] = x[i].value, idx[i] = x[i].index;
    const int want = wt_arg_pick(ops[k % 3], v, idx, count);
    char sub[300];
    if (wt_arg_matches(v, idx, want, got.value, got.index, sub, sizeof sub)) return 1;
    snprintf(why, len, "%s: %s", wt_argop_name[ops[k % 3]], sub);
    return 0;
}

/* ------------------------------------------------------------------------------------------
   tests
   ------------------------------------------------------------------------------------------ */

/* The usage snippet of cluster_reducer.cuh (divide_rows_by_sums), as the build copies it from the
   manual. */
#include "snippets/cluster_reducer.inc"

/* 8 clusters of 4 blocks of 256 threads take 21 rows in turn (clusters 0..4 three rows, 5..7 two:
   both mailboxes, and the first again). Rows of {1, 2, ..., 3000}: the row's sum, 4501500, is
   exact in float (every partial sum is an integer below 2^24), and x / 4501500.0f rounds once, on
   the device as on the host, so every element must equal the host's (float)c / 4501500.0f; that is
   within 2^-24 relative error of the exact quotient, checked too. Every row has the same sum, so a
   call that read another call's totals would pass: a second launch scales row r by 2^(r % 5),
   which leaves every partial sum exact and every quotient the same, while each cluster's
   consecutive rows differ in scale. */
static void test_reducer_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    enum { ROWS = 21, COLS = 3000, CLUSTERS = 8 };
    float *x = (float *)wt_host_alloc(ROWS * COLS * sizeof(float));
    float *d_x = (float *)wt_dev_alloc(ROWS * COLS * sizeof(float));
    for (int scaled = 0; scaled < 2; scaled++) {
        for (int i = 0; i < ROWS * COLS; i++)
            x[i] = (float)(i % COLS + 1) * (scaled ? (float)(1 << (i / COLS % 5)) : 1);
        wt_to_dev(d_x, x, ROWS * COLS * sizeof(float));
        wt_launch(divide_rows_by_sums, dim3(256), dim3(4), CLUSTERS, d_x, (int)ROWS, (int)COLS);
        WT_LAUNCHED();
        wt_to_host(x, d_x, ROWS * COLS * sizeof(float));
        for (int i = 0; i < ROWS * COLS; i++) {
            const int c = i % COLS + 1;
            const float want = (float)c / 4501500.0f;
            const double exact = (double)c / 4501500.0;
            if (x[i] != want || !(fabs((double)x[i] - exact) <= 0x1p-24 * exact))
                fail_msg("divide_rows_by_sums%s: element %d of row %d is %.9g, expected %.9g (%d / 4501500 = %.17g)",
                         scaled ? " (row r scaled by 2^(r % 5))" : "", c - 1, i / COLS, (double)x[i], (double)want, c,
                         exact);
        }
    }
    wt_dev_free(d_x);
    wt_host_free(x);
}

/* A block shape of the bits test: its name (BlockThreads in <>), size and both kernels. */
template <typename T> struct wt_shape {
    const char *name;
    int threads;
    void (*reducer)(const T *, T *, int);
    void (*plain)(const T *, T *, int);
};

template <int BT, typename T> static wt_shape<T> wt_shape_of(const char *name, int threads)
{
    const wt_shape<T> s = {name, threads, k_reducer<BT, T>, k_plain<BT, T>};
    return s;
}

enum { WT_SHAPES = 7 };
template <typename T> static void wt_shapes(wt_shape<T> s[WT_SHAPES])
{
    const wt_shape<T> list[WT_SHAPES] = {
        wt_shape_of<256, T>("<256>", 256),    wt_shape_of<0, T>("run-time 256", 256),
        wt_shape_of<96, T>("<96>", 96),       wt_shape_of<0, T>("run-time 20", 20),
        wt_shape_of<100, T>("<100>", 100),    wt_shape_of<0, T>("run-time 1000", 1000),
        wt_shape_of<1024, T>("<1024>", 1024),
    };
    for (int i = 0; i < WT_SHAPES; i++) s[i] = list[i];
}

/* One launch of each kernel of shape s on the same inputs: `clusters` clusters of C blocks (C 0:
   without clusters, `clusters` blocks), `calls` calls. For every call and cluster: every kept
   thread of every block holds the bits of block rank 0 thread 0's reducer result, the reducer's
   result in each kept thread has the bits of warpred_cluster_allreduce's in the same thread, and
   the result matches the host reference (wt_check_call). Outputs start poisoned. */
template <typename T>
static void wt_run_bits(const char *type, const wt_shape<T> &s, int C, unsigned clusters, int calls)
{
    const int n = s.threads, Cn = C ? C : 1;
    const unsigned blocks = (unsigned)Cn * clusters;
    const size_t threads = (size_t)blocks * n, per = (size_t)Cn * n, kept = (size_t)calls * blocks * WT_KEPT;
    const unsigned long long seed = wt_rand64();
    T *d_in = (T *)wt_dev_alloc((size_t)calls * threads * sizeof(T));
    k_fill<T><<<1024, 256>>>(d_in, seed, calls, threads, per);
    WT_LAUNCHED();
    T *d_red = (T *)wt_dev_alloc(kept * sizeof(T)), *d_plain = (T *)wt_dev_alloc(kept * sizeof(T));
    wt_launch(s.reducer, dim3(n), dim3(C), clusters, (const T *)d_in, d_red, calls);
    WT_LAUNCHED();
    wt_launch(s.plain, dim3(n), dim3(C), clusters, (const T *)d_in, d_plain, calls);
    WT_LAUNCHED();
    T *red = (T *)wt_host_alloc(kept * sizeof(T)), *plain = (T *)wt_host_alloc(kept * sizeof(T));
    T *x = (T *)wt_host_alloc(per * sizeof(T));
    wt_to_host(red, d_red, kept * sizeof(T));
    wt_to_host(plain, d_plain, kept * sizeof(T));
    for (int k = 0; k < calls; k++)
        for (unsigned q = 0; q < clusters; q++) {
            const size_t first = ((size_t)k * blocks + (size_t)q * Cn) * WT_KEPT;
            for (size_t j = 0; j < (size_t)Cn * WT_KEPT; j++) {
                const char *wrong = !wt_same(red[first + j], red[first])
                                        ? "its reducer result differs from block rank 0 thread 0's"
                                    : !wt_same(plain[first + j], red[first + j])
                                        ? "its reducer result differs from its warpred_cluster_allreduce result"
                                        : NULL;
                if (wrong)
                    fail_msg("%s, blocks of %s, clusters of %d%s, cluster %u of %u, call %d of %d, block rank %d "
                             "thread %d: %s",
                             type, s.name, Cn, C ? "" : " (launched without clusters)", q, clusters, k, calls,
                             (int)(j / WT_KEPT), wt_kept_thread((int)(j % WT_KEPT), n), wrong);
            }
            for (size_t j = 0; j < per; j++) x[j] = wt_gen<T>::at(seed, (unsigned)k, q * per + j, per);
            char why[600];
            if (!wt_check_call(x, Cn, n, (unsigned)k, red[first], why, sizeof why))
                fail_msg("%s, blocks of %s, clusters of %d%s, cluster %u of %u, call %d of %d: %s", type, s.name, Cn,
                         C ? "" : " (launched without clusters)", q, clusters, k, calls, why);
        }
    wt_dev_free(d_in);
    wt_dev_free(d_red);
    wt_dev_free(d_plain);
    wt_host_free(red);
    wt_host_free(plain);
    wt_host_free(x);
}

/* Every shape; cluster sizes 1, 2, 3, 4, 8 and the largest both kernels accept (2 clusters a
   launch), and a launch of 5 blocks without clusters. 1000 calls a launch; under the sanitizers 8
   (both mailboxes, each in both phases, the first again), under racecheck 6 and sizes 1, 2 and the
   largest. */
template <typename T> static void wt_bits_of(const char *type)
{
    const int level = wt_quick_level(), calls = level == 0 ? 1000 : level == 1 ? 8 : 6;
    wt_shape<T> shapes[WT_SHAPES];
    wt_shapes<T>(shapes);
    int launches = 0;
    for (int s = 0; s < WT_SHAPES; s++) {
        const dim3 block(shapes[s].threads);
        const int a = wt_reducer_cluster(shapes[s].reducer, block), b = wt_reducer_cluster(shapes[s].plain, block);
        const int largest = a < b ? a : b;
        const int sizes[6] = {1, 2, 3, 4, 8, largest};
        for (int i = 0; i < 6; i++) {
            int taken = sizes[i] <= largest && (level < 2 || sizes[i] <= 2 || i == 5);
            for (int j = 0; j < i; j++) taken &= sizes[j] != sizes[i];
            if (taken) wt_run_bits<T>(type, shapes[s], sizes[i], 2, calls), launches++;
        }
        wt_run_bits<T>(type, shapes[s], 0, 5, calls), launches++;
    }
    printf("[ INFO     ] %s: %d configurations of %d calls, reducer and warpred_cluster_allreduce bitwise equal\n",
           type, launches, calls);
}

static void test_reducer_bits(void **state)
{
    WT_NEED_GPU(state);
    wt_bits_of<float>("float sum/max/min");
    wt_bits_of<int>("int sum/max/min");
    wt_bits_of<wt_argf>("(float, int) argmax/argmin/argmax_num");
}

/* k_skewed<BT> on `clusters` clusters of C blocks of n threads: every kept result of every call
   the cluster's exact sum. */
template <int BT> static void wt_run_skewed(const char *name, int n, int C, unsigned clusters, int calls)
{
    const unsigned blocks = (unsigned)C * clusters;
    const size_t per = (size_t)C * n, kept = (size_t)calls * blocks * 2;
    const unsigned long long seed = wt_rand64();
    int *d_out = (int *)wt_dev_alloc(kept * sizeof(int)), *out = (int *)wt_host_alloc(kept * sizeof(int));
    wt_launch(k_skewed<BT>, dim3(n), dim3(C), clusters, seed, d_out, calls, C);
    WT_LAUNCHED();
    wt_to_host(out, d_out, kept * sizeof(int));
    for (unsigned q = 0; q < clusters; q++)
        for (int k = 0; k < calls; k++) {
            long long want = 0;
            for (size_t j = 0; j < per; j++) want += wt_gen<int>::at(seed, (unsigned)k, q * per + j, 0);
            for (int j = 0; j < 2 * C; j++) {
                const int got = out[((size_t)k * blocks + (size_t)q * C) * 2 + j];
                if (got != want)
                    fail_msg("skewed, blocks of %s, clusters of %d, cluster %u of %u, call %d of %d, block rank %d "
                             "thread %d: sum %d, expected %lld",
                             name, C, q, clusters, k, calls, j / 2, j % 2 ? n - 1 : 0, got, want);
            }
        }
    wt_dev_free(d_out);
    wt_host_free(out);
}

/* Many clusters, in clusters of 2, 4 and the largest size: 3200 blocks of 256 threads or 12800 of
   20, three or more times what an H200 holds at once, so that clusters start in waves beside others
   still running; 100 calls. Under the sanitizers 24 clusters of 8 calls (under racecheck blocks of
   256 only). */
static void test_reducer_skewed(void **state)
{
    WT_NEED_GPU(state);
    const int level = wt_quick_level(), calls = level ? 8 : 100;
    for (int b = 0; b < (level == 2 ? 1 : 2); b++) {
        const int n = b == 0 ? 256 : 20, total_blocks = b == 0 ? 3200 : 12800;
        const int largest = wt_reducer_cluster(b == 0 ? k_skewed<0> : k_skewed<20>, dim3(n));
        const int sizes[3] = {2, 4, largest};
        for (int s = 0; s < 3; s++) {
            if (sizes[s] > largest || (s == 2 && (largest == 2 || largest == 4))) continue;
            const unsigned clusters = level ? 24 : (unsigned)(total_blocks / sizes[s]);
            if (b == 0) wt_run_skewed<0>("run-time 256", n, sizes[s], clusters, calls);
            if (b == 1) wt_run_skewed<20>("<20>", n, sizes[s], clusters, calls);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check),
        WT_TEST(test_reducer_doc_snippet),
        WT_TEST(test_reducer_bits),
        WT_TEST(test_reducer_skewed),
    };
    /* one test or a pattern of them, e.g. WARPRED_TEST_FILTER='test_reducer_skewed' under a sanitizer */
    if (getenv("WARPRED_TEST_FILTER")) cmocka_set_test_filter(getenv("WARPRED_TEST_FILTER"));
    return cmocka_run_group_tests(tests, wt_cluster_setup, NULL);
}
