/* Block-level reductions: every block size 1..1024, 2D and 3D shapes, every operation x type,
   back-to-back calls without caller barriers, against the host reference in wt_types.h. */
#include <warpred/block_reduce.cuh>
#include <warpred/op_tuple.cuh>
#include "wt_types.h"
#include "wt_kernels.h" /* wt_run_blocks: launch, copy back, check every block */
#include "wt_order.h"   /* wt_down_tree_model, wt_block_sum_model */

/* Each block reduces its own slice; thread 0 writes the reduce result, every thread the
   allreduce result. The two calls follow each other with no barrier in between. */
template <typename T, typename Op> __global__ void k_block(const T *in, T *red, T *all)
{
    const int nthreads = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = blockIdx.x * nthreads + tid;
    T r = warpred_block_reduce(in[i], Op());
    T a = warpred_block_allreduce(in[i], Op());
    if (tid == 0) red[blockIdx.x] = r;
    all[i] = a;
}

/* The same with the block size given at compile time. */
template <int BT, typename T, typename Op> __global__ void k_block_static(const T *in, T *red, T *all)
{
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = blockIdx.x * BT + tid;
    T r = warpred_block_reduce<BT>(in[i], Op());
    T a = warpred_block_allreduce<BT>(in[i], Op());
    if (tid == 0) red[blockIdx.x] = r;
    all[i] = a;
}

/* A value that changes the result of op if it is wrongly counted: the extreme of the
   type for min/max, a large value for sums, the poison bit pattern for bitwise ops. */
template <typename T> static T wt_loud(int op)
{
    if constexpr (!wt_type<T>::is_int) {
        return wt_type<T>::from_d(wt_op_is_min(op) ? -60000.0 : 60000.0);
    } else {
        T v;
        memset((void *)&v, WT_POISON, sizeof v);
        if (wt_op_is_min(op) || wt_op_is_max(op)) {
            const T zero = (T)0, ones = (T)~zero;
            const T smallest = ones < zero ? (T)(1ull << (sizeof(T) * 8 - 1)) : zero; /* signed: the sign bit alone */
            v = wt_op_is_min(op) ? smallest : (T)~smallest;
        }
        return v;
    }
}

/* Only the first n threads' values count (the others pass garbage: their poisoned input). */
template <typename T, typename Op> __global__ void k_block_valid(const T *in, int n, T *red, T *all)
{
    const int nthreads = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = blockIdx.x * nthreads + tid;
    T r = warpred_block_reduce_valid(in[i], Op(), n);
    T a = warpred_block_allreduce_valid(in[i], Op(), n);
    if (tid == 0) red[blockIdx.x] = r;
    all[i] = a;
}

/* One block-reduction case. */
typedef struct {
    dim3 shape;  /* of each block */
    int blocks;  /* each reduces its own slice of the input */
    int special; /* draw NaN, inf, -0 and subnormals among the inputs */
    int valid;   /* 0: every thread's value counts (warpred_block_reduce / _allreduce);
                    n: only the first n do (warpred_block_reduce_valid / _allreduce_valid) */
} wt_block_case;

static wt_block_case wt_blocks_of(dim3 shape, int blocks)
{
    wt_block_case c;
    c.shape = shape;
    c.blocks = blocks;
    c.special = 0;
    c.valid = 0;
    return c;
}

/* Runs case c with fresh inputs: k_block_valid when c.valid is set, else static_kernel if
   given (a kernel with a compile-time block size), else k_block. Fails with a message on the
   first wrong output. */
template <typename T, typename Op>
static void run_block(wt_block_case c, void (*static_kernel)(const T *, T *, T *) = NULL)
{
    const int op = wt_op_of<Op>::code;
    const dim3 shape = c.shape;
    const int nthreads = shape.x * shape.y * shape.z, blocks = c.blocks;
    const int valid = c.valid ? c.valid : nthreads;
    const size_t count = (size_t)blocks * nthreads, bytes = count * sizeof(T);
    T *in = (T *)wt_host_alloc(bytes), *d_in = (T *)wt_dev_alloc(bytes);
    for (size_t i = 0; i < count; i++) in[i] = wt_type<T>::random(c.special);
    for (size_t i = 0; i < count; i++) /* values past the first n must not count: make them loud */
        if ((int)(i % nthreads) >= valid) in[i] = wt_loud<T>(op);
    wt_to_dev(d_in, in, bytes);
    char what[120];
    snprintf(what, sizeof what, "%s %s%s%s", wt_type<T>::name(), wt_op_name[op],
             static_kernel && !c.valid ? " (compile-time size)" : "", c.special ? " (special values)" : "");
    wt_run_blocks<T>(
        what, shape, blocks, valid,
        [&](T *d_red, T *d_all) {
            if (c.valid) k_block_valid<T, Op><<<blocks, shape>>>(d_in, c.valid, d_red, d_all);
            else if (static_kernel)
                static_kernel<<<blocks, shape>>>(d_in, d_red, d_all);
            else
                k_block<T, Op><<<blocks, shape>>>(d_in, d_red, d_all);
        },
        [&](const int *pos, int k, T got, char *why, size_t len) {
            return wt_ref_check(op, in, pos, k, got, why, len);
        },
        wt_same_bits<T>);
    wt_dev_free(d_in);
    wt_host_free(in);
}

/* Every 1D size from 1 to 1024 (under `make sanitize`, a spread of sizes including all edges). */
template <typename T> static void run_every_size(void)
{
    for (int n = 1; n <= 1024; n++) {
        int edge = n <= 66 || n % 32 <= 1 || n % 32 == 31 || n >= 1000;
        if (wt_quick() && !edge && n % 37 != 0) continue;
        run_block<T, warpred_op_sum>(wt_blocks_of(dim3(n), 3));
    }
}

static const dim3 wt_shapes[] = {dim3(1000),       dim3(1024),     dim3(33),      dim3(17),
                                 dim3(96),         dim3(7, 5, 3),  dim3(32, 32),  dim3(33, 31),
                                 dim3(10, 10, 10), dim3(3, 3, 64), dim3(1, 1, 64)};

/* warpred_block_reduce_valid / _allreduce_valid: n = 1, a middle value, all but one, all. */
template <typename T, typename Op> static void run_valid(int special)
{
    for (size_t s = 0; s < sizeof wt_shapes / sizeof wt_shapes[0]; s++) {
        const int nthreads = wt_shapes[s].x * wt_shapes[s].y * wt_shapes[s].z;
        const int ns[4] = {1, nthreads / 2 + 3 <= nthreads ? nthreads / 2 + 3 : nthreads,
                           nthreads > 1 ? nthreads - 1 : 1, nthreads};
        for (int k = 0; k < 4; k++) {
            wt_block_case c = wt_blocks_of(wt_shapes[s], 3);
            c.special = special;
            c.valid = ns[k];
            run_block<T, Op>(c);
        }
    }
}

static void test_valid(void **state)
{
    WT_NEED_GPU(state);
    run_valid<int, warpred_op_sum>(0);
    run_valid<float, warpred_op_sum>(0);
    run_valid<double, warpred_op_max>(1);
    run_valid<unsigned, warpred_op_and>(1);
    run_valid<__half, warpred_op_min_num>(1);
}

/* warpred_block_reduce<BlockThreads> / allreduce<BlockThreads>: the compile-time size. */
template <typename T, typename Op> static void run_static(int special)
{
    wt_block_case c = wt_blocks_of(dim3(17), 3);
    c.special = special;
    run_block<T, Op>(c, k_block_static<17, T, Op>);
    c.shape = dim3(32);
    run_block<T, Op>(c, k_block_static<32, T, Op>);
    c.shape = dim3(96);
    run_block<T, Op>(c, k_block_static<96, T, Op>);
    c.shape = dim3(7, 5, 3);
    run_block<T, Op>(c, k_block_static<105, T, Op>);
    c.shape = dim3(1000);
    run_block<T, Op>(c, k_block_static<1000, T, Op>);
    c.shape = dim3(32, 32);
    run_block<T, Op>(c, k_block_static<1024, T, Op>);
    c.shape = dim3(256);
    c.blocks = 5;
    run_block<T, Op>(c, k_block_static<256, T, Op>);
}

static void test_static_block_size(void **state)
{
    WT_NEED_GPU(state);
    run_static<int, warpred_op_sum>(0);
    run_static<float, warpred_op_sum>(0);
    run_static<float, warpred_op_max>(1);
    run_static<double, warpred_op_min_num>(1);
    run_static<unsigned long long, warpred_op_xor>(0);
}

WT_GPU_TEST(test_every_size_int, run_every_size<int>())
WT_GPU_TEST(test_every_size_float, run_every_size<float>())


template <typename T, typename Op> static void run_shapes(int special)
{
    for (size_t s = 0; s < sizeof wt_shapes / sizeof wt_shapes[0]; s++) {
        wt_block_case c = wt_blocks_of(wt_shapes[s], 4);
        c.special = special;
        run_block<T, Op>(c);
    }
}

template <typename T> static void run_float_ops(void)
{
    wt_each_float_op([](auto op, int special) { run_shapes<T, decltype(op)>(special); });
}

template <typename T> static void run_int_ops(void)
{
    wt_each_int_op([](auto op, int special) { run_shapes<T, decltype(op)>(special); });
}

WT_GPU_TESTS_EACH_TYPE(test_ops_, run_int_ops, run_float_ops)

/* Float sums follow the documented order (block_reduce.cuh, ORDER OF FLOAT SUMS) to the bit.
   Blocks of more than 32 threads (32 and fewer are a warp reduction; its allreduce is a
   butterfly). Scalars: lane L sums the values of threads L, L + 32, L + 64, ... (its column)
   by the same pairwise tree as the shuffle-down tree (slot j = thread L + 32 j, absent slots
   left out), then the lane sums go through the shuffle-down tree (lanes with no value left
   out). The host
   models of wt_order.h do exactly that in T arithmetic; the compound order (each warp's tree, then the
   partials in order up to 16 warps, by the tree above) is modelled for the tuple test below. */
template <typename T> static T wt_block_sum_model_compound(const T *x, int n)
{
    const int nwarps = (n + 31) / 32;
    T part[32] = {};
    for (int w = 0; w < nwarps; w++) part[w] = wt_down_tree_model(x + 32 * w, n - 32 * w < 32 ? n - 32 * w : 32);
    if (nwarps > 16) return wt_down_tree_model(part, nwarps);
    T acc = part[0];
    for (int w = 1; w < nwarps; w++) acc = acc + part[w];
    return acc;
}

/* Values whose sums depend on the order: both signs, magnitudes 2^-20 .. 2^20. */
template <typename T> static T wt_order_sensitive(void)
{
    const double m = 1.0 + wt_rand_unit();
    return (T)ldexp(wt_rand_below(2) ? m : -m, wt_rand_below(41) - 20);
}

template <typename T> static void run_sum_order(dim3 shape, int valid, void (*static_kernel)(const T *, T *, T *))
{
    const int nthreads = shape.x * shape.y * shape.z, blocks = 3, n = valid ? valid : nthreads;
    const size_t count = (size_t)blocks * nthreads, bytes = count * sizeof(T);
    T *in = (T *)wt_host_alloc(bytes), *d_in = (T *)wt_dev_alloc(bytes);
    for (size_t i = 0; i < count; i++) in[i] = wt_order_sensitive<T>();
    wt_to_dev(d_in, in, bytes);
    char what[120];
    snprintf(what, sizeof what, "%s sum in the documented order%s", wt_type<T>::name(),
             static_kernel ? " (compile-time size)" : "");
    wt_run_blocks<T>(
        what, shape, blocks, n,
        [&](T *d_red, T *d_all) {
            if (valid) k_block_valid<T, warpred_op_sum><<<blocks, shape>>>(d_in, valid, d_red, d_all);
            else if (static_kernel)
                static_kernel<<<blocks, shape>>>(d_in, d_red, d_all);
            else
                k_block<T, warpred_op_sum><<<blocks, shape>>>(d_in, d_red, d_all);
        },
        [&](const int *pos, int k, T got, char *why,
            size_t len) { /* pos: a block's first k threads */
                          const T want = wt_block_sum_model(in + pos[0], k);
                          if (wt_same_bits(got, want)) return 1;
                          snprintf(why, len, "got %.17g, the documented order gives %.17g", (double)got, (double)want);
                          return 0;
        },
        wt_same_bits<T>);
    wt_dev_free(d_in);
    wt_host_free(in);
}

/* Every number of warps 2..32 (whole and partial last warps), 3D shapes, the _valid forms and
   the compile-time sizes; those with a partial last warp fold columns of two lengths with one
   code, whose last slot is present only in the lanes below N % 32: <40> (1 or 0 cells), <264>,
   <520>, <777> (that slot opens the second, third and fourth group of 8), <105> and <1000>. */
template <typename T> static void run_sum_orders(void)
{
    for (int n = 33; n <= 1024; n++) {
        const int edge = n % 32 <= 1 || n % 32 == 31 || n % 32 == 16;
        if (!edge && n % (wt_quick() ? 97 : 13) != 0) continue;
        run_sum_order<T>(dim3(n), 0, NULL);
    }
    const dim3 shapes[] = {dim3(7, 5, 3), dim3(32, 32), dim3(33, 31), dim3(10, 10, 10), dim3(3, 3, 64)};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int nthreads = shapes[s].x * shapes[s].y * shapes[s].z;
        run_sum_order<T>(shapes[s], 0, NULL);
        run_sum_order<T>(shapes[s], 33, NULL);
        run_sum_order<T>(shapes[s], nthreads / 2 + 5, NULL);
        run_sum_order<T>(shapes[s], nthreads - 1, NULL);
    }
    run_sum_order<T>(dim3(96), 0, k_block_static<96, T, warpred_op_sum>);
    run_sum_order<T>(dim3(256), 0, k_block_static<256, T, warpred_op_sum>);
    run_sum_order<T>(dim3(7, 5, 3), 0, k_block_static<105, T, warpred_op_sum>);
    run_sum_order<T>(dim3(40), 0, k_block_static<40, T, warpred_op_sum>);
    run_sum_order<T>(dim3(264), 0, k_block_static<264, T, warpred_op_sum>);
    run_sum_order<T>(dim3(520), 0, k_block_static<520, T, warpred_op_sum>);
    run_sum_order<T>(dim3(544), 0, k_block_static<544, T, warpred_op_sum>);
    run_sum_order<T>(dim3(777), 0, k_block_static<777, T, warpred_op_sum>);
    run_sum_order<T>(dim3(1000), 0, k_block_static<1000, T, warpred_op_sum>);
    run_sum_order<T>(dim3(1024), 0, k_block_static<1024, T, warpred_op_sum>);
}

WT_GPU_TEST(test_sum_order_float, run_sum_orders<float>())
WT_GPU_TEST(test_sum_order_double, run_sum_orders<double>())

/* Compound values keep the warp-partials order: a (float, double) tuple summed member by member,
   each member against wt_block_sum_model_compound, reduce and allreduce, run-time size. */
typedef warpred_tuple2<float, double> wt_pair;
typedef warpred_op_tuple2<warpred_op_sum, warpred_op_sum> wt_pair_sum;

__global__ void k_pair_order(const float *in, float *red, double *all)
{
    const int nthreads = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = blockIdx.x * nthreads + tid;
    const wt_pair mine = warpred_make_tuple(in[i], (double)in[i] * 3.0);
    const wt_pair r = warpred_block_reduce(mine, wt_pair_sum());
    const wt_pair a = warpred_block_allreduce(mine, wt_pair_sum());
    if (tid == 0) red[blockIdx.x] = r.v0, all[(size_t)gridDim.x * nthreads + blockIdx.x] = r.v1;
    all[i] = a.v1;
}

static void run_pair_order(dim3 shape)
{
    const int nthreads = shape.x * shape.y * shape.z, blocks = 3;
    const size_t count = (size_t)blocks * nthreads;
    float *in = (float *)wt_host_alloc(count * sizeof(float)), *red = (float *)wt_host_alloc(blocks * sizeof(float));
    double *all = (double *)wt_host_alloc((count + blocks) * sizeof(double)),
           *tripled = (double *)wt_host_alloc(count * sizeof(double));
    for (size_t i = 0; i < count; i++) in[i] = wt_order_sensitive<float>(), tripled[i] = (double)in[i] * 3.0;
    float *d_in = (float *)wt_dev_alloc(count * sizeof(float)), *d_red = (float *)wt_dev_alloc(blocks * sizeof(float));
    double *d_all = (double *)wt_dev_alloc((count + blocks) * sizeof(double));
    wt_to_dev(d_in, in, count * sizeof(float));
    k_pair_order<<<blocks, shape>>>(d_in, d_red, d_all);
    WT_LAUNCHED();
    wt_to_host(red, d_red, blocks * sizeof(float));
    wt_to_host(all, d_all, (count + blocks) * sizeof(double));
    for (int b = 0; b < blocks; b++) {
        const float want0 = wt_block_sum_model_compound(in + (size_t)b * nthreads, nthreads);
        const double want1 = wt_block_sum_model_compound(tripled + (size_t)b * nthreads, nthreads);
        if (wt_type<float>::bits(red[b]) != wt_type<float>::bits(want0))
            fail_msg("pair sum, block (%u,%u,%u) #%d: member 0 got %.9g, the documented order gives %.9g", shape.x,
                     shape.y, shape.z, b, (double)red[b], (double)want0);
        if (wt_type<double>::bits(all[count + b]) != wt_type<double>::bits(want1))
            fail_msg("pair sum, block (%u,%u,%u) #%d: member 1 got %.17g, the documented order gives %.17g", shape.x,
                     shape.y, shape.z, b, all[count + b], want1);
        for (int t = 0; t < nthreads; t++)
            if (wt_type<double>::bits(all[(size_t)b * nthreads + t]) != wt_type<double>::bits(want1))
                fail_msg("pair allreduce, block (%u,%u,%u) #%d thread %d: got %.17g, the documented order gives %.17g",
                         shape.x, shape.y, shape.z, b, t, all[(size_t)b * nthreads + t], want1);
    }
    wt_dev_free(d_in);
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_host_free(in);
    wt_host_free(red);
    wt_host_free(all);
    wt_host_free(tripled);
}

static void test_sum_order_compound(void **state)
{
    WT_NEED_GPU(state);
    const dim3 shapes[] = {dim3(33),  dim3(64),   dim3(100),  dim3(256),     dim3(512),
                           dim3(544), dim3(1000), dim3(1024), dim3(7, 5, 3), dim3(33, 31)};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) run_pair_order(shapes[s]);
}

/* Ten reductions in a row on different inputs, in one kernel with no caller barriers: the
   reuse-of-shared-memory bug class. Unrolled straight-line calls (mixing reduce, allreduce
   and types), then the same in a loop. in holds 10 slices of nthreads ints. */
#define WT_ROUNDS 10

__global__ void k_back_to_back(const int *in, long long *out)
{
    const int n = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    long long *o = out + blockIdx.x * 3 * WT_ROUNDS;
    const int *x = in + (size_t)blockIdx.x * WT_ROUNDS * n + tid;
    int r0 = warpred_block_reduce(x[0 * n], warpred_op_sum());
    int r1 = warpred_block_allreduce(x[1 * n], warpred_op_sum());
    long long r2 = warpred_block_reduce((long long)x[2 * n], warpred_op_sum());
    int r3 = warpred_block_reduce(x[3 * n], warpred_op_max());
    float r4 = warpred_block_allreduce((float)x[4 * n], warpred_op_sum());
    int r5 = warpred_block_reduce(x[5 * n], warpred_op_sum());
    int r6 = warpred_block_allreduce(x[6 * n], warpred_op_min());
    int r7 = warpred_block_reduce(x[7 * n], warpred_op_sum());
    int r8 = warpred_block_allreduce(x[8 * n], warpred_op_sum());
    int r9 = warpred_block_reduce(x[9 * n], warpred_op_xor());
    if (tid == 0) {
        o[0] = r0;
        o[1] = r1;
        o[2] = r2;
        o[3] = r3;
        o[4] = (long long)r4;
        o[5] = r5;
        o[6] = r6;
        o[7] = r7;
        o[8] = r8;
        o[9] = r9;
    }
    /* allreduce results must hold in every thread, not just thread 0 */
    if (r1 != warpred_block_allreduce(r1, warpred_op_max()) || r6 != warpred_block_allreduce(r6, warpred_op_min()))
        o[2 * WT_ROUNDS] = -1;
    for (int k = 0; k < WT_ROUNDS; k++) {
        int s = warpred_block_reduce(x[k * n], warpred_op_sum());
        int a = warpred_block_allreduce(x[k * n] ^ k, warpred_op_sum());
        if (tid == 0) o[WT_ROUNDS + k] = s;
        if (tid == n - 1) o[2 * WT_ROUNDS + 1 + k % (WT_ROUNDS - 1)] += a; /* poison + sum of two */
    }
}

static void run_back_to_back(dim3 shape, int blocks)
{
    const int n = shape.x * shape.y * shape.z;
    const size_t count = (size_t)blocks * WT_ROUNDS * n;
    int *in = (int *)wt_host_alloc(count * sizeof(int));
    /* small values keep the float round exact (|sum| < 2^24) */
    for (size_t i = 0; i < count; i++) in[i] = (int)(wt_rand32() % 20001) - 10000;
    int *d_in = (int *)wt_dev_alloc(count * sizeof(int));
    const size_t out_bytes = (size_t)blocks * 3 * WT_ROUNDS * sizeof(long long);
    long long *d_out = (long long *)wt_dev_alloc(out_bytes), *out = (long long *)wt_host_alloc(out_bytes);
    wt_to_dev(d_in, in, count * sizeof(int));
    k_back_to_back<<<blocks, shape>>>(d_in, d_out);
    WT_LAUNCHED();
    wt_to_host(out, d_out, out_bytes);
    long long poison;
    memset(&poison, WT_POISON, sizeof poison);
    for (int b = 0; b < blocks; b++) {
        const int *x = in + (size_t)b * WT_ROUNDS * n;
        long long sum[WT_ROUNDS] = {0}, sum_xor[WT_ROUNDS] = {0}, mx = INT32_MIN, mn = INT32_MAX, xr = 0;
        for (int k = 0; k < WT_ROUNDS; k++)
            for (int t = 0; t < n; t++) {
                sum[k] += x[k * n + t];
                sum_xor[k] += x[k * n + t] ^ k;
            }
        for (int t = 0; t < n; t++) {
            if (x[3 * n + t] > mx) mx = x[3 * n + t];
            if (x[6 * n + t] < mn) mn = x[6 * n + t];
            xr ^= x[9 * n + t];
        }
        const long long want[WT_ROUNDS] = {sum[0], sum[1], sum[2], mx, sum[4], sum[5], mn, sum[7], sum[8], xr};
        const long long *o = out + b * 3 * WT_ROUNDS;
        for (int k = 0; k < WT_ROUNDS; k++) {
            if (o[k] != want[k])
                fail_msg("block (%u,%u,%u) #%d straight-line call %d: got %lld, expected %lld", shape.x, shape.y,
                         shape.z, b, k, o[k], want[k]);
            if (o[WT_ROUNDS + k] != sum[k])
                fail_msg("block (%u,%u,%u) #%d loop round %d: got %lld, expected %lld", shape.x, shape.y, shape.z, b, k,
                         o[WT_ROUNDS + k], sum[k]);
        }
        if (o[2 * WT_ROUNDS] != poison) fail_msg("block #%d: an allreduce result differed between threads", b);
        for (int j = 0; j < WT_ROUNDS - 1; j++) {
            long long want_acc = poison + sum_xor[j] + (j == 0 ? sum_xor[WT_ROUNDS - 1] : 0);
            if (o[2 * WT_ROUNDS + 1 + j] != want_acc)
                fail_msg("block #%d loop allreduce slot %d: got %lld, expected %lld", b, j, o[2 * WT_ROUNDS + 1 + j],
                         want_acc);
        }
    }
    wt_dev_free(d_in);
    wt_dev_free(d_out);
    wt_host_free(in);
    wt_host_free(out);
}

static void test_back_to_back(void **state)
{
    WT_NEED_GPU(state);
    const dim3 shapes[] = {dim3(1024), dim3(1000), dim3(257), dim3(64),      dim3(33),
                           dim3(32),   dim3(5),    dim3(1),   dim3(7, 5, 3), dim3(16, 8, 8)};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) run_back_to_back(shapes[s], 6);
}

/* The usage snippets of block_reduce.cuh (the kernels row_sums and demo), as the build copies
   them from the manual (scripts/snippets.py). */
#include "snippets/block_reduce.inc"

static void test_doc_snippets(void **state)
{
    WT_NEED_GPU(state);
    int *d = (int *)wt_dev_alloc(2 * sizeof(int)), h[2];
    demo<<<1, dim3(10, 7, 3)>>>(d);
    WT_LAUNCHED();
    wt_to_host(h, d, sizeof h);
    assert_int_equal(h[0], 21945);
    assert_int_equal(h[1], 209);
    wt_dev_free(d);

    enum { ROWS = 3, COLS = 1000 };
    float x[ROWS * COLS], sums[ROWS];
    for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)(i % 7); /* small integers: exact sums */
    float *d_x = (float *)wt_dev_alloc(sizeof x), *d_out = (float *)wt_dev_alloc(sizeof sums);
    wt_to_dev(d_x, x, sizeof x);
    row_sums<<<ROWS, 128>>>(d_x, COLS, d_out);
    WT_LAUNCHED();
    wt_to_host(sums, d_out, sizeof sums);
    for (int r = 0; r < ROWS; r++) {
        double want = 0;
        for (int c = 0; c < COLS; c++) want += x[r * COLS + c];
        assert_true(sums[r] == (float)want);
    }
    wt_dev_free(d_x);
    wt_dev_free(d_out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_doc_snippets),      WT_TEST(test_valid),
        WT_TEST(test_static_block_size), WT_TEST(test_every_size_int),
        WT_TEST(test_every_size_float),  WT_TEST(test_sum_order_float),
        WT_TEST(test_sum_order_double),  WT_TEST(test_sum_order_compound),
        WT_TEST(test_ops_int),           WT_TEST(test_ops_unsigned),
        WT_TEST(test_ops_long_long),     WT_TEST(test_ops_unsigned_long_long),
        WT_TEST(test_ops_float),         WT_TEST(test_ops_double),
        WT_TEST(test_ops_half),          WT_TEST(test_ops_bfloat16),
        WT_TEST(test_back_to_back),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
